package serve_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/serve"
)

// TestContractQuestionDates: a contract whose question names a date the
// scope does not ask carries the same bytes as always, and a header that
// lists those dates; a question that names a scope date, or none, has no
// such header.
func TestContractQuestionDates(t *testing.T) {
	settings := contract.Settings{Lang: "en"}
	r := start(t, serve.Config{Build: sample, Settings: settings})
	tests := []struct {
		name, body, want string
	}{
		{"another day", `{"subject":"lodging","dates":["2025-09-14"],"question":"What is the lodging limit on 2026-09-14?"}`, "2026-09-14"},
		{"written dates", `{"subject":"lodging","dates":["2025-09-14"],"question":"And on 14 September 2026, or in March 2027?"}`, "2026-09-14, 2027-03"},
		{"zh", `{"subject":"lodging","dates":["2025-09-14"],"question":"2026年9月14日的住宿标准是多少？","lang":"zh"}`, "2026-09-14"},
		{"the scope's day", `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the lodging limit on 2026-09-14?"}`, ""},
		{"a month holding a scope date", `{"subject":"lodging","dates":["2026-09-14"],"question":"A trip in September 2026?"}`, ""},
		{"no date", lodging2026, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, _ := expected(t, corpus.Embedded(), settings, tt.body)
			got := r.post(t, "/v1/contract", tt.body)
			if got.status != http.StatusOK {
				t.Fatalf("status %d, body %s", got.status, got.body)
			}
			if diff := cmp.Diff(string(want), string(got.body)); diff != "" {
				t.Errorf("POST /v1/contract mismatch (-want +got):\n%s", diff)
			}
			vals := got.header.Values(serve.QuestionDatesHeader)
			if tt.want == "" && len(vals) != 0 || tt.want != "" && (len(vals) != 1 || vals[0] != tt.want) {
				t.Errorf("%s = %q, want %q", serve.QuestionDatesHeader, vals, tt.want)
			}
		})
	}
}
