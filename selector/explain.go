package selector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
)

// Reason is why a source was selected or excluded. Reasons are stable
// machine names, printed as they are in JSON.
type Reason string

// The reasons Explain gives, checked in this order.
const (
	ReasonSelected        Reason = "selected"
	ReasonSubjectMismatch Reason = "subject_mismatch"
	ReasonOtherLanguage   Reason = "other_language"
	ReasonBeforeFrom      Reason = "before_valid_from"
	ReasonOnOrAfterUntil  Reason = "on_or_after_valid_until"
	// ReasonBetweenDates: the source applies only between the asked dates.
	ReasonBetweenDates Reason = "between_asked_dates"
)

// Decision is what the query decided for one source, and why.
type Decision struct {
	Source *corpus.Source
	Reason Reason
	// Dates are the asked dates on which the source applies (selected only).
	Dates []corpus.Date
}

// Selected reports whether the source was selected.
func (d Decision) Selected() bool { return d.Reason == ReasonSelected }

// Explain says in words why the source was selected or excluded.
func (d Decision) Explain() string {
	s := d.Source
	switch d.Reason {
	case ReasonSelected:
		return "selected: applies on " + joinDates(d.Dates)
	case ReasonSubjectMismatch:
		return "excluded: subject mismatch (about " + strings.Join(s.Subjects, ", ") + ")"
	case ReasonOtherLanguage:
		return "excluded: other language (" + s.Lang + ")"
	case ReasonBeforeFrom:
		return "excluded: before valid_from " + s.ValidFrom.String()
	case ReasonOnOrAfterUntil:
		return "excluded: on or after valid_until " + s.ValidUntil.String()
	case ReasonBetweenDates:
		return fmt.Sprintf("excluded: applies only between the asked dates (%s)", Interval(s))
	}
	return string(d.Reason)
}

// Interval formats a source's validity as "[FROM, UNTIL)" or "[FROM, open)".
func Interval(s *corpus.Source) string {
	return interval(s.ValidFrom.String(), s.ValidUntil.String())
}

func joinDates(ds []corpus.Date) string { return strings.Join(dateStrings(ds), ", ") }

// Explain decides every source of the corpus for q, in contract order (the
// selected ones first, as Select orders them; then the excluded ones in the
// same order). It scans the whole corpus, so it is for reports, not for the
// hot path: Select is the indexed query.
func (ix *Index) Explain(q Query) ([]Decision, error) {
	q, err := q.normalize()
	if err != nil {
		return nil, err
	}
	if err := ix.checkSubjects(q); err != nil {
		return nil, err
	}
	out := make([]Decision, 0, len(ix.corpus.Sources))
	for _, s := range ix.corpus.Sources {
		out = append(out, decide(s, q))
	}
	slices.SortStableFunc(out, func(a, b Decision) int {
		if a.Selected() != b.Selected() {
			if a.Selected() {
				return -1
			}
			return 1
		}
		return Compare(a.Source, b.Source)
	})
	return out, nil
}

// Decide decides one source for q, as Explain does for every source.
func Decide(s *corpus.Source, q Query) Decision { return decide(s, q) }

func decide(s *corpus.Source, q Query) Decision {
	if !slices.ContainsFunc(q.Subjects, s.HasSubject) {
		return Decision{Source: s, Reason: ReasonSubjectMismatch}
	}
	if !langMatches(s.Lang, q.Lang) {
		return Decision{Source: s, Reason: ReasonOtherLanguage}
	}
	var on []corpus.Date
	before, after := 0, 0
	for _, d := range q.Dates {
		switch {
		case d.Before(s.ValidFrom):
			before++
		case !s.ValidUntil.IsZero() && !d.Before(s.ValidUntil):
			after++
		default:
			on = append(on, d)
		}
	}
	switch {
	case len(on) > 0:
		return Decision{Source: s, Reason: ReasonSelected, Dates: on}
	case after == 0:
		return Decision{Source: s, Reason: ReasonBeforeFrom}
	case before == 0:
		return Decision{Source: s, Reason: ReasonOnOrAfterUntil}
	}
	return Decision{Source: s, Reason: ReasonBetweenDates}
}
