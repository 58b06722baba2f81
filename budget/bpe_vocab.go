package budget

import (
	"bytes"
	"encoding/base64"
	"fmt"
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
	// data holds every token's bytes, in rank order; token r is
	// data[off[r]:off[r+1]].
	data []byte
	off  []uint32
	// slots is the hash table, with linear probing. A slot holds a token's
	// first eight bytes, so that tokens of up to eight bytes (most of those
	// looked up while merging) are matched without touching data.
	slots []slot
	mask  uint64
	// ctrl has one byte per slot: 0 when the slot is empty, otherwise 0x80
	// and seven bits of the key's hash. Most lookups while merging miss,
	// and ctrl, an eighth the size of slots, answers them from cache
	// without loading a slot.
	ctrl []uint8
	// maxLen is the longest token; longer strings are not looked up.
	maxLen int
	// single and pair rank every byte and every two-byte string directly,
	// since most lookups during merging are of these.
	single [256]uint32
	pair   []uint32 // 65536 entries, noRank where absent
	// char3 ranks every three-byte UTF-8 sequence (lead byte E0–EF and two
	// continuation bytes) directly: completing a CJK character is the most
	// frequent lookup in Chinese, Japanese and Korean text.
	char3 []uint32 // 65536 entries, noRank where absent
}

// slot is one entry of vocab's hash table.
type slot struct {
	head uint64 // the first eight bytes, little-endian, zero-padded
	rank uint32
	n    uint32 // the token's length
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
		if start+base64.StdEncoding.DecodedLen(sp) > cap(v.data) {
			return nil, fmt.Errorf("%s:%d: token longer than its line allows", file, line)
		}
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

	// A table at most two-thirds full keeps probe sequences short.
	size := uint64(1) << bits.Len(uint(3*ntok/2))
	v.slots = make([]slot, size)
	v.ctrl = make([]uint8, size)
	v.mask = size - 1
	v.pair = make([]uint32, 1<<16)
	v.char3 = make([]uint32, 1<<16)
	for i := range v.pair {
		v.pair[i] = noRank
		v.char3[i] = noRank
	}
	for i := range v.single {
		v.single[i] = noRank
	}
	for r := range ntok {
		tok := v.data[v.off[r]:v.off[r+1]]
		head, h := hashKey(tok)
		i := h & v.mask
		for v.ctrl[i] != 0 {
			i = (i + 1) & v.mask
		}
		v.ctrl[i] = ctrlTag(h)
		v.slots[i] = slot{head: head, rank: uint32(r), n: uint32(len(tok))}
		switch len(tok) {
		case 1:
			v.single[tok[0]] = uint32(r)
		case 2:
			v.pair[int(tok[0])<<8|int(tok[1])] = uint32(r)
		case 3:
			if i, ok := char3Index(string(tok)); ok {
				v.char3[i] = uint32(r)
			}
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
	case 3:
		if i, ok := char3Index(s); ok {
			return v.char3[i]
		}
	}
	if len(s) > v.maxLen {
		return noRank
	}
	head, h := hashKey(s)
	tag := ctrlTag(h)
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		c := v.ctrl[i]
		if c == 0 {
			return noRank
		}
		if c != tag {
			continue
		}
		sl := &v.slots[i]
		if sl.head == head && int(sl.n) == len(s) {
			if len(s) <= 8 || string(v.data[v.off[sl.rank]+8:v.off[sl.rank+1]]) == s[8:] {
				return sl.rank
			}
		}
	}
}

// ctrlTag is the ctrl byte of a key with hash h: high bits, which the
// slot index (low bits) does not use.
func ctrlTag(h uint64) uint8 { return uint8(h>>57) | 0x80 }

// char3Index returns the index in vocab.char3 of a three-byte string that
// has the shape of a three-byte UTF-8 sequence.
func char3Index(s string) (int, bool) {
	b0, b1, b2 := s[0], s[1], s[2]
	if b0&0xf0 != 0xe0 || b1&0xc0 != 0x80 || b2&0xc0 != 0x80 {
		return 0, false
	}
	return int(b0&0x0f)<<12 | int(b1&0x3f)<<6 | int(b2&0x3f), true
}

// hashKey returns the first eight bytes of s (little-endian, zero-padded)
// and a hash of all of s. Bytes past the eighth enter the hash through the
// last eight bytes, which overlap the head when s is shorter than sixteen;
// that is enough to spread the vocabulary's long tokens.
func hashKey[S ~string | ~[]byte](s S) (head, h uint64) {
	n := len(s)
	if n >= 8 {
		head = le64(s)
		h = head*0x9e3779b97f4a7c15 ^ le64(s[n-8:])*0xc2b2ae3d27d4eb4f
	} else {
		switch {
		case n >= 4: // two overlapping loads cover bytes 0 to n-1
			head = uint64(le32(s)) | uint64(le32(s[n-4:]))<<(8*(n-4))
		case n == 3:
			head = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16
		case n == 2:
			head = uint64(s[0]) | uint64(s[1])<<8
		case n == 1:
			head = uint64(s[0])
		}
		h = head * 0x9e3779b97f4a7c15
	}
	h ^= uint64(n) * 0x165667b19e3779f9
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return head, h
}

// le32 reads the first four bytes of s as a little-endian number.
func le32[S ~string | ~[]byte](s S) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// le64 reads the first eight bytes of s as a little-endian number; the
// compiler turns it into a single load.
func le64[S ~string | ~[]byte](s S) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// size returns the number of tokens.
func (v *vocab) size() int { return len(v.off) - 1 }

// token returns the bytes of token r.
func (v *vocab) token(r uint32) []byte { return v.data[v.off[r]:v.off[r+1]] }
