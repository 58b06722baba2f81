package contract

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ka2/ka2/corpus"
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

// TestAppendDate: a date is written as the JSON string of its text, from
// the first year to the last.
func TestAppendDate(t *testing.T) {
	for _, text := range []string{"0001-01-01", "1999-12-31", "2024-02-29", "2026-09-14", "9999-12-31"} {
		d, err := corpus.ParseDate(text)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(appendDate(nil, d)), string(appendString(nil, d.String())); got != want {
			t.Errorf("appendDate(%s) = %s, want %s", text, got, want)
		}
	}
}
