package budget

import (
	"fmt"
)

// bpeCounter is the Counter of one BPE encoding. The encoder is loaded on
// first use and shared by every goroutine; load is a sync.OnceValues.
type bpeCounter struct {
	name string
	load func() (*encoder, error)
}

func (c *bpeCounter) Name() string { return c.name }

// Count returns the number of tokens of the ordinary encoding of text.
func (c *bpeCounter) Count(text string) int {
	return c.encoder().count(text)
}

// Split encodes text once and gives each token to the segment in which its
// first byte lies, so the segments add up to Count(text) by construction.
func (c *bpeCounter) Split(text string, cuts []int) []int {
	checkCuts(len(text), cuts)
	return c.encoder().split(text, cuts)
}

// encoder returns the loaded encoder. The vocabularies are embedded in the
// binary, so a load failure means the build itself is broken; there is no
// error a caller could handle, and Count has no error result, hence the panic.
func (c *bpeCounter) encoder() *encoder {
	e, err := c.load()
	if err != nil {
		panic(fmt.Sprintf("budget: load %s encoder: %v", c.name, err))
	}
	return e
}
