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
