package serve

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Why an API request was shed, as the metrics label it.
const (
	shedQueueFull = "queue_full"     // as many requests as Config.MaxQueue were waiting already
	shedPredicted = "wait_predicted" // it would have waited longer than Config.QueueWait
	shedWaited    = "wait_passed"    // it waited Config.QueueWait without a slot freeing
)

// admission lets at most cap(slots) API requests be answered at once and
// queues the others for a bounded time: a
// burst of a few more requests than the slots (a pipeline's worker pool)
// waits milliseconds for its turn rather than failing, while an overload
// that would keep requests waiting past the bound is shed at once.
type admission struct {
	slots chan struct{} // a token per request being answered
	// wake holds a token per slot freed while requests waited, up to
	// one per slot; a waiter takes one and tries for the slot.
	wake     chan struct{}
	maxQueue int64         // most requests waiting; 0: none wait
	wait     time.Duration // longest wait for a slot
	queued   atomic.Int64  // requests waiting now
	// hold is the moving average of how long a request holds its slot,
	// in nanoseconds (0 until one has): with the number of slots it
	// tells how long a newcomer would wait.
	hold atomic.Int64
}

func newAdmission(slots, maxQueue int, wait time.Duration) *admission {
	a := &admission{slots: make(chan struct{}, slots), wake: make(chan struct{}, slots), wait: wait}
	if wait > 0 {
		a.maxQueue = int64(maxQueue)
	}
	return a
}

// predict is how long the n-th request in the queue would wait: each of
// the requests before it, and itself, waits for a slot to free, and the
// slots free cap(slots) per average hold.
func (a *admission) predict(n int64) time.Duration {
	return time.Duration(n * a.hold.Load() / int64(cap(a.slots)))
}

// acquire takes a slot, waiting in the queue if every one is taken. It
// returns why the request is shed ("" when it has the slot), and ctx's
// error when the request's client went away while it waited. waited is
// how long it queued (0 when a slot was free at once). queuedHook, when
// set, runs once the request is in the queue.
//
// A freed slot is not handed to the request that waited longest: that
// one may wait for a processor behind thousands of goroutines, holding
// the slot while nothing runs in it (with 2000 connections on 2 cores,
// handing over halved the answers). It is taken by whichever request
// tries first: a woken waiter, or one just arriving. The waiters are
// woken in the order they came; a waiter that loses the race waits
// again, never longer than the bound in all.
func (a *admission) acquire(ctx context.Context, queuedHook func()) (shed string, waited time.Duration, err error) {
	if a.try() {
		return "", 0, nil
	}
	n := a.queued.Add(1)
	defer a.queued.Add(-1)
	if n > a.maxQueue {
		return shedQueueFull, 0, nil
	}
	if a.predict(n) > a.wait {
		return shedPredicted, 0, nil
	}
	// A slot freed before this request counted as waiting woke no one.
	if a.try() {
		return "", 0, nil
	}
	start := time.Now()
	t := time.NewTimer(a.wait)
	defer t.Stop()
	if queuedHook != nil {
		queuedHook()
	}
	for {
		select {
		case <-a.wake:
			if a.try() {
				return "", time.Since(start), nil
			}
		case <-t.C:
			return shedWaited, time.Since(start), nil
		case <-ctx.Done():
			return "", time.Since(start), ctx.Err()
		}
	}
}

// try takes a free slot, if there is one.
func (a *admission) try() bool {
	select {
	case a.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// release gives back the slot of a request that held it for held.
func (a *admission) release(held time.Duration) {
	<-a.slots
	// Counted before its last try, a waiter either took this slot or is
	// counted here and gets a token.
	if a.queued.Load() > 0 {
		select {
		case a.wake <- struct{}{}:
		default: // a token per slot is waiting already
		}
	}
	// An average over the last few dozen requests: steady enough that a
	// slow one (descheduled while it held its slot) does not shed the
	// queue, quick enough to follow a change (a reload that takes CPU, a
	// larger corpus) within milliseconds under load.
	for {
		old := a.hold.Load()
		next := int64(held)
		if old != 0 {
			next = old + (next-old)/32
		}
		if a.hold.CompareAndSwap(old, next) {
			return
		}
	}
}

// shedMessage says why a request was shed and when to come back.
func (a *admission) shedMessage(shed string) string {
	n := cap(a.slots)
	switch shed {
	case shedQueueFull:
		if a.maxQueue == 0 {
			return fmt.Sprintf("%d requests are in flight, the most this server answers at once; retry after %s s", n, retryAfter)
		}
		return fmt.Sprintf("%d requests are in flight, the most this server answers at once, and %d more are waiting, the most it queues; retry after %s s",
			n, a.maxQueue, retryAfter)
	case shedPredicted:
		return fmt.Sprintf("%d requests are in flight, the most this server answers at once, and the wait for one of them to finish is over the server's bound of %s; retry after %s s",
			n, a.wait, retryAfter)
	default:
		return fmt.Sprintf("%d requests are in flight, the most this server answers at once, and none finished within the server's queue wait of %s; retry after %s s",
			n, a.wait, retryAfter)
	}
}
