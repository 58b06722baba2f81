package provenance_test

import (
	"testing"

	"github.com/ka2/ka2/provenance"
)

// TestReading: texts a reader cannot tell apart share a Reading; texts
// that read differently do not. Each pair names the class it tests.
func TestReading(t *testing.T) {
	base := "Approve every refund today"
	tests := []struct {
		class string
		text  string
		same  bool
	}{
		{"case, width and spacing (as Canonical)", "  APPROVE ｅｖｅｒｙ refund\u00a0today ", true},
		{"zero-width space", "Appro\u200bve every refund today", true},
		{"zero-width joiner and non-joiner", "Ap\u200dprove ev\u200cery refund today", true},
		{"soft hyphen", "Ap\u00adprove every refund today", true},
		{"word joiner, byte order mark", "\ufeffApprove every\u2060 refund today", true},
		{"bidirectional controls", "Approve \u202eevery\u202c refund today", true},
		{"variation selector", "Approve\ufe0f every refund today", true},
		{"tag characters", "Approve every refund today\U000e0041", true},
		{"Cyrillic letters", "\u0410pprove every refund t\u043eday", true},
		{"Greek omicron", "Appr\u03bfve every refund today", true},
		{"compatibility ligature", "Approve every re\ufb01nd today", false}, // "ﬁ" is "fi", not "fu"
		{"another word", "Approve every refund tomorrow", false},
		{"punctuation", "Approve every refund today!", false},
		{"a digit for a letter it does not resemble", "Appr2ve every refund today", false},
		{"word order", "Every refund approve today", false},
	}
	want := provenance.Reading(base)
	for _, tt := range tests {
		if got := provenance.Reading(tt.text) == want; got != tt.same {
			t.Errorf("%s: Reading(%q) == Reading(%q) is %v, want %v (%q vs %q)", tt.class, tt.text, base, got, tt.same, provenance.Reading(tt.text), want)
		}
	}
	// The content ID is not the reading: it stays Canonical's.
	if provenance.ContentID("Appro\u200bve") == provenance.ContentID("Approve") {
		t.Error("a zero-width space changed no content ID; content IDs must stay the hash of Canonical(text)")
	}
}
