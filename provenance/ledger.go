package provenance

import (
	"context"
	"maps"
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
	mu      sync.RWMutex
	origins map[string]Origin // by content ID
	// readings holds the first origin of each content by its reading key
	// (see Reading): the protected-type check looks there, so content
	// that reads the same as a protected one is that content.
	readings map[readKey]Origin
	min      int             // shortest indexed line, in code points
	checked  []Kind          // the types wrapped is called for
	pending  []pendingText   // registered texts not indexed yet, in order
	lines    []lineEntry     // indexed lines, in registration order
	seen     map[string]bool // canonical lines already indexed
	loose    []int32         // indexed lines in no automaton yet
	automata []*automaton    // the other lines, by decreasing size
	// steps counts the automaton steps of every check, for the tests
	// that hold the check to linear work.
	steps int
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

// newLedger makes a ledger whose wrapped-content check looks for lines
// of at least minWrapped code points (none when 0) in items of the
// checked types.
func newLedger(minWrapped int, checked []Kind) *Ledger {
	// Sized for a contract build, which registers a dozen or so items.
	l := &Ledger{origins: make(map[string]Origin, 8), readings: make(map[readKey]Origin, 8), min: minWrapped, checked: slices.Clone(checked)}
	if minWrapped > 0 {
		l.pending = make([]pendingText, 0, 16)
	}
	return l
}

// clone copies l for Store.Clone. Automata are never changed once
// built (a merge makes a new one), so the copy shares them; every slice
// and map it may append to or write is its own.
func (l *Ledger) clone() *Ledger {
	l.mu.RLock()
	defer l.mu.RUnlock()
	c := &Ledger{origins: make(map[string]Origin, max(8, len(l.origins))), readings: maps.Clone(l.readings), min: l.min, checked: l.checked,
		lines: slices.Clone(l.lines), loose: slices.Clone(l.loose), automata: slices.Clone(l.automata), steps: l.steps}
	for id, o := range l.origins {
		c.origins[id] = o
	}
	if l.pending != nil {
		// Room for the rest of a contract build's items: a clone starts
		// from a store that holds some already.
		c.pending = make([]pendingText, len(l.pending), len(l.pending)+8)
		copy(c.pending, l.pending)
	}
	if len(l.seen) > 0 { // index makes the map when it is nil
		c.seen = maps.Clone(l.seen)
	}
	return c
}

// findable reports whether a line of type k can be the answer of a check:
// whether some checked type is not k. The lines of a type that cannot
// (the instruction's own lines, by default) are indexed, since the first
// registration of a line decides its type, but kept out of the automata.
func (l *Ledger) findable(k Kind) bool {
	for _, c := range l.checked {
		if c != k {
			return true
		}
	}
	return false
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

// originByReading returns the first origin of a content whose reading
// key (readingKey) is key.
func (l *Ledger) originByReading(key readKey) (Origin, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	o, ok := l.readings[key]
	return o, ok
}

// record notes o as the origin of its content, and of its reading key,
// unless one is known, and queues the content's lines for the index.
// empty reports that the canonical form of text is empty: such content is
// not recorded.
func (l *Ledger) record(o Origin, text string, reading readKey, empty bool) {
	if empty {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.origins[o.ContentID]; !ok {
		l.origins[o.ContentID] = o
	}
	if _, ok := l.readings[reading]; !ok {
		l.readings[reading] = o
	}
	if l.min > 0 {
		l.pending = append(l.pending, pendingText{o, text})
	}
}

// index indexes the queued texts' lines, in registration order, and
// compiles them into the automata. l.mu must be held for writing. When
// ctx is done it returns its error; what was done so far stays, and the
// next call goes on from there.
func (l *Ledger) index(ctx context.Context) error {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	for len(l.pending) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := l.pending[0]
		for n, line := range lines(p.text) {
			if n%cancelEvery == cancelEvery-1 {
				// A text cut short is indexed again from its start;
				// the lines already seen are skipped.
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c := Reading(line)
			if l.seen[c] || utf8.RuneCountInString(c) < l.min {
				continue
			}
			l.seen[c] = true
			if l.findable(p.origin.Kind) {
				l.loose = append(l.loose, int32(len(l.lines)))
			}
			l.lines = append(l.lines, lineEntry{canon: c, line: strings.TrimSpace(line), origin: p.origin})
		}
		l.pending = l.pending[1:]
	}
	l.pending = nil
	if len(l.loose) > 0 {
		a, err := buildAutomaton(ctx, l.lines, l.loose, &l.steps)
		if err != nil {
			return err
		}
		l.automata, l.loose = append(l.automata, a), nil
	}
	// Merge automata within a factor of two of each other until sizes
	// more than double from one to the next (see wrapped.go).
	for {
		slices.SortStableFunc(l.automata, func(a, b *automaton) int { return b.size - a.size })
		i := 0
		for i+1 < len(l.automata) && l.automata[i].size > 2*l.automata[i+1].size {
			i++
		}
		if i+1 >= len(l.automata) {
			return nil
		}
		ids := append(slices.Clone(l.automata[i].lines), l.automata[i+1].lines...)
		m, err := buildAutomaton(ctx, l.lines, ids, &l.steps)
		if err != nil {
			return err
		}
		l.automata = slices.Replace(l.automata, i, i+2, m)
	}
}

// wrapped finds the earliest-registered indexed line, of an origin type
// other than except, that occurs in text, both compared in their Reading
// forms (so that a zero-width space or a Cyrillic letter inside a line
// does not hide it), which
// must be valid UTF-8; except must be one of the checked types. When ctx is done it returns ctx's error.
func (l *Ledger) wrapped(ctx context.Context, text string, except Kind) (lineEntry, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.min <= 0 {
		return lineEntry{}, false, nil
	}
	if err := l.index(ctx); err != nil {
		return lineEntry{}, false, err
	}
	if len(l.lines) == 0 {
		return lineEntry{}, false, nil
	}
	canon := Reading(text)
	found := noLine
	for _, a := range l.automata {
		m, err := a.find(ctx, canon, except, &l.steps)
		if err != nil {
			return lineEntry{}, false, err
		}
		if m != noLine && (found == noLine || m < found) {
			found = m
		}
	}
	if found == noLine {
		return lineEntry{}, false, nil
	}
	return l.lines[found], true, nil
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
