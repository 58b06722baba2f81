package budget

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// Benchmarks put the pure-Go encoders and tiktoken-go side by side:
//
//	go test -run '^$' -bench . -benchmem ./budget/
//
// Count reports MB/s on a generated mixed zh/en JSON document, Load the time
// to build an encoder, WorstCase 1 MB inputs made of very long pieces, and
// PeakMemory (Linux only, bpe_peak_linux_test.go) the maximum resident set
// of a process that counts 3 MB.

// benchDoc is the mixed zh/en JSON input of the throughput benchmarks.
var benchDoc = sync.OnceValue(func() string { return mixedDoc(42, 1<<20) })

// Besides MB/s (wall clock), Count reports cpu-MB/s: bytes over the CPU time
// of the whole process, garbage collector included. On a machine shared
// with other work the wall-clock figure swings; the CPU figure much less.
func BenchmarkCount(b *testing.B) {
	doc := benchDoc()
	for _, name := range bpeNames {
		b.Run(name+"/ka2", func(b *testing.B) {
			e := pureGo(b, name)
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				e.count(doc)
			}
			reportCPU(b, len(doc), processCPU()-cpu)
		})
		b.Run(name+"/tiktoken-go", func(b *testing.B) {
			tk := oracle(b, name)
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				tk.EncodeOrdinary(doc)
			}
			reportCPU(b, len(doc), processCPU()-cpu)
		})
	}
}

// BenchmarkCountContract counts a text the size of one contract (about
// 2.3 KB, as a service counts every answer): its allocs/op are what the
// merger pool saves (see mergers).
func BenchmarkCountContract(b *testing.B) {
	doc := mixedDoc(7, 2300)
	for _, name := range bpeNames {
		b.Run(name, func(b *testing.B) {
			e := pureGo(b, name)
			b.ReportAllocs()
			for b.Loop() {
				e.count(doc)
			}
		})
	}
}

func reportCPU(b *testing.B, size int, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkSplit measures attribution: one pass, as Count, plus the walk
// over the cuts.
func BenchmarkSplit(b *testing.B) {
	doc := benchDoc()
	cuts := make([]int, 0, 64)
	for i := 1; i < 64; i++ {
		cuts = append(cuts, i*len(doc)/64)
	}
	for _, name := range bpeNames {
		b.Run(name, func(b *testing.B) {
			c, _ := Lookup(name)
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				c.Split(doc, cuts)
			}
		})
	}
}

// BenchmarkLoad builds an encoder from the embedded vocabulary each time,
// as the first use in a process does; tiktoken-go rebuilds on every
// GetEncoding call.
func BenchmarkLoad(b *testing.B) {
	files := map[string]string{"cl100k_base": "cl100k_base.tiktoken", "o200k_base": "o200k_base.tiktoken"}
	for _, name := range bpeNames {
		b.Run(name+"/ka2", func(b *testing.B) {
			cpu := processCPU()
			for b.Loop() {
				if _, err := loadVocab(files[name]); err != nil {
					b.Fatal(err)
				}
				buildRuneClasses()
			}
			reportLoad(b, processCPU()-cpu)
		})
		b.Run(name+"/tiktoken-go", func(b *testing.B) {
			setOfflineLoader()
			cpu := processCPU()
			for b.Loop() {
				if _, err := newOracle(name); err != nil {
					b.Fatal(err)
				}
			}
			reportLoad(b, processCPU()-cpu)
		})
	}
}

// reportLoad reports the wall and CPU milliseconds of one load.
func reportLoad(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/load")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/load")
}

// BenchmarkWorstCase counts 1 MB inputs of very long pieces. tiktoken-go is
// left out: its merge is quadratic and takes seconds on 100 KB.
func BenchmarkWorstCase(b *testing.B) {
	for _, wc := range worstCases {
		text := wc.gen(rand.New(rand.NewPCG(7, 7)), 1<<20)
		for _, name := range bpeNames {
			b.Run(strings.ReplaceAll(wc.name, " ", "_")+"/"+name, func(b *testing.B) {
				e := pureGo(b, name)
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					e.count(text)
				}
			})
		}
	}
}
