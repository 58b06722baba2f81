package golden_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/testutil"
)

// A contract golden is stored indented and compared compacted: the stored
// form and a compact one written by hand both match, and any change to a
// token (an escape, a key's order, a number's spelling) does not.
func TestOutcomeStoredAndMatches(t *testing.T) {
	built := `{"template":"t","evidence":[{"source_id":"a","line_start":1,"quote":"<b> & \"é\"\nx"}],"empty":[],"obj":{},"n":1.50,"u":"\u00e9"}` + "\n"
	o := golden.Outcome{Bytes: []byte(built)}
	stored := o.Stored()
	wantStored := `{
  "template": "t",
  "evidence": [
    {
      "source_id": "a",
      "line_start": 1,
      "quote": "<b> & \"é\"\nx"
    }
  ],
  "empty": [],
  "obj": {},
  "n": 1.50,
  "u": "\u00e9"
}
`
	if string(stored) != wantStored {
		t.Errorf("Stored() =\n%s\nwant\n%s", stored, wantStored)
	}
	tests := []struct {
		name   string
		golden string
		want   bool
	}{
		{"the stored form", string(stored), true},
		{"compact, as written by hand", built, true},
		{"compact without the final newline", strings.TrimSuffix(built, "\n"), true},
		{"indented with tabs and CRLF", strings.ReplaceAll(strings.ReplaceAll(string(stored), "  ", "\t"), "\n", "\r\n"), true},
		{"an escape spelled otherwise", strings.Replace(built, `\u00e9`, "é", 1), false},
		{"HTML escaped", strings.Replace(built, "<b>", `\u003cb\u003e`, 1), false},
		{"a number spelled otherwise", strings.Replace(built, "1.50", "1.5", 1), false},
		{"keys in another order", strings.Replace(built, `"empty":[],"obj":{}`, `"obj":{},"empty":[]`, 1), false},
		{"a changed quote", strings.Replace(built, "x", "y", 1), false},
		{"white space inside a string", strings.Replace(built, `"t"`, `"t "`, 1), false},
		{"not JSON", "{", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		if got := o.Matches([]byte(tt.golden)); got != tt.want {
			t.Errorf("%s: Matches() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// An error golden is what ka2 build --error-format json prints, byte for
// byte: stored as it is and compared exactly.
func TestOutcomeErrorIsExact(t *testing.T) {
	body := "{\n  \"error\": {\n    \"kind\": \"no_evidence\"\n  }\n}\n"
	o := golden.Outcome{Bytes: []byte(body), Kind: golden.KindNoEvidence}
	if got := o.Stored(); !bytes.Equal(got, []byte(body)) {
		t.Errorf("Stored() = %q, want the bytes as they are", got)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(body)); err != nil {
		t.Fatal(err)
	}
	if o.Matches(compact.Bytes()) || !o.Matches([]byte(body)) {
		t.Error("an error golden must match exactly and only exactly")
	}
}

// The sample's contract goldens are stored indented, and each compacts to
// what the build prints.
func TestSampleGoldensAreStoredIndented(t *testing.T) {
	suite := load(t, sampleCases)
	for _, c := range suite.Cases {
		o := c.Build()
		data, err := os.ReadFile(c.Golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, o.Stored()) {
			t.Errorf("%s is not in the stored form (refresh with GOLDIE_UPDATE=1 go test ./golden)", c.Golden)
		}
		var compact bytes.Buffer
		if o.Kind == "" && (json.Compact(&compact, data) != nil || compact.String()+"\n" != string(o.Bytes)) {
			t.Errorf("%s compacted is not what ka2 build prints", c.Golden)
		}
	}
}

// --update rewrites a golden that matches but is not stored indented (one
// written by hand, or by an older ka2), and says so; a plain run leaves it.
func TestRunUpdateRewritesCompactGoldens(t *testing.T) {
	inSampleCopy(t)
	s := load(t, "cases")
	c := s.Cases[0]
	o := c.Build()
	if o.Kind != "" {
		t.Fatalf("%s: want a contract case first", c)
	}
	testutil.WriteFile(t, c.Golden, string(o.Bytes))
	if rep := run(t, s, golden.Options{}); !rep.OK() || rep.Summary.Updated != 0 {
		t.Fatalf("a compact golden: %s", rep.SummaryLine())
	}
	rep := run(t, s, golden.Options{Update: true})
	if rep.Summary.Updated != 1 || !rep.OK() {
		t.Fatalf("--update: %s", rep.SummaryLine())
	}
	if got := findCase(t, rep, c.Name); got.State != golden.StateUpdated || !strings.Contains(got.Summary, "same contract; rewritten in the stored form") {
		t.Errorf("--update reported %+v", got)
	}
	if data, _ := os.ReadFile(c.Golden); !bytes.Equal(data, o.Stored()) {
		t.Errorf("%s after --update:\n%s", c.Golden, data)
	}
}
