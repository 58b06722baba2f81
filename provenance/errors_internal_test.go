package provenance

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
)

// TestErrorView: Error is a diag.Diagnostic with a refusal's fields; its
// text and JSON shape are the ones it had before.
func TestErrorView(t *testing.T) {
	e := &Error{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: "p.yaml", Line: 3, Col: 2}, Code: CodePolicy,
		Message: "unknown key", Hint: diag.Fix("remove it")}, Op: "parse policy"}
	if got := e.Error(); got != "p.yaml:3:2: unknown key; remove it" {
		t.Errorf("Error() = %q", got)
	}
	// Without a path, the line alone is not printed.
	noPath := &Error{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Line: 3}, Code: CodeReplay, Message: "differs"}}
	if got := noPath.Error(); got != "differs" {
		t.Errorf("Error() = %q", got)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"code":"policy","op":"parse policy","path":"p.yaml","line":3,"col":2,"message":"unknown key","hint":"remove it"}`
	if string(b) != want {
		t.Errorf("MarshalJSON() = %s, want %s", b, want)
	}
	var back Error
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*e, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"line":"x"}`), &back); err == nil {
		t.Error("UnmarshalJSON accepted a line that is not a number")
	}
	if !errors.Is(e, ErrPolicy) || errors.Is(e, ErrRefused) || !errors.Is(e, ErrProvenance) {
		t.Error("a policy error matches ErrPolicy and ErrProvenance, not ErrRefused")
	}
}
