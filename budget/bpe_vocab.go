package budget

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"math/bits"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// noRank marks "no token": a byte pair, or a longer string, that is not in
// the vocabulary.
const noRank = ^uint32(0)

// vocab is one encoding's mergeable ranks: token bytes → rank, where the
// rank is both the token ID and the merge priority (lower merges first).
// It is an open-addressing hash table over one byte arena, built straight
// from the embedded .tiktoken file, so that loading is a single pass with a
// handful of allocations instead of one map entry and string per token.
type vocab struct {
	seed maphash.Seed
	// data holds every token's bytes, in rank order; token r is
	// data[off[r]:off[r+1]].
	data []byte
	off  []uint32
	// slots is the hash table: 0 is empty, otherwise the high 32 bits are
	// the key's hash (to skip most byte comparisons) and the low 32 bits
	// are rank+1.
	slots []uint64
	mask  uint64
	// maxLen is the longest token; longer strings are not looked up.
	maxLen int
	// single and pair rank every byte and every two-byte string directly,
	// since most lookups during merging are of these.
	single [256]uint32
	pair   []uint32 // 65536 entries, noRank where absent
}

// loadVocab parses an embedded .tiktoken file: one token a line, its bytes
// in standard base64, a space, and its rank. Ranks must run 0, 1, 2, …, as
// they do in OpenAI's files; that lets data be indexed by rank.
func loadVocab(file string) (*vocab, error) {
	raw, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	n := bytes.Count(raw, []byte{'\n'})
	v := &vocab{
		seed: maphash.MakeSeed(),
		data: make([]byte, 0, len(raw)*3/4), // decoded tokens are shorter than their lines
		off:  make([]uint32, 0, n+1),
	}
	for line := 1; len(raw) > 0; line++ {
		end := bytes.IndexByte(raw, '\n')
		if end < 0 {
			end = len(raw)
		}
		text := raw[:end]
		raw = raw[min(end+1, len(raw)):]
		if len(text) == 0 {
			continue
		}
		sp := bytes.IndexByte(text, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%s:%d: want \"BASE64 RANK\", got %q", file, line, text)
		}
		rank, ok := parseRank(text[sp+1:])
		if !ok || rank != len(v.off) {
			return nil, fmt.Errorf("%s:%d: rank %q is not %d: ranks must be 0, 1, 2, … in order", file, line, text[sp+1:], len(v.off))
		}
		start := len(v.data)
		dst := v.data[start : start+base64.StdEncoding.DecodedLen(sp)]
		k, err := base64.StdEncoding.Decode(dst, text[:sp])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token: %w", file, line, err)
		}
		v.data = v.data[:start+k]
		v.off = append(v.off, uint32(start))
		v.maxLen = max(v.maxLen, k)
	}
	v.off = append(v.off, uint32(len(v.data)))
	ntok := len(v.off) - 1

	// A table at most half full keeps probe sequences short.
	size := uint64(1) << bits.Len(uint(2*ntok))
	v.slots = make([]uint64, size)
	v.mask = size - 1
	v.pair = make([]uint32, 1<<16)
	for i := range v.pair {
		v.pair[i] = noRank
	}
	for i := range v.single {
		v.single[i] = noRank
	}
	for r := range ntok {
		tok := v.data[v.off[r]:v.off[r+1]]
		h := maphash.Bytes(v.seed, tok)
		i := h & v.mask
		for v.slots[i] != 0 {
			i = (i + 1) & v.mask
		}
		v.slots[i] = h&^0xffffffff | uint64(r+1)
		switch len(tok) {
		case 1:
			v.single[tok[0]] = uint32(r)
		case 2:
			v.pair[int(tok[0])<<8|int(tok[1])] = uint32(r)
		}
	}
	for b, r := range v.single {
		if r == noRank {
			return nil, fmt.Errorf("%s: byte %#02x has no token: every byte must have one", file, b)
		}
	}
	return v, nil
}

// parseRank parses a non-negative decimal that fits in 31 bits.
func parseRank(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// rank returns the rank of the token whose bytes are s, or noRank.
func (v *vocab) rank(s string) uint32 {
	switch len(s) {
	case 1:
		return v.single[s[0]]
	case 2:
		return v.pair[int(s[0])<<8|int(s[1])]
	}
	if len(s) > v.maxLen {
		return noRank
	}
	h := maphash.String(v.seed, s)
	tag := h &^ 0xffffffff
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		sl := v.slots[i]
		if sl == 0 {
			return noRank
		}
		if sl&^0xffffffff == tag {
			r := uint32(sl) - 1
			if string(v.data[v.off[r]:v.off[r+1]]) == s {
				return r
			}
		}
	}
}

// size returns the number of tokens.
func (v *vocab) size() int { return len(v.off) - 1 }

// token returns the bytes of token r.
func (v *vocab) token(r uint32) []byte { return v.data[v.off[r]:v.off[r+1]] }
