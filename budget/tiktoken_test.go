package budget

import (
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktoken-go is the oracle: the pure-Go encoders must give the token IDs
// it gives. It reads the same embedded ranks through its offline loader, so
// nothing is downloaded.
//
// It is the oracle everywhere except where it is known to differ from
// OpenAI's tiktoken (see tiktokenGoStale); there the reference is the counts
// and token IDs pinned from tiktoken itself in testdata/unicode.

var setOfflineLoader = sync.OnceFunc(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })

// oracles holds one tiktoken-go encoder per encoding, built once per test
// process because tiktoken-go rebuilds it on every GetEncoding call.
var oracles = map[string]func() (*tiktoken.Tiktoken, error){
	"cl100k_base": sync.OnceValues(func() (*tiktoken.Tiktoken, error) { return newOracle("cl100k_base") }),
	"o200k_base":  sync.OnceValues(func() (*tiktoken.Tiktoken, error) { return newOracle("o200k_base") }),
}

func newOracle(name string) (*tiktoken.Tiktoken, error) {
	setOfflineLoader()
	return tiktoken.GetEncoding(name)
}

func oracle(tb testing.TB, name string) *tiktoken.Tiktoken {
	tb.Helper()
	tk, err := oracles[name]()
	if err != nil {
		tb.Fatalf("tiktoken-go %s: %v", name, err)
	}
	return tk
}

// bpeNames are the BPE encodings, each with its pure-Go encoder.
var bpeNames = []string{"cl100k_base", "o200k_base"}

func pureGo(tb testing.TB, name string) *encoder {
	tb.Helper()
	load := map[string]func() (*encoder, error){"cl100k_base": cl100kEncoder, "o200k_base": o200kEncoder}[name]
	e, err := load()
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return e
}

// tiktokenGoStale reports whether tiktoken-go is known to encode text
// differently from OpenAI's tiktoken, for either of two reasons, neither of
// which is ka2's to copy:
//   - text holds a code point added in Unicode 15.1 or 16.0 that is a
//     letter, mark, number or space (newerThanGo): tiktoken-go's regexp2
//     patterns take their classes from Go's unicode package (15.0.0), while
//     tiktoken's regex crate is at 16.0.0;
//   - text has an apostrophe followed by a code point that Unicode simple
//     case folding equates with a contraction letter (U+017F LONG S for
//     "s"): tiktoken's regex crate matches (?i:'s|…) by case folding,
//     regexp2 by unicode.ToLower, which leaves U+017F alone.
//
// Comparisons with tiktoken-go leave exactly these texts out.
func tiktokenGoStale(text string) bool {
	prev := rune(0)
	for _, r := range text {
		if newerThanGo(r) {
			return true
		}
		if _, ok := contractionFolds[r]; ok && prev == '\'' {
			return true
		}
		prev = r
	}
	return false
}
