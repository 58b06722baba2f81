package budget_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/provenance"
)

// TestOverErrorNounsAgree: the message states the shortfall with a noun
// that agrees with it, in every counter.
func TestOverErrorNounsAgree(t *testing.T) {
	tests := []struct {
		counter   string
		shortfall int
		want      string
	}{
		{"codepoint", 1, "over budget by 1 code point: "},
		{"codepoint", 2, "over budget by 2 code points: "},
		{"cl100k_base", 1, "over budget by 1 cl100k_base token: "},
		{"o200k_base", 7, "over budget by 7 o200k_base tokens: "},
	}
	// "1 code points", "1 … tokens" and "(s)" are what a wrong message looks like.
	wrong := regexp.MustCompile(`\b1 (code points|\w+ tokens)\b|\(s\)`)
	for _, tt := range tests {
		limits := budget.Limits{Capacity: 100, Reserve: 10}
		parts := []budget.Part{{Kind: provenance.KindInstruction, Cost: 90 + tt.shortfall}}
		r := budget.Tally(tt.counter, parts, 0, limits)
		msg := (&budget.OverError{Report: r}).Error()
		if !strings.HasPrefix(msg, tt.want) {
			t.Errorf("%s short by %d: %q, want it to start with %q", tt.counter, tt.shortfall, msg, tt.want)
		}
		if m := wrong.FindString(msg); m != "" {
			t.Errorf("%s short by %d: %q says %q", tt.counter, tt.shortfall, msg, m)
		}
	}
}
