package lint

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// TestFindingJSON: a Finding keeps the JSON shape it had before it became
// a view over diag.Diagnostic, writes text as it is (no \u003e), and reads
// back.
func TestFindingJSON(t *testing.T) {
	f := Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: "a.md", Line: 3, Col: 1}, Code: "overlap",
		Severity: diag.SeverityWarning, Message: "A >> B & <c>", Hint: diag.Fix("split it")},
		Related: []Location{{Path: "b.md", Line: 2}}}
	b, err := jsontext.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rule":"overlap","severity":"warning","path":"a.md","line":3,"col":1,"message":"A >> B & <c>","hint":"split it","related":[{"path":"b.md","line":2}]}`
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
	if err := json.Unmarshal([]byte(`{"severity":"fatal"}`), &back); err == nil {
		t.Error("UnmarshalJSON accepted severity fatal")
	}
}
