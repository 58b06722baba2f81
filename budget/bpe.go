package budget

import (
	"sync"
	"unicode/utf8"
)

// The encoders are built on first use, once per process, and shared by all
// goroutines: an encoder is read-only after loading.
var (
	cl100kEncoder = sync.OnceValues(func() (*encoder, error) {
		return newEncoder("cl100k_base.tiktoken", (*runeClasses).cl100kNext)
	})
	o200kEncoder = sync.OnceValues(func() (*encoder, error) {
		return newEncoder("o200k_base.tiktoken", (*runeClasses).o200kNext)
	})
)

// encoder is the ordinary (no special tokens) encoding of one BPE
// vocabulary: pre-tokenize, then merge the bytes of each piece by rank.
type encoder struct {
	voc *vocab
	rc  *runeClasses
	// next returns the end of the piece that starts at i, and how far it
	// read (see scanner).
	next scanner
}

// scanner is a pre-tokenizer: it returns the end of the piece that starts
// at s[i], and far, the end of what it read to decide, less a lookahead of
// a few runes. far is at least end; the difference is what an alternative
// that failed, or a backtracking one, read beyond the piece.
type scanner func(rc *runeClasses, s string, i int) (end, far int)

func newEncoder(file string, next scanner) (*encoder, error) {
	voc, err := loadVocab(file)
	if err != nil {
		return nil, err
	}
	return &encoder{voc: voc, rc: classes(), next: next}, nil
}

// walk encodes text once and calls emit for every token with the byte
// offset at which it starts in text and its rank (its token ID). Offsets
// refer to text as given, also where it is not valid UTF-8.
//
// It returns the number of steps it took: the bytes the pre-tokenizer read
// (far - i for every piece) plus the merge's steps (see merger.steps). Each
// step costs a bounded time (a heap step O(log n)), so the steps measure
// the work without a clock; TestWorstCaseLinear holds them linear.
func (e *encoder) walk(text string, emit func(start int, rank uint32)) (steps int) {
	v := newValidView(text)
	s := v.text
	m := getMerger()
	defer putMerger(m)
	for i := 0; i < len(s); {
		j, far := e.next(e.rc, s, i)
		steps += far - i
		// Most pieces are whole tokens: one lookup and no merging.
		if r := e.voc.rank(s[i:j]); r != noRank {
			emit(v.orig(i), r)
		} else {
			m.merge(e.voc, s[i:j])
			steps += m.steps
			for k, at := range m.starts {
				emit(v.orig(i+int(at)), m.ranks[k])
			}
		}
		i = j
	}
	return steps
}

// count returns the number of tokens of text.
func (e *encoder) count(text string) int {
	n := 0
	e.walk(text, func(int, uint32) { n++ })
	return n
}

// split gives each token to the segment in which its first byte lies. Token
// starts ascend, so one forward walk over the cuts suffices.
func (e *encoder) split(text string, cuts []int) []int {
	out := make([]int, len(cuts)+1)
	seg := 0
	e.walk(text, func(start int, _ uint32) {
		for seg < len(cuts) && cuts[seg] <= start {
			seg++
		}
		out[seg]++
	})
	return out
}

// encode returns the token IDs of text.
func (e *encoder) encode(text string) []int {
	var ids []int
	e.walk(text, func(_ int, r uint32) { ids = append(ids, int(r)) })
	return ids
}

// validView is text as the BPE encoders see it: every byte that is not part
// of valid UTF-8 is replaced by U+FFFD, one replacement per byte, which is
// what converting a Go string to []rune does and so what tiktoken-go
// encodes. tiktoken takes only strings; decoders that replace maximal
// ill-formed subsequences give one U+FFFD for a truncated sequence such as
// "\xe4\xb8", where this gives two (see the package doc). It keeps the way back to the original byte offsets so that token
// attribution still refers to the caller's text.
type validView struct {
	text string
	// back[i] is the offset in the original text of byte i of text; nil when
	// text is the original (valid UTF-8, the common case).
	back []int
}

func newValidView(text string) validView {
	if utf8.ValidString(text) {
		return validView{text: text}
	}
	buf := make([]byte, 0, len(text)+len(text)/2)
	back := make([]int, 0, cap(buf)+1)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\uFFFD"...)
			back = append(back, i, i, i)
		} else {
			buf = append(buf, text[i:i+size]...)
			for range size {
				back = append(back, i)
			}
		}
		i += size
	}
	back = append(back, len(text))
	return validView{text: string(buf), back: back}
}

// orig maps an offset in v.text back to the original text.
func (v validView) orig(off int) int {
	if v.back == nil {
		return off
	}
	return v.back[off]
}
