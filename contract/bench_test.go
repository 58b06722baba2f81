package contract_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/selector"
)

const benchSources = 100_000

var bigCorpus = sync.OnceValues(func() (*corpus.Corpus, error) {
	return corpus.Load(gencorpus.FS(benchSources))
})

var bigIndex = sync.OnceValue(func() *selector.Index {
	c, _ := bigCorpus()
	return selector.NewIndex(c)
})

func bigBuilder(b *testing.B, counter string) *contract.Builder {
	if _, err := bigCorpus(); err != nil {
		b.Fatal(err)
	}
	def := contract.Default()
	cnt, _ := budget.Lookup(counter)
	limits, _ := def.Limits(counter)
	limits.Capacity *= 4 // the generated bodies are longer than the sample's
	ix := bigIndex()
	return &contract.Builder{Definition: def, Index: ix, Catalog: contract.NewCatalogOnce(ix), Counter: cnt, Limits: limits}
}

// BenchmarkSelectBuild is one contract on a 100k-source corpus: select,
// assemble and count, rotating over subjects and dates.
func BenchmarkSelectBuild(b *testing.B) {
	for _, counter := range []string{"codepoint", "o200k_base"} {
		b.Run(counter, func(b *testing.B) {
			bld := bigBuilder(b, counter)
			reqs := make([]contract.Request, 1000)
			for i := range reqs {
				src := (i * 7919) % benchSources
				d := gencorpus.ValidFrom(src).AddDate(0, 0, i%30)
				reqs[i] = request("en", "What is the limit for this claim?", false, gencorpus.Subject(src), d.Format("2006-01-02"))
			}
			b.ResetTimer()
			i := 0
			lat := make([]time.Duration, 0, 1<<16)
			for b.Loop() {
				t0 := time.Now()
				res, err := bld.Build(context.Background(), reqs[i%len(reqs)])
				if len(lat) < cap(lat) {
					lat = append(lat, time.Since(t0))
				}
				if err != nil || len(res.Selection.Sources) != 1 {
					b.Fatalf("Build() = %v, %d sources", err, len(res.Selection.Sources))
				}
				i++
			}
			reportLatency(b, lat)
		})
	}
}

// reportLatency adds the median and 99th percentile of the timed
// operations to the benchmark's figures: ns/op is the mean, which includes
// the garbage collector's share of the run.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkSelect is the indexed query alone.
func BenchmarkSelect(b *testing.B) {
	bld := bigBuilder(b, "codepoint")
	q := request("en", "q", false, gencorpus.Subject(54321), gencorpus.ValidFrom(54321).Format("2006-01-02")).Query
	for b.Loop() {
		if _, err := bld.Index.Select(q); err != nil {
			b.Fatal(err)
		}
	}
}
