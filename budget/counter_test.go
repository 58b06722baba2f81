package budget

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	want := []string{"codepoint", "cl100k_base", "o200k_base"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name     string
		wantName string
		wantErr  error
	}{
		{name: "codepoint", wantName: "codepoint"},
		{name: "cl100k_base", wantName: "cl100k_base"},
		{name: "o200k_base", wantName: "o200k_base"},
		{name: "", wantErr: ErrUnknownCounter},
		{name: "CL100K_BASE", wantErr: ErrUnknownCounter},
		{name: "p50k_base", wantErr: ErrUnknownCounter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Lookup(tt.name)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Lookup(%q) error = %v, want %v", tt.name, err, tt.wantErr)
			}
			if err != nil {
				// The error must tell the user what would have worked.
				for _, n := range Names() {
					if !strings.Contains(err.Error(), n) {
						t.Errorf("Lookup(%q) error %q does not list %q", tt.name, err, n)
					}
				}
				return
			}
			if got := c.Name(); got != tt.wantName {
				t.Errorf("Lookup(%q).Name() = %q, want %q", tt.name, got, tt.wantName)
			}
		})
	}
}

func TestCodepointIsDefault(t *testing.T) {
	c, err := Lookup("codepoint")
	if err != nil {
		t.Fatal(err)
	}
	if c != Codepoint {
		t.Errorf("Lookup(codepoint) = %v, want Codepoint", c)
	}
}

func TestCount(t *testing.T) {
	// Token counts are tiktoken's; the oracle tests check many more.
	tests := []struct {
		name string
		text string
		want map[string]int // counter name → count
	}{
		{name: "empty", text: "", want: map[string]int{"codepoint": 0, "cl100k_base": 0, "o200k_base": 0}},
		{name: "ascii", text: "hello world", want: map[string]int{"codepoint": 11, "cl100k_base": 2, "o200k_base": 2}},
		{name: "mixed zh en", text: "hello world!你好，世界！", want: map[string]int{"codepoint": 18, "cl100k_base": 10, "o200k_base": 7}},
		{name: "emoji", text: "👍", want: map[string]int{"codepoint": 1, "cl100k_base": 3, "o200k_base": 1}},
		{name: "blank line", text: "today\n \n", want: map[string]int{"codepoint": 8, "cl100k_base": 2, "o200k_base": 2}},
		{name: "special token is plain text", text: "<|endoftext|>", want: map[string]int{"codepoint": 13, "cl100k_base": 7, "o200k_base": 7}},
		{name: "policy line", text: "北京住宿标准：每间夜750元。", want: map[string]int{"codepoint": 15, "cl100k_base": 16, "o200k_base": 10}},
		{name: "invalid utf8 byte", text: "a\xffb", want: map[string]int{"codepoint": 3, "cl100k_base": 3, "o200k_base": 3}},
		// U+1C89 is a letter since Unicode 16.0: "'s" is a contraction
		// after it, as in tiktoken (Go's unicode 15.0 tables gave 5).
		{name: "unicode 16 letter", text: "\u1C89's", want: map[string]int{"codepoint": 3, "cl100k_base": 4, "o200k_base": 4}},
		// tiktoken matches (?i:'s) by case folding: "'ſ" is "'s".
		{name: "long s contraction", text: " I'\u017F", want: map[string]int{"codepoint": 4, "cl100k_base": 4, "o200k_base": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]int{}
			for _, n := range Names() {
				c, err := Lookup(n)
				if err != nil {
					t.Fatal(err)
				}
				got[n] = c.Count(tt.text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Count(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestInvalidUTF8 pins the rule for text that is not valid UTF-8: every
// byte that is not part of a valid sequence is one U+FFFD, for the BPE
// counters as for codepoint, also inside a truncated multi-byte sequence
// (where a decoder that replaces maximal subparts, as Python's
// bytes.decode(errors="replace") does, would give one U+FFFD for "\xe4\xb8").
// Split gives the tokens to the parts by the original byte offsets.
func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		name, text, same string // same: the text ka2 counts instead
	}{
		{name: "lone byte", text: "a\xffb", same: "a\ufffdb"},
		{name: "truncated sequence", text: "a\xe4\xb8b", same: "a\ufffd\ufffdb"},
		{name: "truncated at end", text: "\u4e2d\xe4\xb8", same: "\u4e2d\ufffd\ufffd"},
		{name: "encoded surrogate", text: "x\xed\xa0\x80", same: "x\ufffd\ufffd\ufffd"},
		{name: "overlong", text: "ok\xc0\xafok", same: "ok\ufffd\ufffdok"},
		{name: "beyond U+10FFFF", text: "\xf4\x90\x80\x80's", same: "\ufffd\ufffd\ufffd\ufffd's"},
		{name: "between contraction letters", text: "'l\x80l", same: "'l\ufffdl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range Names() {
				c, _ := Lookup(n)
				if got, want := c.Count(tt.text), c.Count(tt.same); got != want {
					t.Errorf("%s Count(%q) = %d, want %d as for %q", n, tt.text, got, want, tt.same)
				}
			}
			for _, name := range bpeNames {
				e := pureGo(t, name)
				if diff := cmp.Diff(e.encode(tt.same), e.encode(tt.text)); diff != "" {
					t.Errorf("%s encode(%q) mismatch with %q (-want +got):\n%s", name, tt.text, tt.same, diff)
				}
			}
		})
	}
	// "\xe4\xb8" is "\ufffd\ufffd", one token (10178 in cl100k_base); the
	// maximal-subpart decoding "\ufffd" would be 5809. The token starts at
	// the first bad byte, so Split gives it to the part holding that byte.
	e := pureGo(t, "cl100k_base")
	if diff := cmp.Diff([]int{64, 10178, 65}, e.encode("a\xe4\xb8b")); diff != "" {
		t.Errorf("encode(%q) mismatch (-want +got):\n%s", "a\xe4\xb8b", diff)
	}
	if diff := cmp.Diff([]int{2, 0, 1}, e.split("a\xe4\xb8b", []int{2, 3})); diff != "" {
		t.Errorf("split(%q, [2 3]) mismatch (-want +got):\n%s", "a\xe4\xb8b", diff)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		counter string
		text    string
		cuts    []int
		want    []int
	}{
		{name: "no cuts", counter: "codepoint", text: "héllo", cuts: nil, want: []int{5}},
		{name: "codepoint parts", counter: "codepoint", text: "ab你好", cuts: []int{2}, want: []int{2, 2}},
		{name: "cut inside a rune", counter: "codepoint", text: "你好", cuts: []int{1}, want: []int{1, 1}},
		{name: "equal cuts", counter: "codepoint", text: "abc", cuts: []int{1, 1, 1}, want: []int{1, 0, 0, 2}},
		{name: "cuts at ends", counter: "codepoint", text: "abc", cuts: []int{0, 3}, want: []int{0, 3, 0}},
		{name: "empty text", counter: "cl100k_base", text: "", cuts: []int{0, 0}, want: []int{0, 0, 0}},
		// "hello world" is [hello][ world]: the second token starts at byte 5.
		{name: "token boundary", counter: "cl100k_base", text: "hello world", cuts: []int{5}, want: []int{1, 1}},
		// A cut inside a token gives the token to the part it starts in.
		{name: "cut inside token", counter: "cl100k_base", text: "hello world", cuts: []int{3}, want: []int{1, 1}},
		{name: "cut after token start", counter: "cl100k_base", text: "hello world", cuts: []int{6}, want: []int{2, 0}},
		{name: "o200k parts", counter: "o200k_base", text: "hello world", cuts: []int{0, 5, 11}, want: []int{0, 1, 1, 0}},
		{name: "invalid utf8", counter: "cl100k_base", text: "a\xffb", cuts: []int{1, 2}, want: []int{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Lookup(tt.counter)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Split(tt.text, tt.cuts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q, %v) mismatch (-want +got):\n%s", tt.text, tt.cuts, diff)
			}
		})
	}
}

func TestSplitPanicsOnBadCuts(t *testing.T) {
	for _, n := range Names() {
		for _, cuts := range [][]int{{-1}, {4}, {2, 1}} {
			c, _ := Lookup(n)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s Split(\"abc\", %v) did not panic", n, cuts)
					}
				}()
				c.Split("abc", cuts)
			}()
		}
	}
}

// splitTexts are inputs for the invariant tests: where tokens run across
// parts, and where bytes are not valid UTF-8.
var splitTexts = []string{
	"",
	"hello world",
	`{"template":"ka2-context-v1","question":"北京住宿标准是多少？"}`,
	"today\n \n\n  x\r\n\ty\u3000z\u0085",
	"👍🏽 👨‍👩‍👧 🇨🇳 e\u0301 한국어 日本語のテキスト العربية हिन्दी ไทย",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"bad \xff\xfe utf8 \xe4\xb8 cut",
	"I'll we've THEY'RE it's 12345 3.14159",
}

// randomCuts returns k ascending cuts within [0, n], repeats allowed.
func randomCuts(r *rand.Rand, n, k int) []int {
	cuts := make([]int, k)
	for i := range cuts {
		cuts[i] = r.IntN(n + 1)
	}
	slices.Sort(cuts)
	return cuts
}

// checkSplitRunes: the code-point counter's Split, of a string or of its
// bytes, gives each code point to the segment of its first byte, as a
// range loop over the string walks them.
func checkSplitRunes(t *testing.T, text string, cuts []int) {
	t.Helper()
	want := make([]int, len(cuts)+1)
	seg := 0
	for i := range text {
		for seg < len(cuts) && cuts[seg] <= i {
			seg++
		}
		want[seg]++
	}
	// out need not be zero: every segment is written.
	out := func() []int { return slices.Repeat([]int{-1}, len(cuts)+1) }
	if diff := cmp.Diff(want, splitRunes(out(), text, cuts)); diff != "" {
		t.Errorf("splitRunes(%q, %v) mismatch (-want +got):\n%s", text, cuts, diff)
	}
	if diff := cmp.Diff(want, splitRunes(out(), []byte(text), cuts)); diff != "" {
		t.Errorf("splitRunes([]byte(%q), %v) mismatch (-want +got):\n%s", text, cuts, diff)
	}
}

func TestSplitRunes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, text := range append(splitTexts, "\xe4\xb8\xad\xe4\xb8", "\xf0\x9f\x91", "\xc0\xaf\xed\xa0\x80x") {
		for k := range 6 {
			checkSplitRunes(t, text, randomCuts(r, len(text), k))
		}
	}
}

func TestSplitSumsToCount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range Names() {
		c, _ := Lookup(n)
		for _, text := range splitTexts {
			want := c.Count(text)
			for range 50 {
				cuts := randomCuts(r, len(text), r.IntN(6))
				parts := c.Split(text, cuts)
				if len(parts) != len(cuts)+1 {
					t.Fatalf("%s Split(%q, %v) returned %d parts, want %d", n, text, cuts, len(parts), len(cuts)+1)
				}
				sum := 0
				for i, p := range parts {
					if p < 0 {
						t.Fatalf("%s Split(%q, %v) part %d is %d", n, text, cuts, i, p)
					}
					sum += p
				}
				if sum != want {
					t.Errorf("%s Split(%q, %v) = %v sums to %d, Count = %d", n, text, cuts, parts, sum, want)
				}
			}
		}
	}
}

// TestSplitPrefixSteps checks attribution against its definition. With one
// cut c, the first part is the number of units that start before c: it is 0
// at c = 0, Count at c = len(text), and grows by 0 or 1 per byte, since at
// most one unit starts at any byte.
func TestSplitPrefixSteps(t *testing.T) {
	for _, n := range Names() {
		c, _ := Lookup(n)
		for _, text := range splitTexts {
			prev := 0
			for cut := range len(text) + 1 {
				got := c.Split(text, []int{cut})[0]
				if got != prev && got != prev+1 {
					t.Fatalf("%s Split(%q, [%d])[0] = %d after %d at the byte before", n, text, cut, got, prev)
				}
				prev = got
			}
			if want := c.Count(text); prev != want {
				t.Errorf("%s Split(%q, [len])[0] = %d, want Count %d", n, text, prev, want)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	// Encoders load once and are shared; run under -race this checks both.
	var wg sync.WaitGroup
	for _, n := range Names() {
		c, _ := Lookup(n)
		want := c.Count(splitTexts[4])
		for range 4 {
			wg.Go(func() {
				for range 20 {
					if got := c.Count(splitTexts[4]); got != want {
						t.Errorf("%s concurrent Count = %d, want %d", n, got, want)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}

func FuzzSplit(f *testing.F) {
	for _, s := range splitTexts {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>1))
		for _, n := range []string{"codepoint", "cl100k_base"} {
			c, _ := Lookup(n)
			cuts := randomCuts(r, len(text), r.IntN(5))
			parts := c.Split(text, cuts)
			if n == "codepoint" {
				checkSplitRunes(t, text, cuts)
			}
			sum := 0
			for _, p := range parts {
				sum += p
			}
			if want := c.Count(text); sum != want {
				t.Errorf("%s Split(%q, %v) = %v sums to %d, Count = %d", n, text, cuts, parts, sum, want)
			}
		}
	})
}
