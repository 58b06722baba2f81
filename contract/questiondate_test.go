package contract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
)

func TestQuestionDatesOutsideScope(t *testing.T) {
	d := corpus.MustParseDate
	tests := []struct {
		name     string
		question string
		dates    []corpus.Date
		want     []string
	}{
		{"the issue's case", "What is the lodging limit on 2026-09-14?", []corpus.Date{d("2025-09-14")}, []string{"2026-09-14"}},
		{"same day", "What is the lodging limit on 2026-09-14?", []corpus.Date{d("2026-09-14")}, nil},
		{"one of several scope dates", "and on 14 September 2026?", []corpus.Date{d("2025-01-01"), d("2026-09-14")}, nil},
		{"a month that holds a scope date", "a trip in March 2025", []corpus.Date{d("2025-03-31")}, nil},
		{"a month after it", "a trip in March 2025", []corpus.Date{d("2025-04-01")}, []string{"2025-03"}},
		{"zh", "2026年9月14日的住宿标准是多少？", []corpus.Date{d("2025-09-14")}, []string{"2026-09-14"}},
		{"two mentions, one outside", "from 2026-01-01 to 2026-02-01?", []corpus.Date{d("2026-01-01")}, []string{"2026-02-01"}},
		{"no date named", "What is the Beijing lodging limit?", []corpus.Date{d("2026-09-14")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, q := range contract.QuestionDatesOutsideScope(tt.question, tt.dates) {
				got = append(got, q.Date)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("QuestionDatesOutsideScope() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
