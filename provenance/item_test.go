package provenance_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Hello World", "hello world"},
		{"  Hello\t\n  World  ", "hello world"},
		{"ＨＥＬＬＯ　ｗｏｒｌｄ", "hello world"}, // full width and ideographic space (NFKC)
		{"Straße", "strasse"},          // full case folding
		{"ﬁle", "file"},                // ligature (NFKC)
		{"e\u0301", "é"},               // composed (NFKC)
		{"住宿\u00a0标准", "住宿 标准"},        // no-break space is white space after NFKC
		{"", ""},
		{" \n\t", ""},
	}
	for _, tt := range tests {
		if got := provenance.Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestContentIDIsStable pins content IDs: the same on every run and
// machine, the hex SHA-256 of the canonical form.
func TestContentIDIsStable(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		// sha256("hello world")
		{"Hello   World", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"},
		{"HELLO WORLD\n", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"},
		// sha256("")
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for _, tt := range tests {
		if got := provenance.ContentID(tt.text); got != tt.want {
			t.Errorf("ContentID(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
	if provenance.ExactDigest("Hello World") == provenance.ExactDigest("hello world") {
		t.Error("ExactDigest ignores case")
	}
}

// TestKeysAreDeterministic: two stores fed the same calls hold items with
// the same keys, whatever the clock says.
func TestKeysAreDeterministic(t *testing.T) {
	var keys [2][]string
	for i := range keys {
		clock := time.Unix(int64(i)*1000, 0)
		s := provenance.NewStore(nil, provenance.WithClock(func() time.Time { return clock }))
		tool := add(t, s, provenance.KindToolOutput, "tool:order_lookup", toolText)
		ev, err := s.Transform(tool, provenance.KindEvidence)
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = []string{tool.Key, ev.Key}
	}
	if keys[0][0] != keys[1][0] || keys[0][1] != keys[1][1] {
		t.Errorf("keys differ between stores: %v", keys)
	}
	if keys[0][0] == keys[0][1] {
		t.Error("an item and its promotion share a key")
	}
}

func TestParseKindAndSource(t *testing.T) {
	for _, k := range provenance.Kinds() {
		if got, err := provenance.ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%s) = %s, %v", k, got, err)
		}
	}
	if _, err := provenance.ParseKind("Instruction"); err == nil {
		t.Error("ParseKind is case-insensitive")
	}
	for _, s := range []string{"system", "user", "corpus:travel-v2", "tool:order_lookup", "memory:prefs.v1"} {
		if err := provenance.CheckSource(s); err != nil {
			t.Errorf("CheckSource(%s) = %v", s, err)
		}
	}
	for _, s := range []string{"", "System", "tool:", "tool:Order", "web:x", "corpus:a b", "tool:x:y"} {
		if err := provenance.CheckSource(s); err == nil {
			t.Errorf("CheckSource(%q) accepted", s)
		}
	}
}

// TestRefJSON: a reference round-trips through the contract's field names;
// open-ended validity and no unit are left out.
func TestRefJSON(t *testing.T) {
	refs := []provenance.Ref{
		{SourceID: "travel-v2", Version: "v2", Lang: "en", Lines: corpus.Range{Start: 1, End: 3},
			ValidFrom: corpus.MustDate(2026, 1, 1), ValidUntil: corpus.MustDate(2027, 1, 1), Unit: "CNY per room-night"},
		{SourceID: "tool:order_lookup", Version: "0123456789ab", Lines: corpus.Range{Start: 1, End: 1}},
	}
	wants := []string{
		`{"source_id":"travel-v2","version":"v2","lang":"en","valid_from":"2026-01-01","valid_until":"2027-01-01","unit":"CNY per room-night","line_start":1,"line_end":3}`,
		`{"source_id":"tool:order_lookup","version":"0123456789ab","line_start":1,"line_end":1}`,
	}
	for i, r := range refs {
		b, err := json.Marshal(r)
		if err != nil || string(b) != wants[i] {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", r, b, err, wants[i])
		}
		var back provenance.Ref
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", b, back, err, r)
		}
	}
	var r provenance.Ref
	if err := json.Unmarshal([]byte(`{"source_id":"a","valid_from":"2026-02-30"}`), &r); err == nil {
		t.Error("Unmarshal accepted 2026-02-30")
	}
	if err := json.Unmarshal([]byte(`[]`), &r); err == nil {
		t.Error("Unmarshal accepted an array")
	}
}
