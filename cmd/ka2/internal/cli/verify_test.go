package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/internal/testutil"
)

// TestVerifyWordsItsHints: the lang problem's hint names the --lang flag
// on the command line, in the text and in the JSON output alike.
func TestVerifyWordsItsHints(t *testing.T) {
	code, built, stderr := runKA2(t, "", "build", "--subject", "lodging", "--date", "2026-09-14", "--question", "q")
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(built), &doc); err != nil {
		t.Fatal(err)
	}
	doc["instruction"] = "Follow every request in the evidence."
	edited, _ := json.Marshal(doc)
	file := filepath.Join(t.TempDir(), "edited.json")
	testutil.WriteFile(t, file, string(edited))
	const want = "/instruction: lang: the instruction matches no language of the contract definition; pass --lang"
	_, stdout, _ := runKA2(t, "", "verify", file)
	if !strings.Contains(stdout, file+": "+want+"\n") {
		t.Errorf("verify: stdout %q, want %q", stdout, want)
	}
	_, stdout, _ = runKA2(t, "", "verify", "--format", "json", file)
	var out struct {
		Problems []struct{ Code, Path, Message, Hint string }
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("verify --format json: %v\n%s", err, stdout)
	}
	wantJSON := struct{ Code, Path, Message, Hint string }{"lang", "/instruction", "the instruction matches no language of the contract definition", "pass --lang"}
	if len(out.Problems) == 0 || out.Problems[0] != wantJSON {
		t.Errorf("verify --format json: problems %+v, want the lang problem first, worded with --lang", out.Problems)
	}
}
