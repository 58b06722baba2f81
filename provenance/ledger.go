package provenance

import (
	"context"
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
// The line index is built lazily: registering a content only notes its
// text, and the first wrapped-content check indexes what was noted since
// the last, in registration order. A build that never checks (no
// instruction after other content) never canonicalizes a line; one that
// does finds exactly what an eager index would have.
//
// A store made from a Base (see Store.Freeze) has a ledger that continues
// the base's frozen one: every lookup asks the base first (its contents
// were registered first, so its origins win), and the ledger holds only
// what its own store registered.
type Ledger struct {
	mu   sync.RWMutex
	base *Ledger // the frozen ledger this one continues, or nil
	min  int     // shortest indexed line, in code points
	// checked are the types wrapped is called for; shared, never written.
	checked []Kind
	// entries are the contents registered in this ledger, in order; a
	// content ID or reading key (see Reading) stands for the origin of
	// its first entry (after the base's). A build registers a handful,
	// which a scan finds sooner than a map is made.
	entries []ledgerEntry
	// byID and byReading index entries once they outgrow a scan: the
	// first entry of each content ID and of each reading key.
	byID      map[string]int32
	byReading map[readKey]int32
	ids       int             // entries that are the first of their content ID
	indexed   int             // entries[:indexed] have had their lines indexed
	lines     []lineEntry     // indexed lines, in registration order (after the base's)
	seen      map[string]bool // canonical lines indexed here (the base's are in its own)
	loose     []int32         // indexed lines in no automaton yet
	automata  []*automaton    // the other lines, by decreasing size
	// steps counts the automaton steps of every check, for the tests
	// that hold the check to linear work.
	steps int
}

// ledgerEntry is one registered content: its origin, its reading key,
// its text (for the line index) and whether it is the first entry of its
// content ID, here and in the base.
type ledgerEntry struct {
	origin  Origin
	text    string
	reading readKey
	firstID bool
}

// scanMax is how many entries (or held items) a scan looks through before
// a map indexes them: a contract build registers about a dozen items, for
// which a scan of 64-byte keys that differ in their first bytes is
// quicker than hashing them, and needs no map. It earns its place in
// allocations: `go test ./provenance -run '^$' -bench LayeredStore`, three
// interleaved runs on 2026-12-02, 6 allocations and 2.4 KB an iteration
// against 12 and 3.2 KB with maps from the first entry (scanMax 0), the
// time the same within noise (5.9–6.7 µs against 5.6–6.8 µs).
const scanMax = 16

type lineEntry struct {
	canon  string
	line   string // the line as first registered
	origin Origin
}

// newLedger makes a ledger whose wrapped-content check looks for lines
// of at least minWrapped code points (none when 0) in items of the
// checked types.
func newLedger(minWrapped int, checked []Kind) *Ledger {
	return &Ledger{min: minWrapped, checked: checked}
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
	return l.origin(contentID)
}

// origin is Origin with l.mu held.
func (l *Ledger) origin(id string) (Origin, bool) {
	if l.base != nil {
		if o, ok := l.base.origin(id); ok {
			return o, true
		}
	}
	return firstOrigin(l.entries, l.byID, id, func(e *ledgerEntry) string { return e.origin.ContentID })
}

// firstOrigin is the origin of the first of entries whose key (keyOf)
// is k: found in index once the entries have one (see indexEntries), by
// a scan before.
func firstOrigin[K comparable](entries []ledgerEntry, index map[K]int32, k K, keyOf func(*ledgerEntry) K) (Origin, bool) {
	if index != nil {
		i, ok := index[k]
		if !ok {
			return Origin{}, false
		}
		return entries[i].origin, true
	}
	for i := range entries {
		if keyOf(&entries[i]) == k {
			return entries[i].origin, true
		}
	}
	return Origin{}, false
}

// Origins lists every origin, in registration order.
func (l *Ledger) Origins() []Origin {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]Origin, 0, l.len())
	for _, layer := range [2]*Ledger{l.base, l} {
		if layer == nil {
			continue
		}
		for _, e := range layer.entries {
			if e.firstID {
				out = append(out, e.origin)
			}
		}
	}
	slices.SortFunc(out, func(a, b Origin) int { return a.Seq - b.Seq })
	return out
}

// Len is the number of contents the ledger knows.
func (l *Ledger) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.len()
}

func (l *Ledger) len() int {
	if l.base != nil {
		return l.base.ids + l.ids
	}
	return l.ids
}

// ShortID returns the shortest prefix of id, at least 12 hex digits, that
// no other content ID in the ledger shares.
func (l *Ledger) ShortID(id string) string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	n := min(12, len(id))
	for _, layer := range [2]*Ledger{l.base, l} {
		if layer == nil {
			continue
		}
		for _, e := range layer.entries {
			other := e.origin.ContentID
			if other == id {
				continue
			}
			c := 0
			for c < len(id) && c < len(other) && id[c] == other[c] {
				c++
			}
			n = max(n, min(c+1, len(id)))
		}
	}
	return id[:n]
}

// originByReading returns the first origin of a content whose reading
// key (readingKey) is key.
func (l *Ledger) originByReading(key readKey) (Origin, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.originOfReading(key)
}

// originOfReading is originByReading with l.mu held.
func (l *Ledger) originOfReading(key readKey) (Origin, bool) {
	if l.base != nil {
		if o, ok := l.base.originOfReading(key); ok {
			return o, true
		}
	}
	return firstOrigin(l.entries, l.byReading, key, func(e *ledgerEntry) readKey { return e.reading })
}

// record notes o as the origin of its content, and of its reading key,
// unless one is known, and notes the content's lines for the index.
// empty reports that the canonical form of text is empty: such content is
// not recorded.
func (l *Ledger) record(o Origin, text string, reading readKey, empty bool) {
	if empty {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, known := l.origin(o.ContentID)
	if !known {
		l.ids++
	}
	l.entries = append(l.entries, ledgerEntry{origin: o, text: text, reading: reading, firstID: !known})
	n := int32(len(l.entries) - 1)
	switch {
	case l.byID != nil:
		if _, ok := l.byID[o.ContentID]; !ok {
			l.byID[o.ContentID] = n
		}
		if _, ok := l.byReading[reading]; !ok {
			l.byReading[reading] = n
		}
	case len(l.entries) > scanMax:
		l.indexEntries()
	}
}

// indexEntries makes byID and byReading from the entries.
func (l *Ledger) indexEntries() {
	l.byID = make(map[string]int32, 2*len(l.entries))
	l.byReading = make(map[readKey]int32, 2*len(l.entries))
	for i, e := range l.entries {
		if _, ok := l.byID[e.origin.ContentID]; !ok {
			l.byID[e.origin.ContentID] = int32(i)
		}
		if _, ok := l.byReading[e.reading]; !ok {
			l.byReading[e.reading] = int32(i)
		}
	}
}

// seenLine reports whether the canonical line c is indexed, here or in
// the base.
func (l *Ledger) seenLine(c string) bool {
	return l.seen[c] || (l.base != nil && l.base.seen[c])
}

// index indexes the lines of the entries not indexed yet, in
// registration order, and compiles them into the automata. l.mu must be
// held for writing. When ctx is done it returns its error; what was done
// so far stays, and the next call goes on from there.
func (l *Ledger) index(ctx context.Context) error {
	if l.indexed < len(l.entries) && l.seen == nil {
		l.seen = map[string]bool{}
	}
	for ; l.indexed < len(l.entries); l.indexed++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := &l.entries[l.indexed]
		for n, line := range lines(e.text) {
			if n%cancelEvery == cancelEvery-1 {
				// A text cut short is indexed again from its start;
				// the lines already seen are skipped.
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c := Reading(line)
			if l.seenLine(c) || utf8.RuneCountInString(c) < l.min {
				continue
			}
			l.seen[c] = true
			if l.findable(e.origin.Kind) {
				l.loose = append(l.loose, int32(len(l.lines)))
			}
			l.lines = append(l.lines, lineEntry{canon: c, line: strings.TrimSpace(line), origin: e.origin})
		}
	}
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
// does not hide it), which must be valid UTF-8; except must be one of
// the checked types. The base's lines were all registered before this
// ledger's, so one of them that occurs is the answer. When ctx is done
// it returns ctx's error.
func (l *Ledger) wrapped(ctx context.Context, text string, except Kind) (lineEntry, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.min <= 0 {
		return lineEntry{}, false, nil
	}
	if err := l.index(ctx); err != nil {
		return lineEntry{}, false, err
	}
	if len(l.lines) == 0 && (l.base == nil || len(l.base.lines) == 0) {
		return lineEntry{}, false, nil
	}
	canon := Reading(text)
	for _, layer := range [2]*Ledger{l.base, l} {
		if layer == nil {
			continue
		}
		found := noLine
		for _, a := range layer.automata {
			m, err := a.find(ctx, canon, except, &l.steps)
			if err != nil {
				return lineEntry{}, false, err
			}
			if m != noLine && (found == noLine || m < found) {
				found = m
			}
		}
		if found != noLine {
			return layer.lines[found], true, nil
		}
	}
	return lineEntry{}, false, nil
}

// freeze makes f, a new ledger, hold l's base's contents and l's, all
// indexed, for a Base: no call changes f after, so the ledgers that
// continue it read it without its lock. l.mu must be held.
func (l *Ledger) freeze(f *Ledger) {
	f.min, f.checked = l.min, l.checked
	if l.base != nil {
		f.entries = slices.Concat(l.base.entries, l.entries)
		f.ids = l.base.ids + l.ids
	} else {
		f.entries = slices.Clone(l.entries)
		f.ids = l.ids
	}
	if len(f.entries) > scanMax {
		f.indexEntries()
	}
	if f.min > 0 {
		// Nothing is done, so nothing stops it. Indexed now, the lines
		// are what a lazy index finds: the same lines in the same order.
		_ = f.index(context.Background())
	}
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
