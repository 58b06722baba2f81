// Package parallel runs indexed work on a bounded number of goroutines,
// stopping when a context is done. Callers write results by index, so what
// they compute never depends on scheduling.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Do calls fn(0) … fn(n-1) on up to jobs goroutines (all cores when jobs
// ≤ 0). Once ctx is done no further call starts (those under way finish);
// Do then returns ctx.Err() if any index was left out, and nil when every
// one ran.
func Do(ctx context.Context, n, jobs int, fn func(i int)) error {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, n)
	if jobs <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(i)
		}
		return nil
	}
	var wg sync.WaitGroup
	var ran atomic.Int64
	next := make(chan int, jobs)
	for range jobs {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // drain the queue without running it
				}
				fn(i)
				ran.Add(1)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if int(ran.Load()) < n {
		return ctx.Err()
	}
	return nil
}
