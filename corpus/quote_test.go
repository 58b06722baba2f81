package corpus_test

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/corpus"
)

// TestCorpusQuote: Corpus.Quote, which slices the file, gives exactly what
// Source.Quote gives, for every range of every source, with LF, CRLF, a
// BOM, empty lines and a missing final newline, and the same errors.
func TestCorpusQuote(t *testing.T) {
	fm := "---\nsource_id: %s\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\n"
	files := fstest.MapFS{
		"lf.md":      {Data: []byte(fmt.Sprintf(fm, "lf") + "one\n\ntwo three\n  four  \n")},
		"crlf.md":    {Data: []byte(fmt.Sprintf(fm, "crlf") + "one\r\ntwo\r\n\r\nthree")},
		"bom.md":     {Data: []byte("\ufeff" + fmt.Sprintf(fm, "bom") + "uno\ndos")},
		"lonecr.md":  {Data: []byte(fmt.Sprintf(fm, "lonecr") + "a\rb\nc\r")},
		"blanks.md":  {Data: []byte(fmt.Sprintf(fm, "blanks") + "\n\ntext\n\n")},
		"unicode.md": {Data: []byte(fmt.Sprintf(fm, "unicode") + "住宿标准\n每晚 750 元\n")},
	}
	sample, err := corpus.Load(corpus.Sample())
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range []*corpus.Corpus{c, sample} {
		for _, s := range cc.Sources {
			n := len(s.Lines)
			for start := 0; start <= n+1; start++ {
				for end := start - 1; end <= n+1; end++ {
					r := corpus.Range{Start: start, End: end}
					want, wantErr := s.Quote(r)
					got, gotErr := cc.Quote(s, r)
					if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
						t.Errorf("%s %v: Corpus.Quote() = %q, %v; Source.Quote() = %q, %v", s.ID, r, got, gotErr, want, wantErr)
					}
				}
			}
		}
	}
}
