package selector

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/suggest"
)

// Query asks for the sources about some subjects on some dates.
type Query struct {
	Subjects []string
	Dates    []corpus.Date
	// Lang restricts the selection to sources in that language and sources
	// without a lang. Empty means every language.
	Lang string
}

// ErrBadQuery reports a query that cannot select anything.
var ErrBadQuery = errors.New("bad query")

// normalize checks q and returns it with subjects and dates sorted and
// deduplicated, so equal questions give equal selections.
func (q Query) normalize() (Query, error) {
	if len(q.Subjects) == 0 {
		return q, &diag.Diagnostic{Message: ErrBadQuery.Error() + ": no subject", Err: ErrBadQuery,
			Hint: diag.Set("name one with {subject}, e.g. lodging")}
	}
	if len(q.Dates) == 0 {
		return q, &diag.Diagnostic{Message: ErrBadQuery.Error() + ": no date", Err: ErrBadQuery,
			Hint: diag.Set("name one with {date} as YYYY-MM-DD")}
	}
	for _, s := range q.Subjects {
		if strings.TrimSpace(s) == "" {
			return q, fmt.Errorf("%w: empty subject", ErrBadQuery)
		}
	}
	for _, d := range q.Dates {
		if d.IsZero() {
			return q, fmt.Errorf("%w: empty date", ErrBadQuery)
		}
	}
	// A query of one subject and one date, a service's usual, is already
	// in order and keeps its slices: sorting copies took 8 of
	// BenchmarkHandlerContract's 67 allocs/op (go test ./serve -run '^$'
	// -bench 'BenchmarkHandlerContract$'), and BenchmarkSelect (./contract/,
	// 100k sources) went from 417–913 ns and 10 allocs to 170–196 ns and 2.
	if !strictlySorted(q.Subjects, strings.Compare) {
		q.Subjects = slices.Clone(q.Subjects)
		slices.Sort(q.Subjects)
		q.Subjects = slices.Compact(q.Subjects)
	}
	if !strictlySorted(q.Dates, corpus.Date.Compare) {
		q.Dates = slices.Clone(q.Dates)
		slices.SortFunc(q.Dates, corpus.Date.Compare)
		q.Dates = slices.Compact(q.Dates)
	}
	return q, nil
}

// strictlySorted reports whether s is in ascending order without repeats.
func strictlySorted[T any](s []T, cmp func(a, b T) int) bool {
	for i := 1; i < len(s); i++ {
		if cmp(s[i-1], s[i]) >= 0 {
			return false
		}
	}
	return true
}

// Compare orders sources as a contract lists them: valid_from descending,
// then source_id ascending (bytewise), then lang ascending.
func Compare(a, b *corpus.Source) int {
	return cmp.Or(
		b.ValidFrom.Compare(a.ValidFrom),
		strings.Compare(a.ID, b.ID),
		strings.Compare(a.Lang, b.Lang),
	)
}

// Selection is the outcome of a query: the applicable sources in contract
// order, and the conflicts among them.
type Selection struct {
	Query     Query
	Sources   []*corpus.Source
	Conflicts []Conflict
}

// Conflict is a set of applicable sources about the same subject that all
// apply on the same asked dates, in the same language. All of them are kept;
// the conflict is reported so a person can decide.
type Conflict struct {
	Subject string
	Lang    string        // the language they share; empty when none is set
	Dates   []corpus.Date // asked dates on which they all apply
	Sources []string      // their source_ids, in contract order
}

// String describes the conflict in one line.
func (c Conflict) String() string { return ConflictRecords([]Conflict{c})[0].String() }

// Index answers queries over one corpus in O(log n + k) for k results per
// subject and date. It is immutable and safe for concurrent use.
type Index struct {
	corpus    *corpus.Corpus
	bySubject map[string]*timeline
	// hints answer the questions about subjects it does not know, made
	// by the first such question (a corpus that is asked none pays
	// nothing for them).
	hints atomic.Pointer[corpus.SubjectHints]
}

// timeline cuts one subject's time into segments at every valid_from and
// valid_until; each segment lists the sources that cover all of it, in
// contract order. A date is found by binary search over the cut points.
// Memory is O(n) when versions of a subject do not overlap, and grows only
// with overlaps, which are conflicts anyway.
//
// The segments are positions in sources, all in one array: a pointer to
// each source and no pointer or small array per segment, since the
// collector marks every object of a loaded index in every collection.
// Measured on 100k generated sources (1,000 subjects, versions that do
// not overlap), 2026-12-02: the index holds 5k objects instead of 104k
// (a list per segment), and with corpus.Source's held lists a collection
// of the loaded corpus and index costs 0.81× the instructions, 0.87× the
// L1 and 0.91× the last-level read misses of main's (20 forced
// collections less none, valgrind --tool=cachegrind --cache-sim=yes
// --LL=2097152,16,64 on the 10k corpus).
type timeline struct {
	cuts []corpus.Date // ascending; segment i is [cuts[i], cuts[i+1])
	// in holds the segments: segment i is in[ends[i-1]:ends[i]] (from 0
	// for the first), positions in sources. len(cuts) segments; the last
	// is open-ended.
	in      []uint32
	ends    []uint32
	sources []*corpus.Source // every source of the subject, in contract order
}

// NewIndex indexes every source of c by subject and validity.
func NewIndex(c *corpus.Corpus) *Index {
	bySubject := map[string][]*corpus.Source{}
	for _, s := range c.Sources {
		for _, subj := range s.Subjects {
			if l := bySubject[subj]; len(l) == 0 || l[len(l)-1] != s {
				bySubject[subj] = append(bySubject[subj], s)
			}
		}
	}
	ix := &Index{corpus: c, bySubject: make(map[string]*timeline, len(bySubject))}
	for subj, sources := range bySubject {
		ix.bySubject[subj] = newTimeline(sources)
	}
	return ix
}

func newTimeline(sources []*corpus.Source) *timeline {
	slices.SortFunc(sources, Compare)
	t := &timeline{cuts: corpus.Cuts(sources), sources: sources}
	segs := make([][]uint32, len(t.cuts))
	for i, s := range sources { // in contract order, so every segment is too
		first, last := t.span(s)
		for j := first; j <= last; j++ {
			segs[j] = append(segs[j], uint32(i))
		}
	}
	n := 0
	for _, seg := range segs {
		n += len(seg)
	}
	t.fill(n, func(i int) []uint32 { return segs[i] })
	return t
}

// fill sets t's segments to seg(i) for each segment i, n positions in all
// (a hint).
func (t *timeline) fill(n int, seg func(i int) []uint32) {
	t.in, t.ends = make([]uint32, 0, n), make([]uint32, len(t.cuts))
	for i := range t.cuts {
		t.in = append(t.in, seg(i)...)
		t.ends[i] = uint32(len(t.in))
	}
}

// UpdateIndex indexes c as NewIndex does, reusing the timelines of prev,
// an index of an earlier corpus, for the subjects of which no source was
// added or removed: a reload that changes a few files then costs those
// files' subjects, not the corpus. Sources are told apart by identity, as
// corpus.Reload and Corpus.Update keep the unchanged ones. A nil
// prev gives NewIndex(c).
func UpdateIndex(prev *Index, c *corpus.Corpus) *Index {
	if prev == nil {
		return NewIndex(c)
	}
	changed := map[*corpus.Source]bool{}
	mark := func(s *corpus.Source) { changed[s] = true }
	corpus.DiffSources(prev.corpus.Sources, c.Sources, mark, mark)
	if len(changed) == 0 {
		ix := &Index{corpus: c, bySubject: prev.bySubject}
		ix.hints.Store(prev.hints.Load())
		return ix
	}
	// The sources of each touched subject: the old timeline's but the
	// removed ones, and the added ones.
	touched := map[string][]*corpus.Source{}
	for s := range changed {
		for _, subj := range s.Subjects {
			if _, ok := touched[subj]; ok {
				continue
			}
			var keep []*corpus.Source
			if t := prev.bySubject[subj]; t != nil {
				for _, o := range t.sources {
					if !changed[o] {
						keep = append(keep, o)
					}
				}
			}
			touched[subj] = keep
		}
	}
	for s := range changed {
		if !isIn(c, s) {
			continue // removed
		}
		for _, subj := range slices.Compact(slices.Sorted(slices.Values(s.Subjects))) {
			touched[subj] = append(touched[subj], s)
		}
	}
	ix := &Index{corpus: c, bySubject: maps.Clone(prev.bySubject)}
	sameSubjects := true // the hints of prev are this index's
	for subj, sources := range touched {
		if (len(sources) > 0) != (prev.bySubject[subj] != nil) {
			sameSubjects = false
		}
		if len(sources) == 0 {
			delete(ix.bySubject, subj)
			continue
		}
		if t := prev.bySubject[subj]; t != nil && len(sources) >= 64 {
			ix.bySubject[subj] = t.update(changed, sources)
		} else {
			ix.bySubject[subj] = newTimeline(sources)
		}
	}
	if sameSubjects {
		// A reload that changes files but no subject's existence keeps
		// the hints: a client asking about unknown subjects does not make
		// each snapshot build them again.
		ix.hints.Store(prev.hints.Load())
	}
	return ix
}

// update returns the timeline of sources, which are t's but for those in
// changed (removed) and those appended after t's kept ones (added). A
// subject shared by many sources (a whole corpus's "travel") would cost a
// sort of all of them to build afresh; when the change keeps the cut
// points, only the segments a removed or added source covers are made
// again, and the others are shared with t, which never changes them.
func (t *timeline) update(changed map[*corpus.Source]bool, sources []*corpus.Source) *timeline {
	kept := 0
	for _, s := range t.sources {
		if !changed[s] {
			kept++
		}
	}
	added := slices.SortedFunc(slices.Values(sources[kept:]), Compare)
	merged := make([]*corpus.Source, 0, len(sources))
	// Where each kept and each added source is in merged.
	keptAt, addedAt := make([]uint32, 0, kept), make([]uint32, len(added))
	i := 0
	for _, s := range sources[:kept] { // in contract order, as t's are
		for i < len(added) && Compare(added[i], s) < 0 {
			addedAt[i] = uint32(len(merged))
			merged = append(merged, added[i])
			i++
		}
		keptAt = append(keptAt, uint32(len(merged)))
		merged = append(merged, s)
	}
	for ; i < len(added); i++ {
		addedAt[i] = uint32(len(merged))
		merged = append(merged, added[i])
	}

	var removed []*corpus.Source
	for _, s := range t.sources {
		if changed[s] {
			removed = append(removed, s)
		}
	}
	has := func(d corpus.Date) bool {
		_, ok := slices.BinarySearchFunc(t.cuts, d, corpus.Date.Compare)
		return ok
	}
	for _, s := range added {
		if !has(s.ValidFrom) || !s.ValidUntil.IsZero() && !has(s.ValidUntil) {
			return newTimeline(merged) // a new cut point
		}
	}
	// Every cut point of a removed source must still be one of a source's.
	var orphans []corpus.Date
	for _, s := range removed {
		orphans = append(orphans, s.ValidFrom)
		if !s.ValidUntil.IsZero() {
			orphans = append(orphans, s.ValidUntil)
		}
	}
	orphans = slices.Compact(slices.SortedFunc(slices.Values(orphans), corpus.Date.Compare))
	if len(orphans) > 8 {
		return newTimeline(merged)
	}
	for _, d := range orphans {
		if !slices.ContainsFunc(merged, func(s *corpus.Source) bool { return s.ValidFrom == d || s.ValidUntil == d }) {
			return newTimeline(merged) // a cut point goes
		}
	}

	// A kept source's position in merged, by its position in t.sources
	// (sources[:kept] are t's kept ones in t's order): the segments no
	// change touches are t's, at the kept sources' new positions.
	moved := make([]uint32, len(t.sources))
	k := 0
	for j, s := range t.sources {
		if !changed[s] {
			moved[j] = keptAt[k]
			k++
		}
	}
	dirty := make([]bool, len(t.cuts))
	for _, s := range slices.Concat(removed, added) {
		first, last := t.span(s)
		for i := first; i <= last; i++ {
			dirty[i] = true
		}
	}
	nt := &timeline{cuts: t.cuts, sources: merged}
	var seg []uint32
	nt.fill(len(t.in)+len(added), func(i int) []uint32 {
		seg = seg[:0]
		if !dirty[i] {
			for _, j := range t.segment(i) {
				seg = append(seg, moved[j])
			}
			return seg
		}
		// Positions in merged are in contract order, as a segment is.
		for _, j := range t.segment(i) {
			if !changed[t.sources[j]] {
				seg = append(seg, moved[j])
			}
		}
		for a, s := range added {
			if first, last := t.span(s); first <= i && i <= last {
				seg = append(seg, addedAt[a])
			}
		}
		slices.Sort(seg)
		return seg
	})
	return nt
}

// span returns the first and last segment s covers.
func (t *timeline) span(s *corpus.Source) (first, last int) {
	first, last = t.find(s.ValidFrom), len(t.cuts)-1
	if !s.ValidUntil.IsZero() {
		last = t.find(s.ValidUntil) - 1
	}
	return first, last
}

// isIn reports whether s is one of c's sources.
func isIn(c *corpus.Corpus, s *corpus.Source) bool {
	i, ok := slices.BinarySearchFunc(c.Sources, s, corpus.CompareSources)
	return ok && c.Sources[i] == s
}

// find returns the index of the segment holding d, or -1 before the first.
func (t *timeline) find(d corpus.Date) int {
	return sort.Search(len(t.cuts), func(i int) bool { return d.Before(t.cuts[i]) }) - 1
}

// segment returns segment i, as positions in t.sources.
func (t *timeline) segment(i int) []uint32 {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.in[start:t.ends[i]]
}

// at returns the sources that apply on d, as positions in t.sources.
func (t *timeline) at(d corpus.Date) []uint32 {
	if i := t.find(d); i >= 0 {
		return t.segment(i)
	}
	return nil
}

// Corpus returns the indexed corpus.
func (ix *Index) Corpus() *corpus.Corpus { return ix.corpus }

// UnknownSubjectError reports an asked subject that no source of the
// corpus is about, in any language: almost always a typo, which would
// otherwise select nothing and look like a question without evidence.
// errors.Is(err, ErrBadQuery) holds for it.
type UnknownSubjectError struct {
	Subject string
	// Suggestion is the known subject closest to Subject, or "".
	Suggestion string
	// Related are the known subjects Subject stands for in a hierarchy,
	// sorted (corpus.RelatedSubjects): those under it when it names a
	// parent (travel/lodging), else those it ends (beijing).
	Related []string
	// Known lists the corpus's subjects, sorted, when there are few
	// enough to name (at most 12); nil otherwise.
	Known []string
}

// Error says which subject is unknown and what was likely meant, e.g.
// `unknown subject "lodgin"; did you mean lodging?`.
func (e *UnknownSubjectError) Error() string {
	switch {
	case len(e.Related) > 0:
		return fmt.Sprintf("unknown subject %q; did you mean %s?", e.Subject, suggest.OneOf(e.Related, 8))
	case e.Suggestion != "":
		return fmt.Sprintf("unknown subject %q; did you mean %s?", e.Subject, e.Suggestion)
	case len(e.Known) > 0:
		return fmt.Sprintf("unknown subject %q; the corpus's subjects are %s", e.Subject, strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("unknown subject %q; no source of the corpus is about it", e.Subject)
}

// Is reports ErrBadQuery.
func (e *UnknownSubjectError) Is(target error) bool { return target == ErrBadQuery }

// UnknownSubject says what subj, which none of known (sorted) is, most
// likely means: the subjects it stands for in a hierarchy, else the
// closest spelling, else (when there are few) every known subject.
func UnknownSubject(subj string, known []string) *UnknownSubjectError {
	return unknownSubject(subj, corpus.NewSubjectHints(known))
}

func unknownSubject(subj string, h *corpus.SubjectHints) *UnknownSubjectError {
	e := &UnknownSubjectError{Subject: subj}
	e.Related, e.Suggestion = h.Meant(subj)
	if known := h.Known(); len(known) <= 12 {
		e.Known = known
	}
	return e
}

// Subjects lists every subject some source of the corpus is about, sorted.
func (ix *Index) Subjects() []string { return slices.Sorted(maps.Keys(ix.bySubject)) }

// checkSubjects returns an *UnknownSubjectError for the first subject of
// q (normalized) that the index does not know.
func (ix *Index) checkSubjects(q Query) error {
	for _, subj := range q.Subjects {
		if ix.bySubject[subj] == nil {
			return ix.unknownSubject(subj)
		}
	}
	return nil
}

// unknownSubject is the *UnknownSubjectError of subj, a subject the
// index does not know.
func (ix *Index) unknownSubject(subj string) error {
	h := ix.hints.Load()
	if h == nil {
		// Two first questions at once may both make them; they are
		// equal, and one is kept.
		ix.hints.CompareAndSwap(nil, corpus.NewSubjectHints(ix.Subjects()))
		h = ix.hints.Load()
	}
	return unknownSubject(subj, h)
}

// Select returns the sources that apply to q, in contract order: each source
// once, however many subjects and dates select it. A subject no source is
// about is an *UnknownSubjectError; a known subject with no source on the
// dates selects nothing.
func (ix *Index) Select(q Query) (Selection, error) {
	q, err := q.normalize()
	if err != nil {
		return Selection{}, err
	}
	sel := Selection{Query: q}
	seen := map[*corpus.Source]bool{}
	conflicts := map[string]*Conflict{}
	for _, subj := range q.Subjects {
		// Each subject is looked up once; an unknown one is the answer,
		// the first in the query's order, as checkSubjects finds it.
		t := ix.bySubject[subj]
		if t == nil {
			return Selection{}, ix.unknownSubject(subj)
		}
		for _, d := range q.Dates {
			var here []*corpus.Source
			for _, i := range t.at(d) {
				if s := t.sources[i]; langMatches(s.Lang, q.Lang) {
					here = append(here, s)
				}
			}
			for _, s := range here {
				if !seen[s] {
					seen[s] = true
					sel.Sources = append(sel.Sources, s)
				}
			}
			addConflicts(conflicts, subj, d, here)
		}
	}
	slices.SortFunc(sel.Sources, Compare)
	for _, c := range conflicts {
		sel.Conflicts = append(sel.Conflicts, *c)
	}
	slices.SortFunc(sel.Conflicts, func(a, b Conflict) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Lang, b.Lang),
			slices.Compare(a.Sources, b.Sources))
	})
	return sel, nil
}

func langMatches(sourceLang, asked string) bool {
	return asked == "" || sourceLang == "" || sourceLang == asked
}

// addConflicts records every group of two or more sources that apply on d in
// one language. Sources without a lang join every language's group. A
// supplement (role: supplement) applies together with the others by design,
// so it is in no conflict.
func addConflicts(into map[string]*Conflict, subj string, d corpus.Date, here []*corpus.Source) {
	// Most dates select one source a subject: nothing to copy then.
	if len(here)-countFunc(here, (*corpus.Source).IsSupplement) < 2 {
		return
	}
	here = slices.DeleteFunc(slices.Clone(here), (*corpus.Source).IsSupplement)
	for _, lane := range corpus.Lanes(here) {
		if len(lane.Sources) < 2 {
			continue
		}
		ids := make([]string, len(lane.Sources))
		for i, s := range lane.Sources {
			ids[i] = s.ID
		}
		key := subj + "\x00" + lane.Lang + "\x00" + strings.Join(ids, "\x00")
		c := into[key]
		if c == nil {
			c = &Conflict{Subject: subj, Lang: lane.Lang, Sources: ids}
			into[key] = c
		}
		c.Dates = append(c.Dates, d)
	}
}

// countFunc is how many of s f reports.
func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}
