package golden_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/golden"
)

// A small contract in the ka2-context-v1 shape, written for these tests:
// a parking policy in two versions.
const (
	parkingOld = `{"template":"ka2-context-v1","instruction":"Use the records.","example":{"question":"Q?","answer":"A [p:1-1]"},"evidence":[{"source_id":"parking-v2","version":"v2","line_start":1,"line_end":2,"quote":"Staff park free.\nVisitors pay 10 CNY."},{"source_id":"parking-v1","version":"v1","line_start":1,"line_end":1,"quote":"Everyone pays 20 CNY."}],"question":"What does parking cost?"}` + "\n"
	budgetErr  = `{
  "error": {
    "kind": "budget_exceeded",
    "message": "over budget by 3 code points: the input takes 303, the limit is 300 (capacity 400 − reserve 100); costs: …",
    "budget": {"counter": "codepoint", "capacity": 400, "reserve": 100, "wrapper": 0, "parts": [], "total": 303, "fixed": 200, "evidence_budget": 100, "evidence_cost": 103, "left": -3}
  }
}
`
	noEvidenceErr = `{
  "error": {
    "kind": "no_evidence",
    "message": "no applicable evidence for subject parking on 2024-01-01 in lang en"
  }
}
`
)

func TestSummarize(t *testing.T) {
	limits := budget.Limits{Capacity: 400, Reserve: 100}
	edit := func(pairs ...string) []byte { return []byte(strings.NewReplacer(pairs...).Replace(parkingOld)) }
	tests := []struct {
		name      string
		want, got []byte
		summary   string
	}{
		{"equal", []byte(parkingOld), []byte(parkingOld), "no change"},
		{"no golden", nil, []byte(parkingOld),
			"no golden yet; the build gives a contract with evidence [parking-v2:1-2, parking-v1:1-1], total 382 of 300"},
		{"quote line changed", []byte(parkingOld), edit("Visitors pay 10", "Visitors pay 15"),
			"evidence ~parking-v2:1-2 (quote line 2)"},
		{"record removed", []byte(parkingOld), edit(`,{"source_id":"parking-v1","version":"v1","line_start":1,"line_end":1,"quote":"Everyone pays 20 CNY."}`, ""),
			"evidence -parking-v1:1-1; budget total 382 → 280 (-102) of 300"},
		{"record added", edit(`,{"source_id":"parking-v1","version":"v1","line_start":1,"line_end":1,"quote":"Everyone pays 20 CNY."}`, ""), []byte(parkingOld),
			"evidence +parking-v1:1-1; budget total 280 → 382 (+102) of 300"},
		{"lines moved and version changed", []byte(parkingOld), edit(`"version":"v1","line_start":1,"line_end":1`, `"version":"v1.1","line_start":2,"line_end":2`),
			"evidence ~parking-v1:1-1 (lines 1-1 → 2-2, version v1 → v1.1); budget total 382 → 384 (+2) of 300"},
		{"reordered", []byte(parkingOld), []byte(`{"template":"ka2-context-v1","instruction":"Use the records.","example":{"question":"Q?","answer":"A [p:1-1]"},"evidence":[{"source_id":"parking-v1","version":"v1","line_start":1,"line_end":1,"quote":"Everyone pays 20 CNY."},{"source_id":"parking-v2","version":"v2","line_start":1,"line_end":2,"quote":"Staff park free.\nVisitors pay 10 CNY."}],"question":"What does parking cost?"}` + "\n"),
			"evidence reordered"},
		{"other fields", []byte(parkingOld), edit("Use the records.", "Use only the records.", "What does", "What did"),
			"instruction changed; question changed; budget total 382 → 386 (+4) of 300"},
		{"field added", []byte(parkingOld), edit(`,"question"`, `,"memory":[],"question"`),
			"memory added; budget total 382 → 394 (+12) of 300"},
		{"contract to budget error", []byte(parkingOld), []byte(budgetErr),
			"now fails: budget_exceeded: over budget by 3 code points: the input takes 303, the limit is 300 (capacity 400 − reserve 100); budget total 382 → 303 (-79) of 300"},
		{"error to contract", []byte(noEvidenceErr), []byte(parkingOld),
			"now builds (was no_evidence): a contract with evidence [parking-v2:1-2, parking-v1:1-1], total 382 of 300"},
		{"error kind changed", []byte(noEvidenceErr), []byte(budgetErr),
			"error no_evidence → budget_exceeded; message now: over budget by 3 code points: the input takes 303, the limit is 300 (capacity 400 − reserve 100)"},
		{"crlf checkout", []byte(strings.ReplaceAll(budgetErr, "\n", "\r\n")), []byte(budgetErr),
			"same JSON, different line endings (CRLF in the golden: mark goldens -text in .gitattributes)"},
		{"no final newline", []byte(strings.TrimSuffix(parkingOld, "\n")), []byte(parkingOld),
			"same JSON, different bytes (white space or a final newline)"},
		{"hand-broken golden", []byte("{not json"), []byte(parkingOld),
			"the golden is not ka2 output (not a contract or an error report); the build gives a contract with evidence [parking-v2:1-2, parking-v1:1-1], total 382 of 300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := golden.Summarize(tt.want, tt.got, budget.Codepoint, limits)
			if got != tt.summary {
				t.Errorf("Summarize() =\n  %s\nwant\n  %s", got, tt.summary)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/golden"))
	edited := strings.NewReplacer("Visitors pay 10", "Visitors pay 15", `"line_end":1`, `"line_end":2`).Replace(parkingOld)
	tests := []struct {
		name      string
		want, got string
	}{
		{"quote-and-lines", parkingOld, edited},
		{"contract-to-error", parkingOld, budgetErr},
		{"crlf-only", strings.ReplaceAll(budgetErr, "\n", "\r\n"), budgetErr},
		{"final-newline-only", strings.TrimSuffix(parkingOld, "\n"), parkingOld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := golden.Diff("case.golden", []byte(tt.want), "ka2 build", []byte(tt.got))
			if d == "" {
				t.Fatal("Diff() is empty for different bytes")
			}
			g.Assert(t, "diff/"+tt.name, []byte(d))
		})
	}
	if d := golden.Diff("a", []byte(parkingOld), "b", []byte(parkingOld)); d != "" {
		t.Errorf("Diff() of equal bytes = %q, want empty", d)
	}
}

// TestDiffQuoteByLine checks that a one-word change in a long quote is
// one changed line of the diff, that a backslash followed by n in the
// text (\\n in JSON) is not a line break, and that a hand-broken golden
// is shown as it is.
func TestDiffQuoteByLine(t *testing.T) {
	var lines []string
	for i := range 42 {
		lines = append(lines, fmt.Sprintf("Clause %d: claims are paid within %d days of receipt, at the rate in force on the day of travel.", i+1, 10+i))
	}
	quote := strings.Join(lines, `\n`)
	// A quoted line continues after the opening quote of
	// `      "quote": "`.
	ind := strings.Repeat(" ", 16)
	contract := func(q string) []byte {
		return []byte(`{"evidence":[{"source_id":"claims","quote":"` + q + `"}],"note":"a\\nb"}` + "\n")
	}
	tests := []struct {
		name          string
		want, got     []byte
		minus, plus   []string
		longestChange int
	}{
		{"one word", contract(quote), contract(strings.Replace(quote, "within 29 days", "within 30 days", 1)),
			[]string{"-" + ind + lines[19] + `\n`}, []string{"+" + ind + strings.Replace(lines[19], "29 days", "30 days", 1) + `\n`}, 120},
		{"last line", contract(quote), contract(quote + `\nClause 43: new.`),
			[]string{"-" + ind + lines[41] + `"`}, []string{"+" + ind + lines[41] + `\n`, "+" + ind + `Clause 43: new."`}, 120},
		{"escaped backslash is not a break", []byte(`{"note":"a\\nb"}`), []byte(`{"note":"a\\nc"}`),
			[]string{`-  "note": "a\\nb"`}, []string{`+  "note": "a\\nc"`}, 40},
		{"not JSON", []byte("{\"quote\":\"x\\ny\"\n"), []byte("{\"quote\":\"x\\nz\"\n"),
			[]string{`-{"quote":"x\ny"`}, []string{`+{"quote":"x\nz"`}, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := golden.Diff("a.golden", tt.want, "ka2 build", tt.got)
			var minus, plus []string
			for _, l := range strings.Split(d, "\n") {
				switch {
				case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
				case strings.HasPrefix(l, "-"):
					minus = append(minus, l)
				case strings.HasPrefix(l, "+"):
					plus = append(plus, l)
				}
				if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
					if len(l) > tt.longestChange {
						t.Errorf("a changed line of %d bytes: %s", len(l), l)
					}
				}
			}
			if diff := cmp.Diff(tt.minus, minus); diff != "" {
				t.Errorf("removed lines mismatch (-want +got):\n%s\nin\n%s", diff, d)
			}
			if diff := cmp.Diff(tt.plus, plus); diff != "" {
				t.Errorf("added lines mismatch (-want +got):\n%s\nin\n%s", diff, d)
			}
		})
	}
}
