package golden

import (
	"strings"
	"testing"
)

// TestMatchesPinned: a run compares what readGolden pinned
// (matchesPinned) instead of joining the golden's lines a second time
// (Matches); the two agree on every golden, contract or error.
func TestMatchesPinned(t *testing.T) {
	built := `{"template":"t","evidence":[{"source_id":"a","line_start":1,"quote":"one\ntwo"}],"n":1.50}` + "\n"
	contract := Outcome{Bytes: []byte(built)}
	stored := string(contract.Stored())
	errBody := "{\n  \"error\": {\n    \"kind\": \"no_evidence\"\n  }\n}\n"
	failed := Outcome{Bytes: []byte(errBody), Kind: KindNoEvidence}
	tests := []struct {
		name   string
		o      Outcome
		golden string
	}{
		{"the stored form", contract, stored},
		{"compact, the quote one string", contract, built},
		{"a quote line changed", contract, strings.Replace(stored, `"two"`, `"three"`, 1)},
		{"a number spelled otherwise", contract, strings.Replace(built, "1.50", "1.5", 1)},
		{"not JSON", contract, "{"},
		{"the error golden", failed, errBody},
		{"the error golden compacted", failed, `{"error":{"kind":"no_evidence"}}`},
		{"a contract where an error was", failed, stored},
	}
	for _, tt := range tests {
		want := tt.o.Matches([]byte(tt.golden))
		if got := tt.o.matchesPinned(Pins([]byte(tt.golden), tt.o.def)); got != want {
			t.Errorf("%s: matchesPinned(Pins()) = %v, Matches() = %v", tt.name, got, want)
		}
	}
}
