package grade_test

import (
	"errors"
	"testing"

	"github.com/ka2/ka2/grade"
)

// TestParseContractProblems: what grading refuses to read, with the
// position where there is one. A repeated key is refused rather than read
// as its last value, which is not what the generator was shown.
func TestParseContractProblems(t *testing.T) {
	const ev = `"evidence":[{"source_id":"travel-v2","version":"v2","valid_from":"2026-01-01","line_start":1,"line_end":1,"quote":"The limit is 750 CNY."}]`
	tests := []struct{ name, doc, want string }{
		{"repeated key", `{"template":"ka2-context-v1","question":"a","question":"b"}`,
			`c.json:1:45: contract: a key: key "question" repeats the one at 1:30; keep one: JSON readers differ on which of the two values a repeated key means`},
		{"invalid text", "{\"template\":\"ka2-context-v1\",\"question\":\"caf\xe9\"}",
			`c.json:1:45: contract: invalid text: invalid UTF-8 byte 0xe9; encode the text as UTF-8`},
		{"ends early", `{"template":"ka2-context-v1"`, `c.json:1:29: contract: not JSON: the document ends early`},
		{"two values", `{"template":"t"} {}`, `c.json:1:18: contract: more than one JSON value`},
		{"no template", `{"question":"q"}`, `c.json: contract: no template: this is not a ka2 contract`},
		{"quote and lines disagree", `{"template":"t",` + ev[:len(ev)-len(`"line_end":1,"quote":"The limit is 750 CNY."}]`)] + `"line_end":2,"quote":"The limit is 750 CNY."}]}`,
			`c.json: contract: evidence[0] (travel-v2): the quote has 1 line(s) but lines 1-2 are 2`},
		{"bad scope date", `{"template":"t",` + ev + `,"scope":{"subjects":["lodging"],"dates":["2026-02-30"]}}`, `c.json: contract: scope: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := grade.ParseContract("c.json", []byte(tt.doc))
			if !errors.Is(err, grade.ErrBadContract) || len(err.Error()) < len(tt.want) || err.Error()[:len(tt.want)] != tt.want {
				t.Errorf("ParseContract() = %v, want ErrBadContract starting %q", err, tt.want)
			}
		})
	}
	if _, err := grade.ParseContract("c.json", []byte(`{"template":"t",`+ev+"}\n")); err != nil {
		t.Errorf("ParseContract(a good contract) = %v", err)
	}
}
