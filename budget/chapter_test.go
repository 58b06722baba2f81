package budget_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/provenance"
)

// TestChapterArithmetic pins the worked numbers of the KA-2 chapter
// (SPEC.md, "Budget accounting"), with part sizes in the positions of a
// teaching tokenizer, through the same Tally that Account uses: W 128,
// R 24, I 20, E 12, Q 8, H 8 leave B = 56 for evidence.
func TestChapterArithmetic(t *testing.T) {
	const current, old, note = 40, 36, 18 // the current policy, the old one, an unrelated note
	limits := budget.Limits{Capacity: 128, Reserve: 24}
	fixed := func(instruction int) []budget.Part {
		return []budget.Part{
			{Kind: provenance.KindInstruction, Cost: instruction},
			{Kind: provenance.KindExample, Cost: 12},
			{Kind: provenance.KindQuestion, Cost: 8},
		}
	}
	evidence := func(costs ...int) []budget.Part {
		var ps []budget.Part
		for _, c := range costs {
			ps = append(ps, budget.Part{Kind: provenance.KindEvidence, Cost: c})
		}
		return ps
	}
	tests := []struct {
		name        string
		instruction int
		evidence    []int
		wantB       int
		wantLeft    int // negative: the shortfall
	}{
		{"Example 40.2: nothing yet", 20, nil, 56, 56},
		{"Example 40.2: the current policy leaves 16", 20, []int{current}, 56, 16},
		{"Example 40.2: both versions exceed by 20", 20, []int{current, old}, 56, -20},
		{"Example 40.2: the 18-unit note does not fit beside the current policy", 20, []int{current, note}, 56, -2},
		{"exercise 2: I 30 leaves B 46", 30, nil, 46, 46},
		{"exercise 2: the current policy fits with 6 left", 30, []int{current}, 46, 6},
		{"exercise 2: both still exceed, by 30", 30, []int{current, old}, 46, -30},
		{"fixed parts alone over the limit: B is negative", 100, nil, -24, -24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := append(fixed(tt.instruction), evidence(tt.evidence...)...)
			r := budget.Tally("teaching", parts, 8, limits) // H = 8, no wrapper
			if r.EvidenceBudget != tt.wantB || r.Left != tt.wantLeft {
				t.Errorf("Tally() B = %d, left = %d; want B = %d, left = %d", r.EvidenceBudget, r.Left, tt.wantB, tt.wantLeft)
			}
			if r.Fits() != (tt.wantLeft >= 0) || r.Shortfall() != max(0, -tt.wantLeft) {
				t.Errorf("Fits() = %v, Shortfall() = %d for left %d", r.Fits(), r.Shortfall(), tt.wantLeft)
			}
			if sum := sumParts(r); sum != r.Total || r.Total != r.Fixed+r.EvidenceCost {
				t.Errorf("parts add up to %d, total %d = fixed %d + evidence %d", sum, r.Total, r.Fixed, r.EvidenceCost)
			}
			if !r.Fits() {
				err := error(&budget.OverError{Report: r})
				if !errors.Is(err, budget.ErrOverBudget) || !strings.Contains(err.Error(), "over budget by ") {
					t.Errorf("OverError = %v", err)
				}
			}
		})
	}
}

// TestAccountIsTally: Account counts the text and attributes it to spans,
// then tallies exactly as Tally does for the same part sizes, so the
// chapter's numbers test the path real contracts take.
func TestAccountIsTally(t *testing.T) {
	text := `{"i":"instruction","e":"ex","q":"question?","ev":"evidence text"}`
	span := func(k provenance.Kind, s string) budget.Span {
		i := strings.Index(text, s)
		return budget.Span{Kind: k, Start: i, End: i + len(s)}
	}
	spans := []budget.Span{span(provenance.KindInstruction, `"instruction"`), span(provenance.KindExample, `"ex"`),
		span(provenance.KindQuestion, `"question?"`), span(provenance.KindEvidence, `"evidence text"`)}
	limits := budget.Limits{Capacity: 100, Reserve: 10, Wrapper: 3}
	got := budget.Account(budget.Codepoint, text, spans, limits)
	var parts []budget.Part
	outside := len(text)
	for _, s := range spans {
		parts = append(parts, budget.Part{Kind: s.Kind, Cost: s.End - s.Start})
		outside -= s.End - s.Start
	}
	want := budget.Tally("codepoint", parts, outside, limits)
	if got.Total != want.Total || got.EvidenceBudget != want.EvidenceBudget || got.Left != want.Left || len(got.Parts) != len(want.Parts) {
		t.Errorf("Account() = %+v, Tally() = %+v", got, want)
	}
	if got.Total != len(text)+3 {
		t.Errorf("Account() total = %d, want %d", got.Total, len(text)+3)
	}
}

func sumParts(r budget.Report) int {
	n := 0
	for _, p := range r.Parts {
		n += p.Cost
	}
	return n
}
