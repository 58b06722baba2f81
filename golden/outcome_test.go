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

// A contract golden is stored indented, each text that spans lines as the
// array of its lines, and compared joined and compacted: the stored form,
// the indented form of older ka2 (the quote one string) and a compact one
// written by hand all match, and any change to a token (an escape, a key's
// order, a number's spelling, a line of a quote) does not.
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
      "quote": [
        "<b> & \"é\"",
        "x"
      ]
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
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(built), "", "  "); err != nil {
		t.Fatal(err)
	}
	older := indented.String()
	tests := []struct {
		name   string
		golden string
		want   bool
	}{
		{"the stored form", string(stored), true},
		{"indented, the quote one string (older ka2)", older, true},
		{"the quote's lines on one line", strings.Replace(built, `"<b> & \"é\"\nx"`, `["<b> & \"é\"","x"]`, 1), true},
		{"the quote's lines split otherwise", strings.Replace(built, `"<b> & \"é\"\nx"`, `["<b> & \"é\"\nx"]`, 1), true},
		{"a quote line changed", strings.Replace(string(stored), `"x"`, `"y"`, 1), false},
		{"a quote line added", strings.Replace(string(stored), `"x"`, `"x", ""`, 1), false},
		{"a quote line removed", strings.Replace(string(stored), `"<b> & \"é\"",`, ``, 1), false},
		{"the quote's lines joined by a space", strings.Replace(built, `"<b> & \"é\"\nx"`, `"<b> & \"é\" x"`, 1), false},
		{"an empty array for the quote", strings.Replace(built, `"<b> & \"é\"\nx"`, `[]`, 1), false},
		{"a number among the quote's lines", strings.Replace(built, `"<b> & \"é\"\nx"`, `["<b> & \"é\"",1]`, 1), false},
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

// The sample's and the typed cases' contract goldens are in the stored
// form: each is what Stored writes, no line of one holds a \n escape (every
// text that spans lines is an array of its lines), and each, joined and
// compacted, is what the build prints.
func TestSampleGoldensAreStoredInLineForm(t *testing.T) {
	arrays := 0
	for _, dir := range []string{sampleCases, "testdata/typed-cases"} {
		for _, c := range load(t, dir).Cases {
			o := c.Build()
			data, err := os.ReadFile(c.Golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, o.Stored()) {
				t.Errorf("%s is not in the stored form (refresh with go test ./golden -update)", c.Golden)
			}
			if o.Kind != "" {
				continue
			}
			if bytes.Contains(data, []byte(`\n`)) {
				t.Errorf("%s holds a text with a line break as one string", c.Golden)
			}
			arrays += bytes.Count(data, []byte(`"quote": [`))
			var compact bytes.Buffer
			if json.Compact(&compact, golden.Pins(data, nil)) != nil || compact.String()+"\n" != string(o.Bytes) {
				t.Errorf("%s joined and compacted is not what ka2 build prints", c.Golden)
			}
		}
	}
	if arrays < 20 {
		t.Errorf("%d quotes stored as lines, want at least 20: the sample's quotes span lines", arrays)
	}
}

// --update rewrites a golden that matches but is not in the stored form
// (compact, written by hand, or indented with each quote one string, as
// older ka2 wrote it), and says so; a plain run leaves it.
func TestRunUpdateRewritesCompactGoldens(t *testing.T) {
	for _, form := range []string{"compact", "indented, quotes as strings"} {
		t.Run(form, func(t *testing.T) {
			inSampleCopy(t)
			s := load(t, "cases")
			c := s.Cases[0]
			o := c.Build()
			if o.Kind != "" || !bytes.Contains(o.Bytes, []byte(`\n`)) {
				t.Fatalf("%s: want a contract case with a quote of several lines first", c)
			}
			old := o.Bytes
			if form != "compact" {
				var b bytes.Buffer
				if err := json.Indent(&b, o.Bytes, "", "  "); err != nil {
					t.Fatal(err)
				}
				old = b.Bytes()
			}
			testutil.WriteFile(t, c.Golden, string(old))
			if rep := run(t, s, golden.Options{}); !rep.OK() || rep.Summary.Updated != 0 {
				t.Fatalf("a golden of older form: %s", rep.SummaryLine())
			}
			if data, _ := os.ReadFile(c.Golden); !bytes.Equal(data, old) {
				t.Errorf("a plain run rewrote %s", c.Golden)
			}
			rep := run(t, s, golden.Options{Update: true})
			if rep.Summary.Updated != 1 || !rep.OK() {
				t.Fatalf("--update: %s", rep.SummaryLine())
			}
			if got := findCase(t, rep, c.Name); got.State != golden.StateUpdated || !strings.Contains(got.Summary, "same contract; rewritten in the stored form") {
				t.Errorf("--update reported %+v", got)
			}
			if data, _ := os.ReadFile(c.Golden); !bytes.Equal(data, o.Stored()) || !bytes.Contains(data, []byte(`"quote": [`)) {
				t.Errorf("%s after --update:\n%s", c.Golden, data)
			}
			if rep := run(t, s, golden.Options{Update: true}); rep.Summary.Updated != 0 {
				t.Errorf("a second --update rewrote the stored form: %s", rep.SummaryLine())
			}
		})
	}
}
