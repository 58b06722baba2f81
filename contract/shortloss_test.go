package contract_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// TestShortRefusesLoss: a short build refuses a source whose cite ranges
// drop the body's scope line, or the unit of an amount they quote when the
// front matter has none; it builds one that keeps them, one whose body never
// states them, and every source in whole bodies.
func TestShortRefusesLoss(t *testing.T) {
	tests := []struct {
		name string
		// front is the front matter after lang; body the body lines.
		front, body string
		lang        string
		wantMsg     []string // parts of the refusal; nil when the short build must succeed
		wantQuote   string   // the first quote when it succeeds
	}{
		{
			name:    "amount line alone, no unit key",
			front:   `cite: ["3"]`,
			body:    "Scope: meals on business trips.\nAmounts are in CNY per day.\nCeiling: 750.\n",
			wantMsg: []string{`cite ["3"]`, "the scope, stated in body line 1", "the unit of the amount 750 in body line 3, named in body line 2", `write cite: ["1-3"]`},
		},
		{
			name:    "scope kept, unit line left out",
			front:   `cite: ["1", "3"]`,
			body:    "Scope: meals on business trips.\nAmounts are in CNY per day.\nCeiling: 750.\n",
			wantMsg: []string{`cite ["1", "3"]`, "the unit of the amount 750 in body line 3, named in body line 2", `write cite: ["1-3"]`},
		},
		{
			name:    "unit key, scope left out",
			front:   "unit: CNY per day\ncite: [\"3\"]",
			body:    "Scope: meals on business trips.\nEffective from 2026-01-01.\nCeiling: 750.\n",
			wantMsg: []string{`cite ["3"]`, "the scope, stated in body line 1", `write cite: ["1", "3"]`},
		},
		{
			name:    "Chinese scope line left out",
			lang:    "zh",
			front:   "unit: 元/天\ncite: [\"2\"]",
			body:    "适用范围：出差期间的餐费。\n每天餐费上限为 120 元。\n",
			wantMsg: []string{`cite ["2"]`, "the scope, stated in body line 1"},
		},
		{
			name:      "unit written next to the amount",
			front:     `cite: ["1", "3"]`,
			body:      "Scope: meals on business trips.\nAmounts are in CNY per day.\nCeiling: 750 CNY per day.\n",
			wantQuote: "Scope: meals on business trips.",
		},
		{
			name:      "unit key carries the unit",
			front:     "unit: CNY per day\ncite: [\"1\", \"3\"]",
			body:      "Scope: meals on business trips.\nAmounts are in yuan.\nCeiling: 750.\n",
			wantQuote: "Scope: meals on business trips.",
		},
		{
			name:      "unit line cited in another range",
			front:     `cite: ["1-2", "4"]`,
			body:      "Scope: meals on business trips.\nAmounts are in CNY per day.\nEffective from 2026-01-01.\nCeiling: 750.\n",
			wantQuote: "Scope: meals on business trips.\nAmounts are in CNY per day.",
		},
		{
			name:      "a heading kept instead of the scope line",
			front:     "unit: CNY per day\ncite: [\"1\", \"3\"]",
			body:      "# Meals on business trips\nThis rule applies to meals on trips.\nThe meal limit is 750.\n",
			wantQuote: "# Meals on business trips",
		},
		{
			name:      "the body states no scope",
			front:     "unit: CNY per day\ncite: [\"2\"]",
			body:      "Meals.\nThe meal limit is 750.\n",
			wantQuote: "The meal limit is 750.",
		},
		{
			name:      "the body names no unit",
			front:     `cite: ["1", "2"]`,
			body:      "Scope: meals on business trips.\nThe meal limit is 750.\n",
			wantQuote: "Scope: meals on business trips.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang := tt.lang
			if lang == "" {
				lang = "en"
			}
			src := "---\nsource_id: meals-v1\nversion: v1\nsubjects: [meals]\nvalid_from: 2026-01-01\nlang: " + lang + "\n" + tt.front + "\n---\n" + tt.body
			b := newBuilder(t, fstest.MapFS{"policies/meals.md": {Data: []byte(src)}}, "codepoint")
			req := request(lang, "What is the meal limit?", true, "meals", "2026-09-14")
			res, err := b.Build(context.Background(), req)
			if tt.wantMsg == nil {
				if err != nil {
					t.Fatalf("Build(short) error: %v", err)
				}
				if got := res.Items[2].Text; got != tt.wantQuote {
					t.Errorf("first quote = %q, want %q", got, tt.wantQuote)
				}
				return
			}
			if err == nil {
				t.Fatalf("Build(short) = %s, want a refusal", res.JSON)
			}
			var d *diag.Diagnostic
			if !errors.As(err, &d) || !errors.Is(err, contract.ErrShortLoses) {
				t.Fatalf("Build(short) error %v (%T) is not a diagnostic wrapping ErrShortLoses", err, err)
			}
			if d.Code != corpus.CodeShortLosesScope || d.Path != "policies/meals.md" || d.Line != strings.Count(src[:strings.Index(src, "cite:")], "\n")+1 || d.Col != 1 {
				t.Errorf("refusal at %s with code %s, want policies/meals.md at the cite key with code %s", d.Pos, d.Code, corpus.CodeShortLosesScope)
			}
			for _, w := range tt.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
			// Whole bodies lose nothing: the same source builds.
			req.Short = false
			if _, err := b.Build(context.Background(), req); err != nil {
				t.Errorf("Build(whole bodies) error: %v", err)
			}
		})
	}
}

// TestOverBudgetNoFitWhenShortLoses: an over-budget build does not suggest
// a short form that would be refused, though the cite ranges would fit.
func TestOverBudgetNoFitWhenShortLoses(t *testing.T) {
	long := strings.Repeat("Receipts are kept for ten years by the finance team.\n", 20)
	fsys := fstest.MapFS{"meals.md": {Data: []byte("---\nsource_id: meals-v1\nversion: v1\nsubjects: [meals]\nvalid_from: 2026-01-01\nlang: en\nunit: CNY per day\ncite: [\"2\"]\n---\nScope: meals on business trips.\nThe meal limit is 120 CNY per day.\n" + long)}}
	b := newBuilder(t, fsys, "codepoint")
	_, err := b.Build(context.Background(), request("en", "What is the meal limit?", false, "meals", "2026-09-14"))
	var oe *budget.OverError
	if !errors.As(err, &oe) {
		t.Fatalf("Build() error = %v, want *budget.OverError", err)
	}
	if oe.Fit != nil {
		t.Errorf("OverError.Fit = %+v, want none: the short form loses the scope", oe.Fit)
	}
	// With the scope line cited, the short form is suggested.
	fsys["meals.md"].Data = []byte(strings.Replace(string(fsys["meals.md"].Data), `cite: ["2"]`, `cite: ["1-2"]`, 1))
	b = newBuilder(t, fsys, "codepoint")
	_, err = b.Build(context.Background(), request("en", "What is the meal limit?", false, "meals", "2026-09-14"))
	if !errors.As(err, &oe) || oe.Fit == nil {
		t.Errorf("Build() error = %v, want an over-budget error with a short fit", err)
	}
}
