package corpus

import (
	"embed"
	"io/fs"
)

//go:embed sample
var sampleFS embed.FS

// Sample returns the embedded sample corpus: the Beijing lodging policy in
// two versions (600 CNY until 2026-01-01, 750 CNY from then on) in English
// and Chinese, a rail FAQ on another subject, and a hostile notice whose text
// tries to act as an instruction. It is the corpus ka2 uses when none is
// given.
func Sample() fs.FS {
	sub, err := fs.Sub(sampleFS, "sample")
	if err != nil {
		panic(err) // the folder is embedded at build time
	}
	return sub
}
