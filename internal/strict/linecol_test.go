package strict

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refLineCol is LineCol as it was, counting from the start of data at
// every call: the reference the cursor must agree with.
func refLineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
}

// checkCursor asks one cursor the positions of offs in turn, and LineCol
// each, and compares both with refLineCol.
func checkCursor(t *testing.T, data []byte, offs []int) {
	t.Helper()
	c := newCursor(data)
	for _, off := range offs {
		wl, wc := refLineCol(data, off)
		if l, col := c.pos(off); l != wl || col != wc {
			t.Fatalf("cursor.pos(%d) in %q after %v = %d:%d, want %d:%d", off, data, offs, l, col, wl, wc)
		}
		if l, col := LineCol(data, off); l != wl || col != wc {
			t.Fatalf("LineCol(%q, %d) = %d:%d, want %d:%d", data, off, l, col, wl, wc)
		}
	}
}

// TestCursorMatchesLineCol: on random texts of newlines, ASCII, valid and
// broken UTF-8, the cursor gives LineCol's answer for offsets asked in
// increasing order (a parser's), in any order, inside a character and
// outside the text.
func TestCursorMatchesLineCol(t *testing.T) {
	pieces := []string{"\n", "a", " ", "é", "日", "😀", "\xff", "\xe6\x97", "\r\n", "\x80"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b []byte
		for range rng.IntN(40) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		var offs []int
		for off := -1; off <= len(b)+1; off += 1 + rng.IntN(3) {
			offs = append(offs, off)
		}
		checkCursor(t, b, offs)
		rng.Shuffle(len(offs), func(i, j int) { offs[i], offs[j] = offs[j], offs[i] })
		checkCursor(t, b, offs)
	}
}

func FuzzCursor(f *testing.F) {
	f.Add([]byte("{\n  \"a\": \"日本\"\n}"), []byte{3, 9, 2, 200})
	f.Add([]byte("\xe6\x97\n😀"), []byte{1, 2, 3, 5, 0})
	f.Fuzz(func(t *testing.T, data, steps []byte) {
		offs := make([]int, len(steps))
		for i, s := range steps {
			offs[i] = int(s) - 2 // a few below 0, some past the end
		}
		checkCursor(t, data, offs)
	})
}

// TestParseJSONLinear: the slow path steps over each byte of the text
// once to position its nodes, however many nodes there are; counting
// from the start for each node, as it once did, scans about
// nodes × size / 2 bytes.
func TestParseJSONLinear(t *testing.T) {
	data := slowPathDoc(64 << 10)
	p := newJSONParser(data)
	if _, err := p.value(0); err != nil {
		t.Fatal(err)
	}
	if p.cur.scanned > len(data) {
		t.Errorf("positioning the nodes of a %d-byte text stepped over %d bytes; want at most the text's size", len(data), p.cur.scanned)
	}
}

// slowPathDoc is a JSON text of about n bytes that ParseJSON reads the
// slow way (its strings have escapes), with a node every few bytes and
// some text that is not ASCII.
func slowPathDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("{\"items\": [\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "  {\"id\": %d, \"text\": \"line\\nnext é\", \"ok\": true},\n", i)
	}
	b.WriteString("  null\n]}\n")
	return []byte(b.String())
}

// BenchmarkParseJSONSlow parses request-sized texts on the slow path,
// whose node positions once cost a count from the start of the text
// each, so the time grew with the square of the size.
func BenchmarkParseJSONSlow(b *testing.B) {
	for _, size := range []int{16 << 10, 128 << 10, 1 << 20} {
		data := slowPathDoc(size)
		if _, ok := fastJSON(data); ok {
			b.Fatal("the document takes the fast path")
		}
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
