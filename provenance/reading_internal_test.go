package provenance

import (
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
