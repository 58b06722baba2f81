package provenance

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
	"unicode"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Reading returns the form in which the ledger compares contents: two
// texts a reader cannot tell apart share it. It is Canonical's form (NFKC,
// full case folding, white space collapsed: width, compatibility forms,
// case and spacing never make two texts differ), and in addition:
//
//   - default-ignorable code points are dropped (zero-width space and
//     joiners, soft hyphen, word joiner, byte order mark, bidirectional
//     controls, variation selectors, tags): they draw nothing;
//   - each letter is replaced by its prototype in Unicode's confusables
//     data, as UTS #39's skeleton does (Cyrillic "А" reads as Latin "A",
//     Greek "ο" as "o"; also "rn" and "m", "0" and "O", "1" and "l"), and
//     the result is case-folded again.
//
// Punctuation other than confusable forms, letters that do not look
// alike, digits other than 0 and 1, and the order of words still make two
// texts differ. A content ID stays the hash of Canonical(text): Reading
// decides only whether content is the same content for the protected-type
// and wrapped-content checks.
func Reading(text string) string {
	if isASCII(text) {
		return asciiReading(text)
	}
	return slowReading(text)
}

// slowReading is Reading for any text.
func slowReading(text string) string {
	s := strings.Map(dropIgnorable, text)
	s = Canonical(s)
	s = confusables.Skeleton(s)
	f := cases.Fold() // its own, as in Canonical
	s = f.String(norm.NFKC.String(s))
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// asciiReadings holds slowReading of each ASCII byte that is not white
// space. For ASCII text every step of Reading works one code point at a
// time (no ASCII code point is default-ignorable, its confusable
// prototypes combine with nothing, NFKC and folding of them are per code
// point), so Reading is Canonical's form with each byte replaced by its
// entry; TestReadingASCII checks that against slowReading.
var asciiReadings = func() (t [128]string) {
	for c := range t {
		t[c] = slowReading(string(rune(c)))
	}
	return t
}()

// asciiReading is Reading for ASCII text.
func asciiReading(text string) string {
	return string(appendASCIIReading(make([]byte, 0, len(text)), text))
}

// appendASCIIReading appends asciiReading(text) to b.
func appendASCIIReading(b []byte, text string) []byte {
	start := len(b)
	space := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if asciiSpace[c] {
			space = len(b) > start
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, asciiReadings[c]...)
	}
	return b
}

// readingKey is the ledger's key of text: a 128-bit hash of Reading(text),
// two maphash sums under seeds of this process. The key never leaves the
// process (content IDs, which do, stay SHA-256), so a keyed hash serves:
// against hex SHA-256, BenchmarkSelectBuild/codepoint (10k sources, where
// the cache misses) went from a median of 38–41 µs to 34–38 µs, side by
// side in one run; and a collision (2^-64 per pair, for a caller who
// cannot know the seeds) would only refuse an item, never admit one.
func readingKey(text string) readKey {
	if isASCII(text) && len(text) <= 256 {
		// A short ASCII text reads into a buffer on the stack (a
		// transform's check of a tool result; a build's question and
		// scope get theirs from shortForms): `go test ./provenance -run
		// '^$' -bench 'Forms/reading-key'` (a question), four runs on
		// 2026-12-02, 155–187 ns without an allocation against 445–718
		// ns and 4 allocations hashing Reading's string.
		var stack [2 * 256]byte
		return readKeyOf(appendASCIIReading(stack[:0], text))
	}
	r := Reading(text)
	var k readKey
	binary.LittleEndian.PutUint64(k[:8], maphash.String(readingSeeds[0], r))
	binary.LittleEndian.PutUint64(k[8:], maphash.String(readingSeeds[1], r))
	return k
}

// readKeyOf is the reading key of a text whose Reading is r.
func readKeyOf(r []byte) readKey {
	var k readKey
	binary.LittleEndian.PutUint64(k[:8], maphash.Bytes(readingSeeds[0], r))
	binary.LittleEndian.PutUint64(k[8:], maphash.Bytes(readingSeeds[1], r))
	return k
}

// readKey is a reading key (see readingKey): a value, so that the ledger's
// map and a prepared item hold it without a string of their own.
type readKey [16]byte

var readingSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// dropIgnorable maps a default-ignorable code point (Unicode's derived
// property Default_Ignorable_Code_Point: format characters, the Other_
// property and variation selectors, less the exceptions the derivation
// makes) to -1, which strings.Map drops.
func dropIgnorable(r rune) rune {
	if r < 0x80 {
		return r
	}
	switch {
	case r >= 0xFFF9 && r <= 0xFFFB, r >= 0x13430 && r <= 0x1343F:
		return r // interlinear annotations and Egyptian format controls are excepted
	case unicode.Is(unicode.Prepended_Concatenation_Mark, r), unicode.IsSpace(r):
		return r
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return -1
	}
	return r
}
