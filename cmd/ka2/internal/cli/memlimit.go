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
// the live heap before a collection: serving 100k generated sources,
// reloading every second, peaks at about 4× the corpus's size. The
// automatic setting, the default, paces the collector instead so that
// the heap stays within memoryHeadroom of the live heap, and at least
// memoryFloor over it, so that a small corpus is not collected every few
// requests. It sets the collector's percentage (GOGC), not a soft limit:
// a limit computed from the live heap of a moment is crossed as the live
// heap grows (prepared records, requests in flight), and then the
// collector runs back to back. Measured with ka2perf ratios -only
// service on 100k sources, 2026-12-02, three interleaved pairs against
// main: main's 1.4× soft limit peaked at 2.57–2.72× the corpus for
// 7.8–9.5× the bare handler's CPU per answer; this percentage peaks at
// 2.78–2.91× for 0.99–1.22× the CPU per answer of GOGC=100 (median
// 1.03×), which peaks at 3.79–3.86× (docs/performance.md).
const (
	memoryHeadroom = 1.4
	memoryFloor    = 64 << 20
	// memoryEvery is how often the automatic setting follows the live
	// heap, which grows or shrinks with the corpus. Between two looks a
	// percentage stays proportional to the heap, so it never runs the
	// collector back to back.
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

// autoPercent is the collector's percentage (GOGC) for a live heap of
// live bytes: the heap grows to memoryHeadroom times it, and at least
// memoryFloor over it, before the next collection.
func autoPercent(live uint64) int {
	pct := int(math.Round((memoryHeadroom - 1) * 100))
	if live > 0 {
		// At most a million percent, which an int holds everywhere: a
		// live heap of a few kilobytes is not yet the corpus.
		pct = max(pct, int(min((memoryFloor*100+live-1)/live, 1_000_000)))
	}
	return pct
}

// apply sets how the process's collector is paced: a fixed soft limit,
// or with auto a percentage that follows the live heap until ctx is done.
// GOGC or GOMEMLIMIT in the environment (getenv) wins over auto: the
// operator set them.
func (m memoryLimit) apply(ctx context.Context, getenv func(string) string) {
	switch {
	case m.bytes > 0:
		debug.SetMemoryLimit(m.bytes)
		return
	case !m.auto || getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "":
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	follow := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if live := sample[0].Value.Uint64(); live > 0 {
				debug.SetGCPercent(autoPercent(live))
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
