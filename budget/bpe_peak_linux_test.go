package budget

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The peak memory checks read the child's VmHWM from /proc/self/status,
// which only Linux has.

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
// 40 MB of peak RSS for a whole process counting 3 MB. It starts two child
// processes, each loading an encoder and generating 3 MB, so it runs only
// under -long.
func TestPeakMemory(t *testing.T) {
	if !*long {
		t.Skip("starts child processes that count 3 MB; run with -long")
	}
	if raceEnabled {
		t.Skip("the race detector inflates memory")
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
