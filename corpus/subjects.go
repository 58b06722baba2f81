package corpus

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/suggest"
)

// Subject is what a corpus says about one subject: the sources about it,
// their languages, and the dates on which at least one of them applies.
type Subject struct {
	Name string `json:"subject"`
	// Sources are the source_ids about the subject, sorted, each once.
	Sources []string `json:"sources"`
	// Langs are the languages of those sources, sorted; AnyLang is set
	// when a source has no lang (it serves every language).
	Langs   []string `json:"langs"`
	AnyLang bool     `json:"any_lang,omitempty"`
	// Coverage is the union of the sources' validity intervals, merged
	// where they meet or overlap, in date order. A supplement
	// (role: supplement) covers no date, as lint's coverage_gap rule
	// counts it: a subject of supplements alone has none.
	Coverage []Span `json:"coverage"`
}

// Span is a half-open interval of dates [From, Until); a zero Until is
// open-ended.
type Span struct {
	From  Date `json:"from"`
	Until Date `json:"until,omitzero"`
}

// String writes the span as select writes a validity: [from, until) or
// [from, open).
func (s Span) String() string {
	until := "open"
	if !s.Until.IsZero() {
		until = s.Until.String()
	}
	return "[" + s.From.String() + ", " + until + ")"
}

// Contains reports whether d lies in the span.
func (s Span) Contains(d Date) bool {
	return !d.Before(s.From) && (s.Until.IsZero() || d.Before(s.Until))
}

// Cuts returns the dates on which a span of xs begins or ends, each once,
// in date order; an open end adds none. Between two neighbouring cuts (and
// after the last) the same spans hold.
func Cuts[T interface{ Validity() Span }](xs []T) []Date {
	var cuts []Date
	for _, x := range xs {
		v := x.Validity()
		cuts = append(cuts, v.From)
		if !v.Until.IsZero() {
			cuts = append(cuts, v.Until)
		}
	}
	slices.SortFunc(cuts, Date.Compare)
	return slices.Compact(cuts)
}

// Subjects lists every subject of the corpus in CompareSubjects order,
// which keeps the subjects under a parent together.
func (c *Corpus) Subjects() []Subject {
	by := map[string][]*Source{}
	for _, s := range c.Sources {
		for _, sub := range s.Subjects {
			by[sub] = append(by[sub], s)
		}
	}
	out := make([]Subject, 0, len(by))
	for name, srcs := range by {
		sub := Subject{Name: name, Sources: []string{}, Langs: []string{}}
		spans := make([]Span, 0, len(srcs))
		for _, s := range srcs {
			sub.Sources = append(sub.Sources, s.ID)
			if s.Lang == "" {
				sub.AnyLang = true
			} else {
				sub.Langs = append(sub.Langs, s.Lang)
			}
			if !s.IsSupplement() { // it applies with the others, covering no date itself
				spans = append(spans, s.Validity())
			}
		}
		slices.Sort(sub.Sources)
		sub.Sources = slices.Compact(sub.Sources)
		slices.Sort(sub.Langs)
		sub.Langs = slices.Compact(sub.Langs)
		sub.Coverage = mergeSpans(spans)
		out = append(out, sub)
	}
	slices.SortFunc(out, func(a, b Subject) int { return CompareSubjects(a.Name, b.Name) })
	return out
}

// CompareSubjects orders subjects segment by segment, each bytewise, so
// that the subjects under a parent stay together (travel/lodging/beijing
// before travel/lodging-local, which bytewise order puts between
// travel/lodging and travel/lodging/beijing). Subjects of one segment
// sort bytewise.
func CompareSubjects(a, b string) int {
	for {
		x, restA, moreA := strings.Cut(a, SubjectSep)
		y, restB, moreB := strings.Cut(b, SubjectSep)
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1
		case !moreB:
			return 1
		}
		a, b = restA, restB
	}
}

// mergeSpans returns the union of spans, merged where they meet or
// overlap, in date order.
func mergeSpans(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return a.From.Compare(b.From) })
	out := make([]Span, 0, len(spans)) // [] in JSON when none
	for _, s := range spans {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.Until.IsZero() {
				continue // open-ended: covers everything after
			}
			if !last.Until.Before(s.From) { // meets or overlaps
				if s.Until.IsZero() || last.Until.Before(s.Until) {
					last.Until = s.Until
				}
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// SubjectSep joins the segments of a hierarchical subject, as in
// travel/lodging/beijing.
const SubjectSep = "/"

// ValidSubject reports whether s is a well-formed subject: one or more
// segments joined by '/', each like a source_id (lowercase ASCII letters,
// digits, '.', '_' or '-') and none of them "." or "..". A subject is
// compared byte for byte, whole: a capital letter, a blank, a comma
// ("lodging, rail" written without brackets), an empty segment ("a//b",
// "/a", "a/") or a dot segment ("a/./b", which reads as a/b but is not it)
// would make a subject no question ever asks for.
func ValidSubject(s string) bool {
	for seg := range strings.SplitSeq(s, SubjectSep) {
		if !ValidSourceID(seg) || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// FixSubject returns the valid subject s most likely means (lowercased,
// blanks trimmed around it and its segments, '\' read as '/', empty
// segments dropped), or "" when there is none or s is already valid.
func FixSubject(s string) string {
	if ValidSubject(s) {
		return ""
	}
	var segs []string
	for seg := range strings.SplitSeq(strings.ReplaceAll(strings.ToLower(s), `\`, SubjectSep), SubjectSep) {
		if seg = strings.TrimSpace(seg); seg != "" {
			segs = append(segs, seg)
		}
	}
	if fixed := strings.Join(segs, SubjectSep); ValidSubject(fixed) {
		return fixed
	}
	return ""
}

// SubjectsUnder returns the subjects of known (sorted) that lie under
// prefix, the ones that begin with prefix and a '/', in order: a
// question for travel/lodging names no subject, but these are what it
// was probably after.
func SubjectsUnder(prefix string, known []string) []string {
	p := strings.TrimSuffix(prefix, SubjectSep) + SubjectSep
	if p == SubjectSep {
		return nil
	}
	i, _ := slices.BinarySearch(known, p)
	j := i
	for j < len(known) && strings.HasPrefix(known[j], p) {
		j++
	}
	return known[i:j:j]
}

// RelatedSubjects returns the subjects of known (sorted) that s, a subject
// no source has, stands for in a hierarchy, in order: those under it when
// it names a parent (travel/lodging for travel/lodging/beijing), else those
// whose last segments it names (beijing or lodging/beijing for
// travel/lodging/beijing). A spelling mistake is suggest.Closest's
// business, not this.
func RelatedSubjects(s string, known []string) []string {
	return NewSubjectHints(known).related(s)
}

// MeantSubjects says what s, a subject none of known (sorted) is, most
// likely means: the subjects it stands for in a hierarchy
// (RelatedSubjects), or else the closest by spelling; each looked up as
// s is written and, failing that, as FixSubject writes it (Travel//Rail
// is travel/rail). Both are empty when nothing is close. To ask about
// many subjects with the same known ones, make SubjectHints once.
func MeantSubjects(s string, known []string) (related []string, closest string) {
	return NewSubjectHints(known).Meant(s)
}

// SubjectHints answers MeantSubjects for one list of known subjects,
// prepared once: their tails (the last segments of each, after a '/')
// sorted for a binary search and their spellings indexed
// (suggest.Index), so that a question about a subject no source has
// costs a few lookups, not a pass over every subject with an edit
// distance each, which a client could make every request pay. It is
// immutable and safe for concurrent use.
type SubjectHints struct {
	known    []string
	tails    []subjectTail // sorted by tail, then subject
	spelling *suggest.Index
}

// subjectTail is a subject's last segments, after one of its '/'.
type subjectTail struct{ tail, subject string }

// NewSubjectHints prepares known, sorted, for MeantSubjects.
func NewSubjectHints(known []string) *SubjectHints {
	h := &SubjectHints{known: known, spelling: suggest.NewIndex(known)}
	for _, k := range known {
		for i := range len(k) {
			if k[i] == SubjectSep[0] {
				h.tails = append(h.tails, subjectTail{k[i+1:], k})
			}
		}
	}
	slices.SortFunc(h.tails, func(a, b subjectTail) int {
		return cmp.Or(strings.Compare(a.tail, b.tail), strings.Compare(a.subject, b.subject))
	})
	return h
}

// Known returns the known subjects, sorted.
func (h *SubjectHints) Known() []string { return h.known }

// Meant is MeantSubjects(s, known) for the hints' known subjects.
func (h *SubjectHints) Meant(s string) (related []string, closest string) {
	related, closest = h.related(s), h.spelling.Closest(s)
	if fixed := FixSubject(s); fixed != "" && len(related) == 0 {
		if _, ok := slices.BinarySearch(h.known, fixed); ok {
			return nil, fixed
		}
		if related = h.related(fixed); len(related) == 0 && closest == "" {
			closest = h.spelling.Closest(fixed)
		}
	}
	return related, closest
}

// related is RelatedSubjects(s, known).
func (h *SubjectHints) related(s string) []string {
	if under := SubjectsUnder(s, h.known); len(under) > 0 {
		return under
	}
	if !ValidSubject(s) {
		return nil
	}
	i, _ := slices.BinarySearchFunc(h.tails, s, func(t subjectTail, s string) int { return strings.Compare(t.tail, s) })
	var out []string
	for ; i < len(h.tails) && h.tails[i].tail == s; i++ {
		out = append(out, h.tails[i].subject)
	}
	return out
}
