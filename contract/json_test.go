package contract

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
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

// TestSpecial8: a word's mask flags exactly the words with a byte that is
// not plain, and its lowest flag is the first such byte, for every byte
// value at every place, alone among plain bytes and beside another byte
// (a borrow from one byte must not hide or invent another).
func TestSpecial8(t *testing.T) {
	plainByte := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']'} {
		for at := range 8 {
			for c := range 256 {
				for _, other := range []int{-1, 0, 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0xff} {
					w := bytes.Repeat([]byte{fill}, 8)
					w[at] = byte(c)
					if other >= 0 {
						w[(at+1)%8] = byte(other)
					}
					first := -1
					for k, b := range w {
						if !plainByte(b) {
							first = k
							break
						}
					}
					m := special8(binary.LittleEndian.Uint64(w))
					switch {
					case first < 0 && m != 0, first >= 0 && m == 0:
						t.Fatalf("special8(%q) = %#x, first byte not plain %d", w, m, first)
					case first >= 0 && bits.TrailingZeros64(m)>>3 != first:
						t.Fatalf("special8(%q) = %#x flags byte %d first, want %d", w, m, bits.TrailingZeros64(m)>>3, first)
					}
				}
			}
		}
	}
}

// BenchmarkAppendString escapes a quote of 20 lines, in English and in
// Chinese: the figures beside special8.
func BenchmarkAppendString(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"en", "Lodging in Beijing is capped at 750 CNY per room-night here.\n"},
		{"zh", "北京住宿标准为每间夜七百五十元，自二〇二六年一月一日起执行。\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			q := strings.Repeat(c.line, 20)
			buf := make([]byte, 0, 2*len(q))
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				buf = appendString(buf[:0], q)
			}
		})
	}
}
