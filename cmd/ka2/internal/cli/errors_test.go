package cli_test

import (
	"strings"
	"testing"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/errkind"
)

// TestErrorWording: the text output words a library's hints as flags;
// the JSON body keeps the library's words and names the kind, and both
// exit with the kind's one code.
func TestErrorWording(t *testing.T) {
	comparison := []string{"build", "--subject", "lodging", "--date", "2025-09-14", "--date", "2026-09-14",
		"--question", "How did the Beijing lodging limit change between 2025 and 2026?"}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		text     string // a part of the text error
		json     string // a part of the JSON message
		kind     string
	}{
		{"over budget with a fit", comparison, cli.ExitBudget,
			"raise --capacity, lower --reserve, or ask about fewer dates; or pass --short: quoting the cite ranges",
			"raise the capacity setting, lower the reserve setting, or ask about fewer dates; the short form fits", "budget_exceeded"},
		{"empty question", []string{"build", "--subject", "lodging", "--date", "2026-09-14", "--question", " "}, cli.ExitInput,
			"the question is empty; ask it with --question", "the question is empty; ask it with the question setting", "bad_input"},
		{"ambiguous address", []string{"show", "travel-v2:1-3"}, cli.ExitInput,
			"pass --lang to choose one", "pass the lang setting to choose one", "bad_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runKA2(t, "", tt.args...)
			if code != tt.wantCode || stdout != "" || !strings.Contains(stderr, tt.text) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tt.wantCode, tt.text)
			}
			code, _, stderr = runKA2(t, "", append([]string{"--error-format", "json"}, tt.args...)...)
			body, err := errkind.ParseBody([]byte(stderr))
			if err != nil {
				t.Fatalf("stderr %q: %v", stderr, err)
			}
			if code != tt.wantCode || body.Error.Kind != tt.kind || !strings.Contains(body.Error.Message, tt.json) {
				t.Errorf("exit %d, %+v; want exit %d, kind %s and %q", code, body.Error, tt.wantCode, tt.kind, tt.json)
			}
			if strings.Contains(body.Error.Message, "--") {
				t.Errorf("the JSON message names a flag: %s", body.Error.Message)
			}
		})
	}
}
