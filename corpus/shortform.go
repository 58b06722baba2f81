package corpus

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ka2/ka2/internal/diag"
)

// CodeShortLosesScope is the code of the problem a short form reports when
// a source's cite ranges lose its scope or a unit (see Source.ShortLoss);
// it is also the ID of the lint rule that finds it before a build does.
const CodeShortLosesScope diag.Code = "short_form_loses_scope"

// ShortLoss is what a source's cite ranges leave out that its body states
// and its front matter does not carry. A short form quotes only the cite
// ranges; each record keeps the source's validity and declared unit, so
// what it can lose is where the text applies and the unit of an amount.
type ShortLoss struct {
	// ScopeLines are the body lines (1-based) that state the scope, none of
	// them cited; empty when the scope is kept.
	ScopeLines []int
	// AmountLine is the first cited body line with an amount and no unit,
	// Amount that amount, and UnitLines the body lines that name a unit,
	// none of them cited; AmountLine is 0 when no unit is lost.
	AmountLine int
	Amount     string
	UnitLines  []int
	// Fix is the cite ranges with the first of ScopeLines and of UnitLines
	// added: the smallest change that keeps both.
	Fix []Range
}

// ShortLoss reports what the source's cite ranges lose, or nil when its
// short form keeps the scope and the unit of every amount it quotes, or it
// has no cite ranges.
//
// The scope is lost when the body has a line that StatesScope and the cite
// ranges keep none of those lines nor a Markdown heading ("# …"). A body
// with no such line loses nothing by shortening: it never stated its scope,
// which lint's missing_scope_or_date reports.
//
// A unit is lost when the front matter has no unit, a cited line states an
// amount with no unit (AmountWithoutUnit), no cited line names a unit
// (NamesUnit), and a line the cite ranges leave out does. A body that names
// no unit anywhere loses none by shortening: lint's amount_without_unit
// reports it.
func (s *Source) ShortLoss() *ShortLoss {
	if len(s.Cite) == 0 || s.NumLines() == 0 {
		return nil
	}
	cited := func(n int) bool {
		return slices.ContainsFunc(s.Cite, func(r Range) bool { return r.Start <= n && n <= r.End })
	}
	var l ShortLoss
	var statesScope, keepsScope bool
	var scope []int
	for n, line := range s.Lines() {
		st := StatesScope(line)
		statesScope = statesScope || st
		if st || strings.HasPrefix(strings.TrimSpace(line), "#") {
			scope = append(scope, n)
			keepsScope = keepsScope || cited(n)
		}
	}
	if statesScope && !keepsScope {
		l.ScopeLines = scope
	}
	if strings.TrimSpace(s.Unit) == "" {
		l.AmountLine, l.Amount, l.UnitLines = s.lostUnit(cited)
	}
	if len(l.ScopeLines) == 0 && l.AmountLine == 0 {
		return nil
	}
	l.Fix = s.Cite
	if len(l.ScopeLines) > 0 {
		l.Fix = addLine(l.Fix, l.ScopeLines[0])
	}
	if l.AmountLine > 0 {
		l.Fix = addLine(l.Fix, l.UnitLines[0])
	}
	return &l
}

// lostUnit finds the first cited line with an amount and no unit, when no
// cited line names a unit and an uncited one does.
func (s *Source) lostUnit(cited func(int) bool) (line int, amount string, units []int) {
	for n, text := range s.Lines() {
		if !cited(n) {
			if NamesUnit(text) {
				units = append(units, n)
			}
			continue
		}
		if NamesUnit(text) {
			return 0, "", nil
		}
		if a, col := AmountWithoutUnit(text); col > 0 && line == 0 {
			line, amount = n, a
		}
	}
	if line == 0 || len(units) == 0 {
		return 0, "", nil
	}
	return line, amount, units
}

// What says what the cited lines lack, e.g. "the scope, stated in body
// line 1, and the unit of the amount 750 in body line 3, named in body line 2".
func (l *ShortLoss) What() string {
	var parts []string
	if len(l.ScopeLines) > 0 {
		parts = append(parts, "the scope, stated in body "+lineList(l.ScopeLines))
	}
	if l.AmountLine > 0 {
		parts = append(parts, "the unit of the amount "+l.Amount+" in body line "+strconv.Itoa(l.AmountLine)+", named in body "+lineList(l.UnitLines))
	}
	return strings.Join(parts, ", and ")
}

// lineList writes "line 3" or "lines 1, 4".
func lineList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return "line " + s[0]
	}
	return "lines " + strings.Join(s, ", ")
}

// CiteList writes ranges as the front matter's cite list, e.g.
// ["1", "3-4"].
func CiteList(ranges []Range) string {
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		if r.Start == r.End {
			parts[i] = strconv.Quote(strconv.Itoa(r.Start))
		} else {
			parts[i] = strconv.Quote(r.String())
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// addLine returns ranges with line n added, sorted, touching ranges merged.
func addLine(ranges []Range, n int) []Range {
	all := append(slices.Clone(ranges), Range{Start: n, End: n})
	slices.SortFunc(all, func(a, b Range) int { return a.Start - b.Start })
	out := all[:1]
	for _, r := range all[1:] {
		if last := &out[len(out)-1]; r.Start <= last.End+1 {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}
