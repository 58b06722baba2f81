package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/selector"
)

// The codes of the problems Build reports.
const (
	// CodeUnknownLang: the language asked for is none of the corpus's.
	CodeUnknownLang diag.Code = "unknown_lang"
	// CodeEmptyAxis: the dates asked for leave no day to draw.
	CodeEmptyAxis diag.Code = "empty_axis"
)

// Options choose what a timeline shows.
type Options struct {
	// Subjects are the subjects to show; empty means every subject.
	Subjects []string
	// Lang keeps the sources in this language and those without one;
	// empty means every language.
	Lang string
	// From and Until bound the axis, [From, Until); a zero bound is fitted
	// to the sources (and to Today).
	From, Until corpus.Date
	// Today draws a line at this date; zero draws none.
	Today corpus.Date
	// Selected sources are highlighted (matched by source_id and lang),
	// e.g. those a question selects.
	Selected []*corpus.Source
}

// Model is a laid-out timeline: the axis and the lanes. It is a plain
// value; every renderer draws the same one.
type Model struct {
	// From and Until are the axis, [From, Until).
	From, Until corpus.Date
	// Today is the date of the today line, or zero. It may lie outside the
	// axis when From or Until were given.
	Today corpus.Date
	// Lang is the language asked for, or "" for every language.
	Lang string
	// Lanes are sorted by subject, then lang.
	Lanes []Lane
}

// Lane is one subject in one language.
type Lane struct {
	Subject string
	// Lang is the lane's language; "" when no source of the subject sets
	// one. Sources without lang join every language's lane, as the
	// selector selects them for every language.
	Lang string
	// Rows is how many rows the bars need so that no two bars of a row
	// overlap; at least 1.
	Rows int
	// Bars are the sources that apply somewhere on the axis, sorted by
	// valid_from, source_id, lang.
	Bars []Bar
	// Overlaps are the dates on which two or more of the lane's sources
	// apply, sorted by date; Gaps the dates between two sources that none
	// covers. Both are computed over the whole intervals, not only the
	// axis, and may reach beyond it.
	Overlaps []Overlap
	Gaps     []Span
	// Links are the supersedes links between the lane's bars.
	Links []Link
}

// Name is the lane's label, e.g. "lodging en".
func (l *Lane) Name() string {
	if l.Lang == "" {
		return l.Subject
	}
	return l.Subject + " " + l.Lang
}

// Bar is one source in a lane.
type Bar struct {
	SourceID   string
	Version    string
	Unit       string
	Lang       string
	Path       string
	Supersedes []string
	// ValidFrom and ValidUntil are the source's interval as written;
	// ValidUntil is zero for an open-ended source.
	ValidFrom, ValidUntil corpus.Date
	// Start and End are the part drawn, [Start, End): the interval cut to
	// the axis.
	Start, End corpus.Date
	// Row is the bar's row in its lane, from 0.
	Row int
	// Open: the source is open-ended, and the bar runs to the right edge.
	Open bool
	// ClippedStart and ClippedEnd: the interval begins before the axis,
	// or (for a closed interval) ends after it.
	ClippedStart, ClippedEnd bool
	// Overlap: the source shares dates with another of the lane; Conflict:
	// with one it is not linked to by supersedes, neither of them a
	// supplement (the rule select and lint use).
	Overlap, Conflict bool
	// Supplement: the source declares role: supplement; it applies
	// beside the others of its subjects by design.
	Supplement bool
	// Selected: one of Options.Selected.
	Selected bool
}

// Label is the text a bar carries: source_id, version and unit.
func (b *Bar) Label() string {
	s := b.SourceID + " " + b.Version
	if b.Unit != "" {
		s += " · " + b.Unit
	}
	return s
}

// Interval formats the source's interval as every ka2 output writes one,
// half-open: "[2025-01-01, 2026-01-01)" or "[2026-01-01, open)".
func (b *Bar) Interval() string { return interval(b.ValidFrom, b.ValidUntil) }

func interval(from, until corpus.Date) string {
	return corpus.Span{From: from, Until: until}.String()
}

// Overlap is a run of dates on which the same two or more sources of a
// lane all apply.
type Overlap struct {
	// From and Until are the dates, [From, Until); Until is zero when the
	// overlap never ends.
	From, Until corpus.Date
	// Bars are the indexes of the sources in Lane.Bars, in order.
	Bars []int
	// Conflict: some pair of them is not linked by supersedes and
	// neither is a supplement. An overlap of a source and the one it
	// supersedes is still selected twice, but the author said which
	// replaces which.
	Conflict bool
	// Supplement: all of them but one at most are supplements, which
	// apply beside the others by design: the overlap is no problem.
	Supplement bool
}

// Interval formats the overlap's dates.
func (o Overlap) Interval() string { return interval(o.From, o.Until) }

// Span is a run of dates, [From, Until).
type Span struct {
	From, Until corpus.Date
}

// Interval formats the span's dates.
func (s Span) Interval() string { return interval(s.From, s.Until) }

// Link says that the bar From supersedes the bar To (indexes in
// Lane.Bars).
type Link struct {
	From, To int
}

// Limits of the axis: the dates a corpus can hold.
var (
	firstDate = corpus.MustDate(1, time.January, 1)
	lastDate  = corpus.MustDate(9999, time.December, 31)
)

// Build lays out the timeline of the sources of ix's corpus that opts
// choose. A subject no source is about is a *selector.UnknownSubjectError;
// a language no source has, or an empty axis (From not before Until), is
// a *diag.Diagnostic naming the setting.
func Build(ix *selector.Index, opts Options) (*Model, error) {
	known := ix.Subjects()
	subjects := slices.Compact(slices.Sorted(slices.Values(opts.Subjects)))
	for _, s := range subjects {
		if _, ok := slices.BinarySearch(known, s); !ok {
			// The selector words it, with a suggestion.
			_, err := ix.Select(selector.Query{Subjects: []string{s}, Dates: []corpus.Date{firstDate}})
			if err == nil {
				err = &selector.UnknownSubjectError{Subject: s}
			}
			return nil, err
		}
	}
	if len(subjects) == 0 {
		subjects = known
	}
	c := ix.Corpus()
	if opts.Lang != "" {
		var langs []string
		found := false
		for _, s := range c.Sources {
			if s.Lang == opts.Lang {
				found = true
				break
			}
			if s.Lang != "" && !slices.Contains(langs, s.Lang) {
				langs = append(langs, s.Lang)
			}
		}
		if !found {
			slices.Sort(langs)
			hint := "name one of the corpus's languages with {lang}"
			if len(langs) > 0 {
				hint += ": " + strings.Join(langs, ", ")
			}
			return nil, &diag.Diagnostic{Code: CodeUnknownLang, Message: fmt.Sprintf("no source of the corpus is in lang %q", opts.Lang), Hint: diag.Set(hint)}
		}
	}
	if !opts.From.IsZero() && !opts.Until.IsZero() && !opts.From.Before(opts.Until) {
		return nil, &diag.Diagnostic{Code: CodeEmptyAxis, Message: fmt.Sprintf("the timeline %s holds no date", corpus.Span{From: opts.From, Until: opts.Until}),
			Hint: diag.Set("set {from} before {until}: until is the first date not shown")}
	}

	m := &Model{Today: opts.Today, Lang: opts.Lang}
	var all []laneSources
	for _, subj := range subjects {
		all = append(all, groups(c, subj, opts.Lang)...)
	}
	m.From, m.Until = window(all, opts)
	if !m.From.Before(m.Until) {
		return nil, &diag.Diagnostic{Code: CodeEmptyAxis, Message: fmt.Sprintf("the timeline from %s holds no date: the last date ka2 knows is %s", m.From, lastDate),
			Hint: diag.Set("set {from} to an earlier date")}
	}
	selected := map[[2]string]bool{}
	for _, s := range opts.Selected {
		selected[[2]string{s.ID, s.Lang}] = true
	}
	for _, g := range all {
		m.Lanes = append(m.Lanes, layLane(g, m.From, m.Until, selected))
	}
	return m, nil
}

// laneSources are the sources of one lane, before layout.
type laneSources struct {
	subject, lang string
	sources       []*corpus.Source
}

// groups splits the sources about subj into lanes, one per language
// (those without lang join each), as the selector and the linter group
// them.
func groups(c *corpus.Corpus, subj, lang string) []laneSources {
	var ss []*corpus.Source
	for _, s := range c.Sources {
		if !s.HasSubject(subj) || (lang != "" && s.Lang != "" && s.Lang != lang) {
			continue
		}
		ss = append(ss, s)
	}
	slices.SortFunc(ss, corpus.CompareOldestFirst)
	var out []laneSources
	for _, l := range corpus.Lanes(ss) {
		out = append(out, laneSources{subject: subj, lang: l.Lang, sources: l.Sources})
	}
	return out
}

// window fits the axis to the sources and today: from the first
// valid_from (rounded down to the month) to past the last date any
// source or today names, with room for open-ended bars to show that they
// go on (rounded up to the month). A bound given in opts is kept.
func window(all []laneSources, opts Options) (from, until corpus.Date) {
	var lo, hi corpus.Date
	widen := func(d corpus.Date) {
		if d.IsZero() {
			return
		}
		if lo.IsZero() || d.Before(lo) {
			lo = d
		}
		if hi.IsZero() || hi.Before(d) {
			hi = d
		}
	}
	for _, g := range all {
		for _, s := range g.sources {
			widen(s.ValidFrom)
			widen(s.ValidUntil)
		}
	}
	widen(opts.Today)
	if lo.IsZero() { // nothing at all: a month around the bounds given, or a year from 2000
		lo, hi = corpus.MustDate(2000, time.January, 1), corpus.MustDate(2000, time.December, 1)
		if !opts.From.IsZero() {
			lo, hi = opts.From, opts.From
		} else if !opts.Until.IsZero() {
			lo, hi = opts.Until.AddDays(-1), opts.Until.AddDays(-1)
		}
	}
	from = opts.From
	if from.IsZero() {
		from = monthStart(lo)
		if !opts.Until.IsZero() && !from.Before(opts.Until) {
			from = monthStart(opts.Until.AddDays(-1))
		}
	}
	until = opts.Until
	if until.IsZero() {
		if hi.Before(from) {
			hi = from
		}
		pad := max(days(from, hi)/10, 31)
		until = nextMonth(addDays(hi, pad))
	}
	return from, until
}

// layLane lays out one lane within [from, until).
func layLane(g laneSources, from, until corpus.Date, selected map[[2]string]bool) Lane {
	l := Lane{Subject: g.subject, Lang: g.lang, Rows: 1, Bars: []Bar{}, Overlaps: []Overlap{}, Gaps: []Span{}, Links: []Link{}}
	for _, s := range g.sources {
		if !s.ValidFrom.Before(until) || (!s.ValidUntil.IsZero() && !from.Before(s.ValidUntil)) {
			continue // wholly outside the axis
		}
		b := Bar{SourceID: s.ID, Version: s.Version, Unit: s.Unit, Lang: s.Lang, Path: s.Path,
			Supersedes: slices.Clone(s.Supersedes), ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil,
			Start: s.ValidFrom, End: s.ValidUntil, Open: s.ValidUntil.IsZero(), Selected: selected[[2]string{s.ID, s.Lang}],
			Supplement: s.IsSupplement()}
		if b.Start.Before(from) {
			b.Start, b.ClippedStart = from, true
		}
		if b.Open || until.Before(b.End) {
			b.ClippedEnd = !b.Open
			b.End = until
		}
		l.Bars = append(l.Bars, b)
	}
	// Rows: each bar goes into the first row whose last bar ends by its
	// start (bars are sorted by start).
	var rowEnd []corpus.Date
	for i := range l.Bars {
		b := &l.Bars[i]
		b.Row = -1
		for r, end := range rowEnd {
			if !b.Start.Before(end) {
				b.Row, rowEnd[r] = r, b.End
				break
			}
		}
		if b.Row < 0 {
			b.Row = len(rowEnd)
			rowEnd = append(rowEnd, b.End)
		}
	}
	l.Rows = max(1, len(rowEnd))
	l.Overlaps, l.Gaps = sweep(l.Bars)
	for _, o := range l.Overlaps {
		for _, i := range o.Bars {
			l.Bars[i].Overlap = true
		}
		for _, p := range conflictPairs(l.Bars, o.Bars) {
			l.Bars[p[0]].Conflict, l.Bars[p[1]].Conflict = true, true
		}
	}
	for i, b := range l.Bars {
		for _, id := range b.Supersedes {
			for j, a := range l.Bars {
				if a.SourceID == id && i != j {
					l.Links = append(l.Links, Link{From: i, To: j})
				}
			}
		}
	}
	slices.SortFunc(l.Links, func(a, b Link) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	l.Links = slices.Compact(l.Links)
	return l
}

// conflictPairs returns the pairs of idx (indexes in bars) that conflict:
// neither supersedes the other, and neither is a supplement.
func conflictPairs(bars []Bar, idx []int) [][2]int {
	var out [][2]int
	for x, i := range idx {
		for _, j := range idx[x+1:] {
			a, b := bars[i], bars[j]
			if a.Supplement || b.Supplement || slices.Contains(a.Supersedes, b.SourceID) || slices.Contains(b.Supersedes, a.SourceID) {
				continue
			}
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// sweep walks the bars' whole intervals in date order and returns the
// runs of dates on which two or more apply (overlaps) and the runs
// between two intervals that none covers (gaps). A supplement answers no
// date on its own, so it covers none, as lint's coverage_gap says.
func sweep(bars []Bar) ([]Overlap, []Span) {
	overlaps, gaps := []Overlap{}, []Span{}
	points := corpus.Cuts(bars)
	first, lastStart := coverBounds(bars)
	for k, p := range points {
		var next corpus.Date // zero: for ever
		if k+1 < len(points) {
			next = points[k+1]
		}
		var here []int
		covered := false
		for i, b := range bars {
			if b.Validity().Contains(p) {
				here = append(here, i)
				covered = covered || !b.Supplement
			}
		}
		switch {
		case !covered && !next.IsZero() && !first.IsZero() && !p.Before(first) && !lastStart.Before(next):
			if n := len(gaps); n > 0 && gaps[n-1].Until == p {
				gaps[n-1].Until = next
			} else {
				gaps = append(gaps, Span{From: p, Until: next})
			}
		case len(here) >= 2:
			if n := len(overlaps); n > 0 && overlaps[n-1].Until == p && slices.Equal(overlaps[n-1].Bars, here) {
				overlaps[n-1].Until = next
				continue
			}
			o := Overlap{From: p, Until: next, Bars: here, Conflict: len(conflictPairs(bars, here)) > 0}
			regular := 0
			for _, i := range here {
				if !bars[i].Supplement {
					regular++
				}
			}
			o.Supplement = regular <= 1
			overlaps = append(overlaps, o)
		}
	}
	return overlaps, gaps
}

// coverBounds returns the first date a bar other than a supplement
// applies on and the last date one begins on (zero when there is none): a
// run of dates no such bar covers is a gap only between the two.
func coverBounds(bars []Bar) (first, lastStart corpus.Date) {
	for _, b := range bars {
		if b.Supplement {
			continue
		}
		if first.IsZero() || b.ValidFrom.Before(first) {
			first = b.ValidFrom
		}
		if lastStart.Before(b.ValidFrom) {
			lastStart = b.ValidFrom
		}
	}
	return first, lastStart
}

// Validity is the bar's source's interval as written, [ValidFrom,
// ValidUntil).
func (b Bar) Validity() corpus.Span { return corpus.Span{From: b.ValidFrom, Until: b.ValidUntil} }

// Pos is where d lies on the axis, from 0 (From) to 1 (Until), clamped.
func (m *Model) Pos(d corpus.Date) float64 {
	n := days(m.From, m.Until)
	if n <= 0 {
		return 0
	}
	return min(1, max(0, float64(days(m.From, d))/float64(n)))
}

// days is the number of days from a to b (negative when b is before a).
func days(a, b corpus.Date) int {
	return int(b.Time().Sub(a.Time()).Hours() / 24)
}

// addDays is d.AddDays(n), kept within the dates a corpus can hold.
func addDays(d corpus.Date, n int) corpus.Date {
	if days(d, lastDate) < n {
		return lastDate
	}
	return d.AddDays(n)
}

func monthStart(d corpus.Date) corpus.Date {
	t := d.Time()
	return corpus.MustDate(t.Year(), t.Month(), 1)
}

// nextMonth is the first day of the month after d's, or lastDate.
func nextMonth(d corpus.Date) corpus.Date {
	t := d.Time()
	if t.Year() == 9999 && t.Month() == time.December {
		return lastDate
	}
	n := time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	return corpus.MustDate(n.Year(), n.Month(), 1)
}
