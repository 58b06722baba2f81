package pipeline

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/testutil"
)

var yamlBreak = regexp.MustCompile("\r\n|\r|\n|\u0085|\u2028|\u2029")

// FuzzParse feeds pipeline files to Parse, seeded from every fixture. It
// must never panic, every diagnostic must have a position in the file, the
// diagnostics must be sorted, and parsing twice must give the same result.
func FuzzParse(f *testing.F) {
	for _, src := range testutil.SeedFiles(f, "testdata/check/*.yaml", "testdata/pipelines/*.yaml") {
		f.Add(src)
	}
	f.Add([]byte("protocols: {P: {a: list<list<P>>}}\nstages: {s: {exec: x, context: {output_schema: P, input_schema: P}}}\nflow: s >> s"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse("fuzz.yaml", src, nil)
		if err != nil {
			t.Fatalf("Parse returned an error for a file problem: %v", err)
		}
		// Line breaks as YAML counts them: CRLF, CR, LF, NEL, LS and PS.
		lines := 1 + len(yamlBreak.FindAllIndex(src, -1))
		for _, d := range p.Diagnostics {
			if d.Pos.Path != "fuzz.yaml" || d.Pos.Line < 1 || d.Pos.Col < 1 || d.Pos.Line > lines {
				t.Errorf("diagnostic without a position in the file: %s", d)
			}
			if d.Code == "" || d.Message == "" || (d.Severity != diag.SeverityError && d.Severity != diag.SeverityWarning) {
				t.Errorf("incomplete diagnostic: %+v", d)
			}
		}
		if !slices.IsSortedFunc(p.Diagnostics, func(a, b Diagnostic) int {
			if a.Pos.Line != b.Pos.Line {
				return a.Pos.Line - b.Pos.Line
			}
			return a.Pos.Col - b.Pos.Col
		}) {
			t.Errorf("diagnostics are not sorted by position")
		}
		if p.Diagnostics.Errors() == 0 {
			for _, step := range p.Flow {
				if p.Stages[step.Stage] == nil {
					t.Errorf("a clean pipeline runs unknown stage %q", step.Stage)
				}
			}
		}
		again, _ := Parse("fuzz.yaml", src, nil)
		if diff := cmp.Diff(p.Diagnostics, again.Diagnostics); diff != "" {
			t.Errorf("two parses differ (-first +second):\n%s", diff)
		}
	})
}

// FuzzStageOutput feeds stage output documents to parseStageOutput. It
// must never panic, give the same answer twice, and an output it accepts
// must hold only keys written exactly as a stage output spells them: its
// compact re-encoding reads back to the same output.
func FuzzStageOutput(f *testing.F) {
	for _, s := range []string{`{"output_text":"x"}`, `{"output":{"a":1},"artifacts":{"g":true}}`,
		`{"output_text":"a","messages":[{"role":"assistant","content":"a"}],"tool_results":[{"tool":"t","content":1}]}`,
		`{"OUTPUT_TEXT":"x"}`, `{"output_text":"a","Output_Text":"b"}`, `{"messages":[{"role":"user","Content":"c"}]}`,
		`{"artifacts":{"x":1,"X":2}}`, `{"output_text":"\ud800"}`, `[]`, `{"output_text":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := parseStageOutput(data)
		again, err2 := parseStageOutput(data)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("two parses differ: %v, %v", err, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrBadOutput) {
				t.Errorf("error %v is not ErrBadOutput", err)
			}
			return
		}
		if !cmp.Equal(outputText(out), outputText(again)) {
			t.Errorf("two parses give different output text")
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseStageOutput(b); err != nil {
			t.Errorf("accepted %s, but not its re-encoding %s: %v", data, b, err)
		}
	})
}
