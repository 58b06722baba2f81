package provenance_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// BenchmarkAdd registers evidence items of a few lines each, as a build
// registers its quotes.
func BenchmarkAdd(b *testing.B) {
	s := provenance.NewStore(nil)
	i := 0
	for b.Loop() {
		text := fmt.Sprintf("Line one of quote %d, long enough to be indexed.\nThe lodging limit is %d CNY per room-night.\nKeep the invoice.", i, i)
		if _, err := s.Add(provenance.NewItem(provenance.KindEvidence, "corpus:s", text, noTime)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkWrappedCheck registers an instruction of about 1 KB against a
// ledger of n indexed lines: the check costs per code point of the
// instruction, not per registered line.
func BenchmarkWrappedCheck(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := provenance.NewStore(nil)
			var lines []string
			for i := range n {
				lines = append(lines, fmt.Sprintf("Registered tool line number %d, long enough.", i))
				if len(lines) == 100 || i == n-1 {
					if _, err := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:t", strings.Join(lines, "\n"), noTime)); err != nil {
						b.Fatal(err)
					}
					lines = lines[:0]
				}
			}
			inst := strings.Repeat("Answer only from applicable evidence and cite lines. ", 20)
			i := 0
			for b.Loop() {
				if _, err := s.Add(provenance.NewItem(provenance.KindInstruction, "system", fmt.Sprint(i, inst), noTime)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkLayeredStore is a contract build's use of the store: a new
// store over a frozen base that holds the instruction and the example,
// then a prepared quote, a scope and a question. Its allocs/op are what a
// build pays the store per request.
func BenchmarkLayeredStore(b *testing.B) {
	t := provenance.NewStore(nil)
	if _, err := t.Add(provenance.NewItem(provenance.KindInstruction, "system", "Answer only from the evidence given below, and cite it.", noTime)); err != nil {
		b.Fatal(err)
	}
	if _, err := t.Add(provenance.NewExample(provenance.Example{Question: "What is the limit?", Answer: "750 CNY."}, noTime)); err != nil {
		b.Fatal(err)
	}
	base := t.Freeze()
	quote, err := provenance.Prepare(provenance.NewEvidence(provenance.Ref{SourceID: "travel-v2", Version: "v2", Lines: corpus.Range{Start: 1, End: 2}}, evidenceText, noTime))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s := base.NewStore()
		s.Grow(3)
		if _, err := s.AddPrepared(ctx, quote); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Add(provenance.Item{Kind: provenance.KindScope, Source: "user", Text: "subject: lodging\ndates: [2026-09-14]"}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Add(provenance.Item{Kind: provenance.KindQuestion, Source: "user", Text: "What is the Beijing lodging limit?"}); err != nil {
			b.Fatal(err)
		}
	}
}
