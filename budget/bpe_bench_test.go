package budget

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Benchmarks put the pure-Go encoders and tiktoken-go side by side:
//
//	go test -run '^$' -bench . -benchmem ./budget/
//
// Count reports MB/s on a generated mixed zh/en JSON document, Load the time
// to build an encoder, WorstCase 1 MB inputs made of very long pieces, and
// PeakMemory the maximum resident set of a process that counts 3 MB.

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

// processCPU returns the user and system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

// BenchmarkPeakMemory reports the peak resident memory of a fresh process
// that generates a 3 MB mixed document, loads one encoder and counts the
// document; "none" only generates the document, as a baseline.
func BenchmarkPeakMemory(b *testing.B) {
	for _, name := range bpeNames {
		for _, impl := range []string{"none", "ka2", "tiktoken-go"} {
			b.Run(name+"/"+impl, func(b *testing.B) {
				var kb int64
				for b.Loop() {
					kb = peakRSS(b, name, impl)
				}
				b.ReportMetric(float64(kb)/1024, "peak-MB")
			})
		}
	}
}

// TestPeakMemory holds the pure-Go encoders to the memory target: under
// 40 MB of peak RSS for a whole process counting 3 MB.
func TestPeakMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures a subprocess; the race detector inflates memory")
	}
	for _, name := range bpeNames {
		kb := peakRSS(t, name, "ka2")
		t.Logf("%s: peak RSS %.1f MB counting 3 MB", name, float64(kb)/1024)
		if kb > 40<<10 {
			t.Errorf("%s: peak RSS %.1f MB counting 3 MB, want under 40 MB", name, float64(kb)/1024)
		}
	}
}

const peakEnv = "KA2_BUDGET_PEAK_CHILD"

// peakRSS runs this test binary as TestPeakMemoryChild and returns the
// child's peak resident set (VmHWM) in KB.
func peakRSS(tb testing.TB, name, impl string) int64 {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakMemoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), peakEnv+"="+name+"/"+impl)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child %s/%s: %v\n%s", name, impl, err, out)
	}
	// The child reports its own VmHWM: the parent's rusage maxrss would
	// carry the parent's own peak over into the child at exec.
	_, rest, ok := strings.Cut(string(out), "vmhwm=")
	if !ok {
		tb.Fatalf("child %s/%s did not report its peak:\n%s", name, impl, out)
	}
	kb, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
	if err != nil {
		tb.Fatalf("child %s/%s: %v", name, impl, err)
	}
	return kb
}

// TestPeakMemoryChild is the child process of peakRSS; run directly it does
// nothing.
func TestPeakMemoryChild(t *testing.T) {
	spec := os.Getenv(peakEnv)
	if spec == "" {
		t.Skip("child of peakRSS only")
	}
	name, impl, _ := strings.Cut(spec, "/")
	doc := mixedDoc(42, 3<<20)
	runtime.GC()
	start := time.Now()
	n := 0
	switch impl {
	case "ka2":
		n = pureGo(t, name).count(doc)
	case "tiktoken-go":
		n = len(oracle(t, name).EncodeOrdinary(doc))
	}
	elapsed := time.Since(start)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	_, hwm, _ := strings.Cut(string(status), "VmHWM:")
	fmt.Printf("tokens=%d bytes=%d time=%v vmhwm=%s\n", n, len(doc), elapsed, strings.Fields(hwm)[0])
}
