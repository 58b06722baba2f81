package provenance

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// slowCanonical is Canonical without the ASCII fast path.
func slowCanonical(text string) string {
	s := cases.Fold().String(norm.NFKC.String(text))
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// FuzzCanonicalFastPath: the ASCII fast path gives the same canonical form
// as NFKC and full case folding.
func FuzzCanonicalFastPath(f *testing.F) {
	for _, s := range []string{"", "Hello  World", "\t\v\f\r\n x ", "A-104: OK.", "\x00\x7f~", "Straße", "ＡＢＣ", "  ", strings.Repeat("Ab \t", 700)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := slowCanonical(s)
		if got := Canonical(s); got != want {
			t.Fatalf("Canonical(%q) = %q, want %q", s, got, want)
		}
		if id, empty := contentID(s); id != idOf(want) || empty != (want == "") {
			t.Fatalf("contentID(%q) = %s, %v; want %s, %v", s, id, empty, idOf(want), want == "")
		}
	})
}

// TestDefaultPolicySpellsOutDefaults: the embedded policy lists the same
// tool_result_ok parameters that a policy leaving them out gets.
func TestDefaultPolicySpellsOutDefaults(t *testing.T) {
	tr := DefaultPolicy().transition(KindToolOutput, KindEvidence)
	if tr == nil {
		t.Fatal("no tool_output → evidence transition")
	}
	var got *toolResultOK
	for _, v := range tr.validators {
		if v, ok := v.(*toolResultOK); ok {
			got = v
		}
	}
	want := newToolResultOK(defaultFailureMarkers, defaultStatusFields, defaultOKFields, defaultOKStatuses, defaultErrorFields)
	if got == nil || fmt.Sprint(*got) != fmt.Sprint(*want) {
		t.Errorf("default policy's tool_result_ok = %+v, want %+v", got, want)
	}
}
