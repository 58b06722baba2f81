package contract

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendString checks that the contract's string encoding is exactly
// encoding/json's with HTML escaping off, so any JSON library reading a
// contract and writing it back the same way gives the same bytes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "a\"b\\c", "\n\r\t\b\f\x00\x1f", "\u2028\u2029", "\xff\xfe", "住宿 750 元", "🙂‍↔️"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	})
}
