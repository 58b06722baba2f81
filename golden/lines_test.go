package golden_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/testutil"
)

// contractWith is a contract (compact, with a final newline, as ka2 build
// prints it) whose every text is s: the instruction, the example's question
// and answer, a memory item, an evidence quote, a tool output and the
// question. s is a JSON string token as written, escapes and all.
func contractWith(s string) string {
	return `{"template":"ka2-context-v1","instruction":` + s + `,"example":{"question":` + s + `,"answer":` + s +
		`},"memory":[{"source":"memory:m","text":` + s + `}],"evidence":[{"source_id":"a","version":"v1","unit":"CNY","line_start":1,"line_end":2,"quote":` + s +
		`}],"tool_output":[{"source":"tool:t","text":` + s + `}],"scope":{"subjects":["s"],"dates":["2026-01-01"]},"question":` + s + "}\n"
}

// Each text's lines, as the stored golden holds them: split after every \n
// escape, each piece exactly as written; a text of one line is a string.
// Joined and compacted, the stored golden is the contract again, byte for
// byte.
func TestLineFormTexts(t *testing.T) {
	tests := []struct {
		name, token string
		want        string // the stored form of the quote, indented as in the golden
	}{
		{"one line", `"a b"`, `"a b"`},
		{"empty", `""`, `""`},
		{"two lines", `"a\nb"`, "[\n        \"a\",\n        \"b\"\n      ]"},
		{"a final newline", `"a\n"`, "[\n        \"a\",\n        \"\"\n      ]"},
		{"a newline first", `"\na"`, "[\n        \"\",\n        \"a\"\n      ]"},
		{"only a newline", `"\n"`, "[\n        \"\",\n        \"\"\n      ]"},
		{"CRLF keeps the CR on its line", `"a\r\nb\r\n"`, "[\n        \"a\\r\",\n        \"b\\r\",\n        \"\"\n      ]"},
		{"a lone CR is no line break", `"a\rb"`, `"a\rb"`},
		{"an escaped backslash before n", `"a\\nb"`, `"a\\nb"`},
		{"an escaped backslash, then a newline", `"a\\\nb"`, "[\n        \"a\\\\\",\n        \"b\"\n      ]"},
		{"a newline spelled \\u000a stays", `"a\u000ab"`, `"a\u000ab"`},
		{"other escapes as written", `"\u003cb\u003e \"q\"\n\u2028é\t"`, "[\n        \"\\u003cb\\u003e \\\"q\\\"\",\n        \"\\u2028é\\t\"\n      ]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			built := contractWith(tt.token)
			o := golden.Outcome{Bytes: []byte(built)}
			stored := o.Stored()
			if !bytes.Contains(stored, []byte(`"quote": `+tt.want+"\n")) {
				t.Errorf("Stored() quote, want %s, in:\n%s", tt.want, stored)
			}
			// Every text of the contract (instruction, example, memory,
			// quote, tool output, question) is stored the same way.
			if tt.want[0] == '[' && bytes.Contains(stored, []byte(tt.token)) {
				t.Errorf("a text of several lines is stored as one string:\n%s", stored)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, golden.Pins(stored, nil)); err != nil {
				t.Fatalf("Pins(Stored()) is not JSON: %v", err)
			}
			if diff := cmp.Diff(built, compact.String()+"\n"); diff != "" {
				t.Errorf("Pins(Stored()) compacted mismatch (-want +got):\n%s", diff)
			}
			if !o.Matches(stored) || !o.Matches([]byte(built)) {
				t.Error("Matches() is false for the stored form or the contract itself")
			}
		})
	}
}

// Only the texts the contract definition declares take the line form: a
// line break in a source ID, a unit, a subject or a key of another field
// stays in its string, and an array of strings elsewhere (serves, the
// scope) is never joined.
func TestLineFormOnlyAtTexts(t *testing.T) {
	built := `{"template":"t\nu","evidence":[{"source_id":"a","unit":"x\ny","serves":["a","b"],"line_start":1,"quote":"q"}],"scope":{"subjects":["s\nt","u"],"dates":["d"]},"other":{"quote":"o\np","text":"o\np"},"question":"one"}` + "\n"
	o := golden.Outcome{Bytes: []byte(built)}
	var want bytes.Buffer
	if err := json.Indent(&want, []byte(built), "", "  "); err != nil {
		t.Fatal(err)
	}
	if got := o.Stored(); string(got) != want.String() {
		t.Errorf("Stored() =\n%s\nwant it only indented:\n%s", got, want.String())
	}
	if got := golden.Pins(want.Bytes(), nil); !bytes.Equal(got, want.Bytes()) {
		t.Errorf("Pins() changed a golden without line arrays:\n%s", got)
	}
}

// Read back, a golden that is not JSON, or that is an error report, is the
// golden as it is.
func TestPinsLeavesOtherBytes(t *testing.T) {
	for _, b := range []string{"", "{", `{"quote": ["a", "b"]`, "not json\n", "{\n  \"error\": {\n    \"kind\": \"no_evidence\",\n    \"message\": \"a\\nb\"\n  }\n}\n"} {
		if got := golden.Pins([]byte(b), nil); string(got) != b {
			t.Errorf("Pins(%q) = %q, want it unchanged", b, got)
		}
	}
}

// FuzzLineForm round-trips contracts through the stored golden: for any
// JSON whose texts are strings (as the contract schema says they are),
// the stored form joined and compacted is the contract byte for byte,
// Matches accepts it, storing it again changes nothing, and it is JSON;
// Pins never panics and leaves what is not JSON as it is.
func FuzzLineForm(f *testing.F) {
	for _, dir := range []string{sampleCases, "testdata/typed-cases"} {
		for _, g := range testutil.SeedFiles(f, dir+"/testdata/golden/*/*.golden") {
			f.Add(golden.Pins(g, nil))
			f.Add(g)
		}
	}
	for _, tok := range []string{`""`, `"\n"`, `"a\n"`, `"\na"`, `"a\r\nb\r\n"`, `"a\rb"`, `"a\\nb"`, `"a\\\nb"`,
		`"a\u000ab"`, `"\u2028\n\u003c\"\\"`, `"é\n中\n"`, `"\n\n\n"`, `"x"`} {
		f.Add([]byte(contractWith(tok)))
	}
	f.Add([]byte(`{"evidence":[{"quote":["a","b"]}]}`))
	f.Add([]byte(`{"evidence":[{"quote":[]}],"question":[1,"a"]}`))
	f.Add([]byte(`{"evidence":{"quote":"a\nb"},"question":{"x":"a\nb"}}`))
	f.Add([]byte(`[{"quote":"a\nb"}]`))
	f.Add([]byte(`{"question":"a\nb" `))
	f.Fuzz(func(t *testing.T, doc []byte) {
		pinned := golden.Pins(doc, nil)
		if !json.Valid(doc) {
			if !bytes.Equal(pinned, doc) {
				t.Fatalf("Pins changed bytes that are not JSON: %q -> %q", doc, pinned)
			}
			return
		}
		if !json.Valid(pinned) {
			t.Fatalf("Pins(%q) = %q, not JSON", doc, pinned)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, doc); err != nil {
			t.Fatal(err)
		}
		built := append(c.Bytes(), '\n')
		if !bytes.Equal(golden.Pins(built, nil), built) {
			return // an array where the schema says a text: no contract holds one
		}
		o := golden.Outcome{Bytes: built}
		stored := o.Stored()
		if !json.Valid(stored) {
			t.Fatalf("Stored() of %s is not JSON:\n%s", built, stored)
		}
		var back bytes.Buffer
		if err := json.Compact(&back, golden.Pins(stored, nil)); err != nil {
			t.Fatal(err)
		}
		back.WriteByte('\n')
		if !bytes.Equal(back.Bytes(), built) {
			t.Fatalf("round trip:\n%s\nstored\n%s\nread back\n%s", built, stored, back.Bytes())
		}
		if !o.Matches(stored) {
			t.Fatalf("Matches(Stored()) is false for %s", built)
		}
		if again := (golden.Outcome{Bytes: back.Bytes()}).Stored(); !bytes.Equal(again, stored) {
			t.Fatalf("storing twice differs:\n%s\n%s", stored, again)
		}
	})
}

// policy writes a policy of n body lines; line i (from 1) is body(i).
func policy(n int, body func(int) string) string {
	var b strings.Builder
	b.WriteString("---\nsource_id: long-policy\nversion: v1\nsubjects: [lodging]\nvalid_from: 2025-01-01\nlang: en\nunit: CNY per room-night\n---\n")
	for i := 1; i <= n; i++ {
		b.WriteString(body(i) + "\n")
	}
	return b.String()
}

// changedLines compares two texts line by line as a pull request's diff
// does and returns the removed and the added lines.
func changedLines(a, b []byte) (removed, added []string) {
	d := string(diff.Diff("old", a, "new", b))
	for line := range strings.SplitSeq(d, "\n") {
		switch {
		case strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"):
		case strings.HasPrefix(line, "-"):
			removed = append(removed, line[1:])
		case strings.HasPrefix(line, "+"):
			added = append(added, line[1:])
		}
	}
	return removed, added
}

// A one-word edit of a 42-line policy changes exactly one line of the
// stored golden, the edited body line, wherever it is in the quote (the
// first line, the middle, the last); in the older form it changed the one
// line that held the whole quote.
func TestOneWordEditChangesOneGoldenLine(t *testing.T) {
	const n = 42
	line := func(i int) string {
		return fmt.Sprintf("Rule %d: a lodging claim of this kind needs the hotel invoice and the approval.", i)
	}
	for _, edited := range []int{1, 20, n} {
		t.Run(fmt.Sprint("line ", edited), func(t *testing.T) {
			t.Chdir(t.TempDir())
			testutil.WriteFile(t, "cases/long.yaml", "defaults: {corpus: ../policies, subject: lodging, capacity: 20000}\ncases:\n  - {name: long, question: 'Which rules apply to a lodging claim?', dates: [2025-06-01]}\n")
			build := func(body func(int) string) []byte {
				testutil.WriteFile(t, "policies/long.md", policy(n, body))
				c := load(t, "cases").Cases[0]
				o := c.Build()
				if o.Kind != "" {
					t.Fatalf("the case fails: %v", o.Err)
				}
				return o.Stored()
			}
			before := build(line)
			after := build(func(i int) string {
				if i == edited {
					return strings.Replace(line(i), "invoice", "receipt", 1)
				}
				return line(i)
			})
			removed, added := changedLines(before, after)
			want := strings.Replace(line(edited), "invoice", "receipt", 1)
			if len(removed) != 1 || len(added) != 1 || !strings.Contains(added[0], `"`+want+`"`) {
				t.Errorf("the edit changed lines -%q +%q, want one line, %q", removed, added, want)
			}
			if len(added) == 1 && len(added[0]) > len(want)+16 {
				t.Errorf("the changed line is %d bytes for a body line of %d", len(added[0]), len(want))
			}
			// The form older ka2 stored: the whole quote on the changed line.
			indent := func(b []byte) []byte {
				var out bytes.Buffer
				_ = json.Indent(&out, golden.Pins(b, nil), "", "  ")
				return out.Bytes()
			}
			if _, added := changedLines(indent(before), indent(after)); len(added) != 1 || len(added[0]) < n*len(want)/2 {
				t.Errorf("the older form's changed line: %d lines", len(added))
			}
		})
	}
}

// Accepting a pending golden writes the stored form, whatever form the
// pending file has (written by this ka2, by an older one with each quote
// one string, or compact by hand); an error report is written as it is.
// Review reads each form as the contract it pins.
func TestAcceptWritesTheStoredForm(t *testing.T) {
	indented := func(b []byte) []byte {
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	forms := []struct {
		name string
		of   func(o golden.Outcome) []byte
	}{
		{"stored", golden.Outcome.Stored},
		{"older, indented", func(o golden.Outcome) []byte { return indented(o.Bytes) }},
		{"compact", func(o golden.Outcome) []byte { return o.Bytes }},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			inSampleCopy(t)
			s := load(t, "cases")
			var contractCase, errorCase *golden.Case
			for _, c := range s.Cases {
				switch o := c.Build(); {
				case o.Kind == "" && bytes.Contains(o.Bytes, []byte(`\n`)) && contractCase == nil:
					contractCase = c
				case o.Kind != "" && errorCase == nil:
					errorCase = c
				}
			}
			if contractCase == nil || errorCase == nil {
				t.Fatal("the sample set lacks a contract case with a quote of several lines or an error case")
			}
			for _, c := range []*golden.Case{contractCase, errorCase} {
				o := c.Build()
				data := form.of(o)
				if o.Kind != "" {
					data = o.Bytes // an error report has one form
				}
				testutil.WriteFile(t, c.Golden+golden.PendingSuffix, string(data))
			}
			pending, err := s.Pending()
			if err != nil || len(pending) != 2 {
				t.Fatalf("Pending() = %d, %v; want two", len(pending), err)
			}
			for _, p := range pending {
				o := p.Case.Build()
				if !o.Matches(p.New) || !o.Matches(p.Old) {
					t.Errorf("%s: review reads the pending golden or the golden as another output:\n%s", p.Path, p.New)
				}
				if err := p.Accept(t.Context()); err != nil {
					t.Fatal(err)
				}
				if data, _ := os.ReadFile(p.Case.Golden); !bytes.Equal(data, o.Stored()) {
					t.Errorf("%s after accepting:\n%s\nwant\n%s", p.Case.Golden, data, o.Stored())
				}
			}
		})
	}
}

// A differing golden in the stored form is summarised and diffed as the
// contract it pins: the regress report says the same of it as of the
// golden older ka2 wrote for the same contract.
func TestDiffReadsTheStoredForm(t *testing.T) {
	reports := map[string]golden.CaseReport{}
	for _, form := range []string{"stored", "older"} {
		t.Run(form, func(t *testing.T) { reports[form] = differingCase(t, form) })
	}
	st, older := reports["stored"], reports["older"]
	if st.State != golden.StateDiffers || !strings.Contains(st.Summary, "quote line 2") {
		t.Errorf("the stored form's report: %s, %q", st.State, st.Summary)
	}
	if diff := cmp.Diff(older.Summary, st.Summary); diff != "" {
		t.Errorf("Summary mismatch (-older +stored):\n%s", diff)
	}
	if diff := cmp.Diff(older.Records, st.Records); diff != "" {
		t.Errorf("Records mismatch (-older +stored):\n%s", diff)
	}
	if older.Diff == "" || older.Diff != st.Diff {
		t.Errorf("Diff of the older form:\n%s\nof the stored form:\n%s", older.Diff, st.Diff)
	}
}

// differingCase writes the first sample case's golden in form ("stored"
// or "older") with quote line 2 changed, runs the cases and returns the
// case's report.
func differingCase(t *testing.T, form string) golden.CaseReport {
	inSampleCopy(t)
	s := load(t, "cases")
	c := s.Cases[0]
	o := c.Build()
	data := o.Stored()
	if form == "older" {
		var b bytes.Buffer
		if err := json.Indent(&b, o.Bytes, "", "  "); err != nil {
			t.Fatal(err)
		}
		data = b.Bytes()
	}
	// The golden pins another quote line 2 than the build gives.
	lines := strings.Split(string(o.Bytes), `\n`)
	old := strings.Replace(string(data), lines[1], lines[1]+" (old)", 1)
	if old == string(data) {
		t.Fatalf("%s: quote line 2 %q not found in\n%s", form, lines[1], data)
	}
	testutil.WriteFile(t, c.Golden, old)
	return findCase(t, run(t, s, golden.Options{}), c.Name)
}

// TestOneGoldenReader: a golden file is read in one place, readGolden,
// which joins its line arrays (Pins); the summary, the diff, the records
// and review read what it returns, so no reader of the line form can be
// missed.
func TestOneGoldenReader(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), ".read()"); n > 0 {
			readers[f] = n
		}
	}
	if diff := cmp.Diff(map[string]int{"lines.go": 1}, readers); diff != "" {
		t.Errorf("golden files read outside readGolden (-want +got):\n%s", diff)
	}
}
