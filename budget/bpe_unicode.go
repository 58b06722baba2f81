package budget

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:generate go run ../internal/tools/ucdgen -o ucd_tables.go $UCD

// Character classes of the pre-tokenizer patterns, as bits, with the
// definitions of the engine that OpenAI's tiktoken runs its patterns on
// (the Rust regex crate, Unicode 16.0.0): \p{…} is the General_Category and
// \s is the White_Space property. The tables are generated from the
// Unicode Character Database (ucd_tables.go), not taken from Go's unicode
// package, which is Unicode 15.0.0 at Go 1.26: a code point added in 15.1
// or 16.0 is a letter or a mark to tiktoken and would be punctuation here.
const (
	clsL uint8 = 1 << iota // \p{L}
	clsN                   // \p{N}
	clsS                   // \s
	clsU                   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k's "upper" run
	clsW                   // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k's "lower" run
)

// runeClasses maps every code point to its class bits through a two-level
// table: 256-rune blocks, with identical blocks shared. Lookups cost two
// loads, where the unicode package's binary searches cost many.
type runeClasses struct {
	ascii  [utf8.RuneSelf]uint8
	index  [(unicode.MaxRune + 1) >> 8]uint16
	blocks []uint8
}

// classes is built on first use by the first encoder that needs it.
var classes = sync.OnceValue(buildRuneClasses)

func buildRuneClasses() *runeClasses {
	flat := make([]uint8, unicode.MaxRune+1)
	set := func(t *unicode.RangeTable, bits uint8) {
		for _, r := range t.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
				flat[c] |= bits
			}
		}
		for _, r := range t.R32 {
			for c := r.Lo; c <= r.Hi; c += r.Stride {
				flat[c] |= bits
			}
		}
	}
	// \p{L} is the union of the five letter categories (ucdgen checks it).
	set(ucdLu, clsL|clsU)
	set(ucdLt, clsL|clsU)
	set(ucdLl, clsL|clsW)
	set(ucdLm, clsL|clsU|clsW)
	set(ucdLo, clsL|clsU|clsW)
	set(ucdM, clsU|clsW)
	set(ucdN, clsN)
	set(ucdWhiteSpace, clsS)

	rc := &runeClasses{}
	copy(rc.ascii[:], flat)
	seen := make(map[string]uint16)
	for b := range rc.index {
		block := flat[b<<8 : (b+1)<<8]
		id, ok := seen[string(block)]
		if !ok {
			id = uint16(len(rc.blocks) >> 8)
			rc.blocks = append(rc.blocks, block...)
			seen[string(block)] = id
		}
		rc.index[b] = id
	}
	return rc
}

// of returns the class bits of r.
func (rc *runeClasses) of(r rune) uint8 {
	return rc.blocks[int(rc.index[r>>8])<<8|int(r&0xff)]
}

// at decodes the rune at s[i] and returns it with its class bits and size.
// s must be valid UTF-8 (see validView), so r is never a decoding error.
func (rc *runeClasses) at(s string, i int) (r rune, cls uint8, size int) {
	if b := s[i]; b < utf8.RuneSelf {
		return rune(b), rc.ascii[b], 1
	}
	r, size = utf8.DecodeRuneInString(s[i:])
	return r, rc.of(r), size
}
