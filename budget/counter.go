package budget

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Counter measures text in one unit. Implementations are safe for concurrent use.
type Counter interface {
	// Name is the counter's stable name: "codepoint", "cl100k_base" or "o200k_base".
	Name() string
	// Count returns the size of text in the counter's unit.
	Count(text string) int
	// Split returns the size of text attributed to each of the len(cuts)+1
	// segments text[0:cuts[0]], text[cuts[0]:cuts[1]], …, text[cuts[last]:].
	// cuts are ascending byte offsets within [0, len(text)]. The segment sizes
	// always add up to Count(text) exactly: a token is attributed to the
	// segment in which its first byte lies (for codepoint, each code point to
	// the segment that holds it). Equal cuts give empty segments of size 0.
	Split(text string, cuts []int) []int
}

// Counter names, in the order Names reports them.
const (
	nameCodepoint = "codepoint"
	nameCL100K    = "cl100k_base"
	nameO200K     = "o200k_base"
)

// ErrUnknownCounter is returned (wrapped) by Lookup for a name that is not a
// counter, so that callers can tell a bad name from other failures.
var ErrUnknownCounter = errors.New("unknown counter")

// Codepoint counts Unicode code points (the default counter).
var Codepoint Counter = codepointCounter{}

// The BPE counters are values whose encoders load on first use, so that a
// process that never counts tokens never pays for parsing a vocabulary.
var (
	cl100kCounter Counter = &bpeCounter{name: nameCL100K, load: cl100kEncoder}
	o200kCounter  Counter = &bpeCounter{name: nameO200K, load: o200kEncoder}
)

// Names lists the counters in a stable order: codepoint, cl100k_base, o200k_base.
func Names() []string {
	return []string{nameCodepoint, nameCL100K, nameO200K}
}

// Lookup returns the counter with the given name, or an error wrapping ErrUnknownCounter that lists the valid names.
func Lookup(name string) (Counter, error) {
	switch name {
	case nameCodepoint:
		return Codepoint, nil
	case nameCL100K:
		return cl100kCounter, nil
	case nameO200K:
		return o200kCounter, nil
	}
	return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownCounter, name, strings.Join(Names(), ", "))
}

// codepointCounter counts runes. An invalid UTF-8 byte counts as one code
// point, as utf8.RuneCountInString and a range loop over the string do.
type codepointCounter struct{}

func (codepointCounter) Name() string { return nameCodepoint }

func (codepointCounter) Count(text string) int { return utf8.RuneCountInString(text) }

// Split counts the runes that start in each segment. A cut inside a
// multi-byte rune gives the whole rune to the segment holding its first
// byte, which keeps the sum equal to Count for any cuts.
func (codepointCounter) Split(text string, cuts []int) []int {
	return splitRunes(make([]int, len(cuts)+1), text, cuts)
}

// runeLen is the length of the rune p starts with, as a range loop over
// a string steps: 1 for an invalid byte.
func runeLen[T string | []byte](p T) int {
	switch p := any(p).(type) {
	case string:
		_, n := utf8.DecodeRuneInString(p)
		return n
	case []byte:
		_, n := utf8.DecodeRune(p)
		return n
	}
	panic("unreachable")
}

// splitRunes is the code-point counter's Split of a string or of bytes,
// into out, of length len(cuts)+1.
// Each segment counts the runes that start in it, stepping as a range
// loop over a string does (RuneCountInString's count): an invalid byte is
// a rune of one byte. A rune that runs over a cut leaves the next segment
// to start after it.
func splitRunes[T string | []byte](out []int, text T, cuts []int) []int {
	return splitRunesKnown(out, text, cuts, nil)
}

// splitRunesKnown is splitRunes of the cuts of spans (see accountCuts),
// taking spanRunes[k], when it is not negative, as the count of span k
// (segment 2k+1) instead of counting it. It counts the span after all
// when a rune may cross one of its edges: one from before runs into it,
// or the byte after it is not the first of a rune (a rune starting
// inside may run over its end).
func splitRunesKnown[T string | []byte](out []int, text T, cuts []int, spanRunes []int) []int {
	checkCuts(len(text), cuts)
	i := 0
	for seg := range out {
		end := len(text)
		if seg < len(cuts) {
			end = cuts[seg]
		}
		if k := seg / 2; seg%2 == 1 && k < len(spanRunes) && spanRunes[k] >= 0 && i == cuts[seg-1] && (end == len(text) || utf8.RuneStart(text[end])) {
			out[seg], i = spanRunes[k], end
			continue
		}
		n := 0
		for ; i < end; n++ {
			if text[i] < utf8.RuneSelf {
				i++
			} else {
				i += runeLen(text[i:min(i+utf8.UTFMax, len(text))])
			}
		}
		out[seg] = n
	}
	return out
}

// checkCuts panics on cuts that break Split's contract. A wrong cut is a
// programming error in the caller, and silently clamping it would hide a
// misattributed budget.
func checkCuts(n int, cuts []int) {
	prev := 0
	for i, c := range cuts {
		if c < prev || c > n {
			panic(fmt.Sprintf("budget: Split cut %d is %d: cuts must be ascending within [0, %d]", i, c, n))
		}
		prev = c
	}
}
