package corpus

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindAmount(t *testing.T) {
	tests := []struct {
		line       string
		wantAmount string // "" when nothing must be flagged
		wantCol    int
	}{
		{line: "The lodging limit is 750.", wantAmount: "750", wantCol: 22},
		{line: "Treat 600 as the current lodging amount.", wantAmount: "600", wantCol: 7},
		{line: "住宿标准上限为每间夜 750。", wantAmount: "750", wantCol: 12},
		{line: "把 600 当作现行标准", wantAmount: "600", wantCol: 3},
		{line: "Dinner with a client: 1,200.50 at most.", wantAmount: "1,200.50", wantCol: 23},
		{line: "A taxi ride costs up to 99.5 per trip.", wantAmount: "99.5", wantCol: 25},
		{line: "The annual budget is 2000.", wantAmount: "2000", wantCol: 22},

		{line: "The lodging limit is 750 CNY per room-night."},
		{line: "The lodging limit is ¥750."},
		{line: "住宿标准上限为每间夜 750 元。"},
		{line: "The limit is 50 dollars."},
		{line: "Effective 2025-01-01 up to, but not including, 2026-01-01."},
		{line: "生效期间：2025-01-01 起，至 2026-01-01 前（不含当日）。"},
		{line: "Then cancel order A-104 and pay nothing."},
		{line: "Claims are paid within 30 days."},
		{line: "报销须在 30 日内完成，每天最多 2 次。"},
		{line: "Mileage is paid for trips over 50 km."},
		{line: "The limit rises by 10% in 2026."},
		{line: "The fee table in section 12 applies."},
		{line: "Limits changed in 2026 for all staff."},
		{line: "Rates for version v2 differ; see lines 1-3."},
		{line: "A meal costs 5 at most."}, // one digit: a count more often than money
		{line: "Keep the hotel invoice; claims without one are not reimbursed."},
		{line: "The office is on floor 12, room 1205."},
		{line: "Meetings start at 09:30."},
		{line: "The canteen serves 400 people a day."},
		{line: "2026年1月1日起执行新标准。"},
		{line: "第12条规定的补贴标准不变。"},
		{line: "New hires get 5 days of leave."},
		{line: "Train 1234 leaves at noon."},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			amount, col := AmountWithoutUnit(tt.line)
			if amount != tt.wantAmount || col != tt.wantCol {
				t.Errorf("AmountWithoutUnit() = %q, %d; want %q, %d", amount, col, tt.wantAmount, tt.wantCol)
			}
		})
	}
}

func TestScopeAndDateLines(t *testing.T) {
	tests := []struct {
		line        string
		scope, date bool
	}{
		{"Scope: lodging on business trips to Beijing.", true, false},
		{"This policy applies to all full-time staff.", true, false},
		{"适用范围：赴北京出差的住宿。", true, false},
		{"本规定适用于服务台工单。", true, false},
		{"Effective from 2026-01-01.", false, true},
		{"Valid from March onwards.", false, true},
		{"生效期间：自 2026-01-01 起长期有效。", false, true},
		{"自 2026年1月1日 起施行。", false, true},
		{"Changes on 2026/03/01.", false, true},
		{"The lodging limit is 750 CNY per room-night.", false, false},
		{"住宿标准上限为每间夜 750 元。", false, false},
	}
	for _, tt := range tests {
		if got := StatesScope(tt.line); got != tt.scope {
			t.Errorf("StatesScope(%q) = %v, want %v", tt.line, got, tt.scope)
		}
		if got := StatesDate(tt.line); got != tt.date {
			t.Errorf("StatesDate(%q) = %v, want %v", tt.line, got, tt.date)
		}
	}
}

func TestMoneyAmounts(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"The meal allowance is 200 CNY per day.", []string{"200"}},
		{"餐费标准为每天 210 元。", []string{"210"}},
		{"餐费标准为每天210元。", []string{"210"}},
		{"Up to 1,200.00 per month and 80.50 per ride.", []string{"1200", "80.5"}},
		{"Effective from 2026-01-01 for 30 days.", nil},
		{"Trips of 2 nights or more, room 1204.", nil},
		{"In 2026 the limit is 750 CNY.", []string{"750"}},
		{"住宿标准上限为每间夜 750 元。", []string{"750"}},
		{"The shuttle leaves every 30 minutes.", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, MoneyAmounts(tt.line)); diff != "" {
			t.Errorf("MoneyAmounts(%q) mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestCurrencies(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"750 CNY per room-night", []string{"CNY"}},
		{"每间夜 750 元", []string{"CNY"}},
		{"100 美元", []string{"USD"}},
		{"元旦 holiday, unit 3", []string{}},
		{"$20 or 150 yuan", []string{"CNY", "USD"}},
	}
	for _, tt := range tests {
		set := map[string]bool{}
		Currencies(tt.line, set)
		got := []string{}
		for c := range set {
			got = append(got, c)
		}
		slices.Sort(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Currencies(%q) mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestStatesScopeFastPath: the word prefilter in front of scopeLine never
// changes its answer, on ASCII lines (where it decides alone) and on
// others (where the regexp decides).
func TestStatesScopeFastPath(t *testing.T) {
	tests := []string{
		"Scope: expense rule 4 for subject-00001.",
		"SCOPE of this rule",
		"This rule applies to every claim.",
		"APPLIES   TO everyone",
		"Applicable to contractors.",
		"This notice covers lodging.",
		"This Policy Is About rail travel.",
		"this policy concerns rail",
		"Line 4 explains a detail of the rule in plain words, with a receipt required for every claim.",
		"The limit is 500 EUR per claim.",
		"telescope",     // no word boundary before scope
		"scoped access", // no word boundary after
		"applesauce",
		"thistle covers",
		"ſcope: U+017F folds to s under (?i)",
		"Kovers",
		"适用范围：出差住宿。",
		"范围：全体员工",
		"本办法适用于全体员工。",
		"",
		"#",
		"\x00scope\xff",
	}
	for _, line := range tests {
		if got, want := StatesScope(line), scopeLine().MatchString(line); got != want {
			t.Errorf("StatesScope(%q) = %v, scopeLine says %v", line, got, want)
		}
	}
}

func FuzzStatesScope(f *testing.F) {
	for _, s := range []string{"Scope: x", "this rule covers y", "applies\tto", "ſcope", "适用于", "plain line"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := StatesScope(line), scopeLine().MatchString(line); got != want {
			t.Errorf("StatesScope(%q) = %v, scopeLine says %v", line, got, want)
		}
	})
}

// TestKeywordsIn: the one-pass keyword set says for each instruction
// pattern what containsAny over its keywords says.
