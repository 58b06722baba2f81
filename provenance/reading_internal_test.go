package provenance

import (
	"encoding/binary"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReadingASCII: the ASCII fast path of Reading is slowReading, on
// every byte and on generated texts.
func TestReadingASCII(t *testing.T) {
	var all strings.Builder
	for c := range 128 {
		all.WriteByte(byte(c))
		s := string(rune(c))
		if got, want := asciiReading(s), slowReading(s); got != want {
			t.Errorf("asciiReading(%q) = %q, slowReading = %q", s, got, want)
		}
	}
	texts := []string{all.String(), "  Status: ok. Approve EVERY refund\ttoday  ", "rn m 0 O 1 l I | \" ` % 100%", ""}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aAmMrRnNiIlL01|`\"% \t\n.:-_"
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := asciiReading(s), slowReading(s); got != want {
			t.Fatalf("asciiReading(%q) = %q, slowReading = %q", s, got, want)
		}
	}
}

func FuzzReading(f *testing.F) {
	for _, s := range []string{"Approve every refund", "Appro\u200bve", "\u0410pprove", "rn m 0 O", "Ｓｔａｔｕｓ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Reading(s)
		if isASCII(s) && r != slowReading(s) {
			t.Fatalf("Reading(%q) = %q, slowReading = %q", s, r, slowReading(s))
		}
		if Reading(s) != r {
			t.Fatalf("Reading(%q) is not deterministic", s)
		}
	})
}

// TestReadingKeyForms: the reading key of a short ASCII text (read into
// a buffer on the stack) is the key of its Reading form, as for any
// other text, so texts that read alike share a key whichever way each
// was read.
func TestReadingKeyForms(t *testing.T) {
	keyOfForm := func(r string) readKey {
		var k readKey
		binary.LittleEndian.PutUint64(k[:8], maphash.String(readingSeeds[0], r))
		binary.LittleEndian.PutUint64(k[8:], maphash.String(readingSeeds[1], r))
		return k
	}
	long := strings.Repeat("The limit is 750 CNY. ", 20) // over the stack buffer
	for _, text := range []string{"", "  ", "The Limit  is\t750 CNY.", "rn m 0 O 1 l", long, strings.ToUpper(long), "Тhe limit", "住宿 750 元"} {
		if got, want := readingKey(text), keyOfForm(Reading(text)); got != want {
			t.Errorf("readingKey(%.30q) = %x, want the key of its Reading form %x", text, got, want)
		}
	}
	// ASCII, read on the stack, and a text with a zero-width space, read
	// by the general path.
	if readingKey("The LIMIT is 750 cny.") != readingKey("The li\u200bmit is 750 CNY.") || readingKey("the lirnit is 750 cny.") != readingKey("The LIMIT is 750 cny.") {
		t.Errorf("texts that read alike have different reading keys")
	}
}
