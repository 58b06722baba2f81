package budget

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character classes of the pre-tokenizer patterns, as bits. They are the
// classes tiktoken-go's regexp2 patterns test, with the same definitions:
// \p{…} is Go's unicode category table and \s is unicode.IsSpace.
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
	set(unicode.L, clsL)
	set(unicode.N, clsN)
	set(unicode.White_Space, clsS) // unicode.IsSpace is White_Space, also in Latin-1
	set(unicode.Lu, clsU)
	set(unicode.Lt, clsU)
	set(unicode.Ll, clsW)
	set(unicode.Lm, clsU|clsW)
	set(unicode.Lo, clsU|clsW)
	set(unicode.M, clsU|clsW)

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
