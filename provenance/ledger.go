package provenance

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Origin is the ledger's record of a content: the type it was first
// registered under, and by which item.
type Origin struct {
	Kind      Kind   `json:"type"`
	ContentID string `json:"content_id"`
	// Item is the key of the item whose registration was first.
	Item   string `json:"item"`
	Source string `json:"source"`
	// Seq is the history sequence number of that registration.
	Seq int `json:"seq"`
}

// Ledger remembers, for every content registered in a store, the type it
// was first registered under; later registrations never change it. It
// also indexes each registered line long enough for the wrapped-content
// check. The Store writes to it; its read methods are safe for concurrent
// use with the store's writes.
//
// The line index is built lazily: registering a content only queues its
// text, and the first wrapped-content check indexes the queue in
// registration order. A build that never checks (no instruction after
// other content) never canonicalizes a line; one that does finds exactly
// what an eager index would have.
type Ledger struct {
	mu       sync.RWMutex
	origins  map[string]Origin
	min      int              // shortest indexed line, in code points
	pending  []pendingText    // registered texts not indexed yet, in order
	lines    []lineEntry      // indexed lines, in registration order
	byPrefix map[string][]int // the first min code points of a line → lines
	seen     map[string]bool  // canonical lines already indexed
}

type pendingText struct {
	origin Origin
	text   string
}

type lineEntry struct {
	canon  string
	line   string // the line as first registered
	origin Origin
}

func newLedger(minWrapped int) *Ledger {
	return &Ledger{origins: make(map[string]Origin, 8), min: minWrapped}
}

// Origin returns the origin of the content with this content ID.
func (l *Ledger) Origin(contentID string) (Origin, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	o, ok := l.origins[contentID]
	return o, ok
}

// Origins lists every origin, in registration order.
func (l *Ledger) Origins() []Origin {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]Origin, 0, len(l.origins))
	for _, o := range l.origins {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Origin) int { return a.Seq - b.Seq })
	return out
}

// Len is the number of contents the ledger knows.
func (l *Ledger) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.origins)
}

// ShortID returns the shortest prefix of id, at least 12 hex digits, that
// no other content ID in the ledger shares.
func (l *Ledger) ShortID(id string) string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	n := min(12, len(id))
	for other := range l.origins {
		if other == id {
			continue
		}
		c := 0
		for c < len(id) && c < len(other) && id[c] == other[c] {
			c++
		}
		n = max(n, min(c+1, len(id)))
	}
	return id[:n]
}

// record notes o as the origin of its content unless one is known, and
// queues the content's lines for the index. empty reports that the
// canonical form of text is empty: such content is not recorded.
func (l *Ledger) record(o Origin, text string, empty bool) {
	if empty {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.origins[o.ContentID]; !ok {
		l.origins[o.ContentID] = o
	}
	if l.min > 0 {
		l.pending = append(l.pending, pendingText{o, text})
	}
}

// index indexes the queued texts' lines, in registration order. l.mu must
// be held for writing.
func (l *Ledger) index() {
	if l.seen == nil {
		l.byPrefix, l.seen = map[string][]int{}, map[string]bool{}
	}
	for _, p := range l.pending {
		for _, line := range lines(p.text) {
			c := Canonical(line)
			if l.seen[c] || utf8.RuneCountInString(c) < l.min {
				continue
			}
			l.seen[c] = true
			l.byPrefix[prefixRunes(c, l.min)] = append(l.byPrefix[prefixRunes(c, l.min)], len(l.lines))
			l.lines = append(l.lines, lineEntry{canon: c, line: strings.TrimSpace(line), origin: p.origin})
		}
	}
	l.pending = nil
}

// wrapped finds the earliest-registered indexed line, of an origin type
// other than except, that occurs in the canonical form of text.
func (l *Ledger) wrapped(text string, except Kind) (lineEntry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.min <= 0 {
		return lineEntry{}, false
	}
	l.index()
	if len(l.lines) == 0 {
		return lineEntry{}, false
	}
	canon := Canonical(text)
	best := -1
	starts := make([]int, 0, len(canon))
	for i := range canon {
		starts = append(starts, i)
	}
	starts = append(starts, len(canon))
	for i := 0; i+l.min < len(starts); i++ {
		rest := canon[starts[i]:]
		for _, c := range l.byPrefix[canon[starts[i]:starts[i+l.min]]] {
			e := l.lines[c]
			if e.origin.Kind != except && strings.HasPrefix(rest, e.canon) && (best < 0 || c < best) {
				best = c
			}
		}
	}
	if best < 0 {
		return lineEntry{}, false
	}
	return l.lines[best], true
}

// prefixRunes returns the first n code points of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
