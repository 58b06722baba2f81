package golden_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ka2/ka2/golden"
)

// TestParseShard: "K/N" with 1 ≤ K ≤ N, written back as it was read; the
// whole suite is "all"; anything else is an error that shows the form.
func TestParseShard(t *testing.T) {
	for _, s := range []string{"1/1", "2/4", "4/4", "10/12"} {
		sh, err := golden.ParseShard(s)
		if err != nil {
			t.Errorf("ParseShard(%q) error = %v", s, err)
			continue
		}
		want := s
		if sh.All() {
			want = "all"
		}
		if sh.String() != want {
			t.Errorf("ParseShard(%q).String() = %q, want %q", s, sh.String(), want)
		}
	}
	for _, s := range []string{"", "2", "0/4", "5/4", "1/0", "-1/4", "a/b", "1/4/2", " 1/4"} {
		if sh, err := golden.ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", s, sh)
		} else if want := `shard "` + s + `": write K/N with 1 ≤ K ≤ N, e.g. 2/4 for the second of four`; err.Error() != want {
			t.Errorf("ParseShard(%q) error = %q, want %q", s, err, want)
		}
	}
	if (golden.Shard{}).String() != "all" {
		t.Error("the zero Shard is not the whole suite")
	}
}

// TestReadReportStrict: a shard is read through the strict decoder. Keys
// are written exactly (encoding/json took "FORMAT" for "format", and of
// "format" and "FORMAT" kept the last), each once, with values of their
// JSON types; a field with a known set of values holds one of them, so a
// shard cannot put markup where a report draws a class name. Each
// problem names its line and column.
func TestReadReportStrict(t *testing.T) {
	const head = `{"format": "ka2-regress-report-v1", "summary": {}, "unreferenced": [], "reject_unreferenced": false, `
	caseWith := func(fields string) string {
		return head + `"files": [{"path": "c.yaml", "cases": [{"name": "a", "line": 2, "status": "fail", "golden": "g", "state": "differs", "outcome": "contract"` + fields + `}]}]}`
	}
	tests := []struct {
		name, data, want string
	}{
		{"a key in upper case", `{"FORMAT": "ka2-regress-report-v1", "files": []}`,
			`the report at 1:2: unknown key "FORMAT" in the report; did you mean format? (keys are written exactly, in lower case)`},
		// An unknown key here; once internal/strict reads case variants
		// as repeated keys, a repeated one: refused at the second either way.
		{"a key twice, in two cases", `{"format": "ka2-regress-report-v1", "Format": "other", "files": []}`,
			`the report at 1:37: |"Format"`},
		{"a nested key in another case", caseWith(`, "Status": "pass"`),
			`a key of files[0].cases[0]: key "Status" differs only in case from "status"`},
		{"a record key in another case", caseWith(`, "records": [{"change": "same", "CHANGE": "added"}]`),
			`a key of files[0].cases[0].records[0]: key "CHANGE" differs only in case from "change"`},
		{"a change outside its set", caseWith(`, "records": [{"change": "\"><script>document.title='PWNED-change'</script>"}]`),
			`the report.files[0].cases[0].records[0].change: "\"><script>document.title='PWNED-change'</script>" is not one of same, added, removed, changed`},
		{"a changed field outside its set", caseWith(`, "records": [{"change": "changed", "fields": ["quote", "<b>"]}]`),
			`records[0].fields[1]: "<b>" is not one of lines, version, valid_from, valid_until, unit, quote`},
		{"a status outside its set", strings.Replace(caseWith(""), `"status": "fail"`, `"status": "passed"`, 1),
			`the report.files[0].cases[0].status: "passed" is not one of pass, fail`},
		{"a state outside its set", strings.Replace(caseWith(""), `"state": "differs"`, `"state": "x"`, 1),
			`.state: "x" is not one of match`},
		{"an outcome outside its set", strings.Replace(caseWith(""), `"outcome": "contract"`, `"outcome": "<i>"`, 1),
			`.outcome: "<i>" is not one of contract, usage, bad_input`},
		{"a budget part's kind outside its set", caseWith(`, "budget": {"counter": "codepoint", "limit": 1, "total": 1, "parts": [{"kind": "evidence\" onmouseover=\"x", "cost": 1}]}`),
			`budget.parts[0].kind: "evidence\" onmouseover=\"x" is not one of instruction`},
		{"a counter outside its set", caseWith(`, "budget": {"counter": "words", "limit": 1, "total": 1, "parts": []}`),
			`budget.counter: "words" is not one of codepoint, cl100k_base, o200k_base`},
		{"a number where a string goes", caseWith(`, "summary": 3`), `.summary: want a string, not a JSON number`},
		{"a string where a number goes", strings.Replace(caseWith(""), `"line": 2`, `"line": "2"`, 1), `.line: want a whole number, not a JSON string`},
		{"an object where a list goes", head + `"files": {}}`, `the report.files: want a list, not a JSON object`},
		{"a number where a file goes", head + `"files": [{"path": "a", "cases": []}, 1]}`, `the report.files[1]: want an object, not a JSON number`},
		{"a file's key in another case, after a number", head + `"files": [7, {"Path": "a"}]}`, `files[0]: want an object, not a JSON number (and 1 more problem)`},
		{"a file's key in another case", head + `"files": [{"Path": "a"}]}`, `unknown key "Path" in the report.files[0]; did you mean path?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := golden.ReadReport(strings.NewReader(tt.data))
			for _, want := range strings.Split(tt.want, "|") {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("ReadReport() = %v, want an error holding %q", err, want)
				}
			}
		})
	}
	// Every value in its set, every key as written: read.
	ok := caseWith(`, "records": [{"change": "changed", "fields": ["quote"]}], "budget": {"counter": "o200k_base", "limit": 1, "total": 1, "parts": [{"kind": "evidence", "cost": 1}]}`)
	r, err := golden.ReadReport(strings.NewReader(ok))
	if err != nil {
		t.Fatalf("ReadReport() = %v", err)
	}
	if c := r.Files[0].Cases[0]; c.Records[0].Change != golden.RecordChanged || c.Budget.Parts[0].Kind != "evidence" {
		t.Errorf("read %+v", c)
	}
}

// TestReadReportPositions: files are checked one at a time, and each
// problem still names its line and column in the whole text, on the
// file's first line or below it.
func TestReadReportPositions(t *testing.T) {
	r := &golden.Report{Format: golden.ReportFormat, Unreferenced: []golden.UnreferencedGolden{}}
	for _, p := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		r.Files = append(r.Files, golden.FileReport{Path: p, Cases: []golden.CaseReport{{Name: "x", Line: 2, Status: golden.StatusPass,
			State: golden.StateMatch, Outcome: "contract", Records: []golden.RecordChange{{Change: golden.RecordSame}}}}})
	}
	var b strings.Builder
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	indented := b.String()
	// The second file's change, indented; and the same on one line.
	i := strings.Index(indented, `"b.yaml"`)
	indented = indented[:i] + strings.Replace(indented[i:], `"change": "same"`, `"change": "odd"`, 1)
	compact := strings.Join(strings.Fields(indented), " ")
	for _, data := range []string{indented, compact} {
		off := strings.Index(data, `"odd"`)
		line := strings.Count(data[:off], "\n") + 1
		col := off - strings.LastIndex(data[:off], "\n")
		_, err := golden.ReadReport(strings.NewReader(data))
		want := fmt.Sprintf("the report at %d:%d: the report.files[1].cases[0].records[0].change: \"odd\" is not one of", line, col)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadReport() = %v, want %q…", err, want)
		}
	}
}

// FuzzReadReport: reading a shard never panics, and a report it accepts
// is written and read back to the same bytes.
func FuzzReadReport(f *testing.F) {
	for _, s := range []string{
		`{"format": "ka2-regress-report-v1", "files": []}`,
		`{"FORMAT": "ka2-regress-report-v1", "files": []}`,
		`{"format": "ka2-regress-report-v1", "files": [7, {"Path": "a"}]}`,
		`{"format": "ka2-regress-report-v1", "files": [{"path": "c.yaml", "cases": [{"name": "a", "status": "fail", "state": "differs", "outcome": "contract", "records": [{"change": "changed", "fields": ["quote"]}]}]}]}`,
		`{"format": "ka2-regress-report-v1", "files": [{"path": "c.yaml", "cases": [{"records": [{"change": "<b>"}]}]}]}`,
		`[]`, `null`, `{"files": {}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		r, err := golden.ReadReport(strings.NewReader(data))
		if err != nil {
			return
		}
		var a, b strings.Builder
		if err := r.WriteJSON(&a); err != nil {
			t.Fatal(err)
		}
		back, err := golden.ReadReport(strings.NewReader(a.String()))
		if err != nil {
			t.Fatalf("a report read and written again is refused: %v\n%s", err, a.String())
		}
		if err := back.WriteJSON(&b); err != nil || a.String() != b.String() {
			t.Fatalf("read back differently:\n%s\n%s", a.String(), b.String())
		}
	})
}
