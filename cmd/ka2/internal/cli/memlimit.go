package cli

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// The heap of ka2 serve is mostly the corpus, which stays; what a reload
// or a request adds is garbage. Left to GOGC=100 the heap grows to twice
// the live heap before a collection, and a reload of a large corpus then
// takes the process to several times the corpus's size. The automatic
// limit keeps the heap within memoryHeadroom of the live heap instead,
// at least memoryFloor over it, so that a small corpus is not collected
// on every few requests. It is not the default: on a large corpus under
// load the collector then runs several times as often, and each run marks
// the whole corpus, which costs throughput (ka2perf ratios shows both).
const (
	memoryHeadroom = 1.4
	memoryFloor    = 64 << 20
	// memoryEvery is how often the automatic limit follows the live heap,
	// which grows or shrinks with the corpus.
	memoryEvery = 10 * time.Second
)

// memoryLimit is a parsed --memory-limit: auto, off, or bytes.
type memoryLimit struct {
	auto  bool
	bytes int64 // 0 with auto false: off
}

// parseMemoryLimit reads auto, off, or a size in MiB or GiB.
func parseMemoryLimit(s string) (memoryLimit, error) {
	switch s {
	case "auto":
		return memoryLimit{auto: true}, nil
	case "off":
		return memoryLimit{}, nil
	}
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"MiB", 20}, {"GiB", 30}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 || n > math.MaxInt64>>u.shift {
				break
			}
			return memoryLimit{bytes: n << u.shift}, nil
		}
	}
	return memoryLimit{}, usageError{fmt.Errorf("--memory-limit %q: use auto, off, or a size such as 512MiB or 2GiB", s)}
}

// autoLimit is the limit for a live heap of live bytes.
func autoLimit(live uint64) int64 {
	return int64(max(float64(live)*memoryHeadroom, float64(live+memoryFloor)))
}

// apply sets the process's soft memory limit; with auto it follows the
// live heap until ctx is done. GOMEMLIMIT in the environment (getenv)
// wins over auto: the operator set it.
func (m memoryLimit) apply(ctx context.Context, getenv func(string) string) {
	switch {
	case m.bytes > 0:
		debug.SetMemoryLimit(m.bytes)
		return
	case !m.auto || getenv("GOMEMLIMIT") != "":
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	follow := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if live := sample[0].Value.Uint64(); live > 0 {
				debug.SetMemoryLimit(autoLimit(live))
			}
		}
	}
	follow()
	go func() {
		tick := time.NewTicker(memoryEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				follow()
			}
		}
	}()
}
