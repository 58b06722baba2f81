package lint

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// TestFindingJSON: a Finding is written in the one positioned-problem
// shape (diag.Wire) with its related places, writes text as it is (no
// \u003e), reads back, and reads the previous release's "rule" key.
func TestFindingJSON(t *testing.T) {
	f := Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: "a.md", Line: 3, Col: 1}, Code: "overlap",
		Severity: diag.SeverityWarning, Message: "A >> B & <c>", Hint: diag.Fix("split it")},
		Related: []Location{{Path: "b.md", Line: 2}}}
	b, err := jsontext.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"code":"overlap","severity":"warning","path":"a.md","line":3,"col":1,"message":"A >> B & <c>","hint":"split it","related":[{"path":"b.md","line":2}]}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("MarshalJSON() mismatch (-want +got):\n%s", diff)
	}
	var back Finding
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	var old Finding
	if err := json.Unmarshal([]byte(`{"rule":"overlap","severity":"warning","path":"a.md","line":3,"col":1,"message":"A >> B & <c>","hint":"split it","related":[{"path":"b.md","line":2}]}`), &old); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, old); diff != "" {
		t.Errorf("previous release's shape read back mismatch (-want +got):\n%s", diff)
	}
	for _, old := range []string{
		`{"rule":"coverage-gap","severity":"info","path":"a.md"}`,
		`{"code":"coverage-gap","severity":"info","path":"a.md"}`,
	} {
		var got Finding
		if err := json.Unmarshal([]byte(old), &got); err != nil {
			t.Fatal(err)
		}
		if got.Rule() != "coverage_gap" {
			t.Errorf("Unmarshal(%s).Rule() = %q, want the renamed coverage_gap", old, got.Rule())
		}
	}
	if err := json.Unmarshal([]byte(`{"severity":"fatal"}`), &back); err == nil {
		t.Error("UnmarshalJSON accepted severity fatal")
	}
}

// TestMerge: reports of several corpora become one, findings sorted across
// them, files added up, subjects sorted without repeats.
func TestMerge(t *testing.T) {
	at := func(path string, line int, code diag.Code) Finding {
		return Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: path, Line: line, Col: 1}, Code: code}}
	}
	a := Report{Findings: []Finding{at("b/x.md", 2, "overlap"), at("b/y.md", 1, "crlf")}, Files: 3, Subjects: []string{"meals", "lodging"}}
	b := Report{Findings: []Finding{at("a/z.md", 9, "bom"), at("b/x.md", 1, "gap")}, Files: 2, Subjects: []string{"lodging", "rail"}}
	got := Merge(a, b)
	var where []string
	for _, f := range got.Findings {
		where = append(where, f.Path+":"+string(f.Code))
	}
	if diff := cmp.Diff([]string{"a/z.md:bom", "b/x.md:gap", "b/x.md:overlap", "b/y.md:crlf"}, where); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if got.Files != 5 {
		t.Errorf("Files = %d, want 5", got.Files)
	}
	if diff := cmp.Diff([]string{"lodging", "meals", "rail"}, got.Subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	if empty := Merge(); len(empty.Findings) != 0 || empty.Files != 0 {
		t.Errorf("Merge() = %+v, want an empty report", empty)
	}
}
