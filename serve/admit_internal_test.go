package serve

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestAdmissionWakesEveryWaiter runs many requests through two slots in
// a bubble of fake time, each holding its slot a little while: with a
// wait bound far beyond the whole run, none may be shed, and the run
// ends when the work of two slots does. A waiter not woken for a freed
// slot would wait for the bound and be shed.
func TestAdmissionWakesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAdmission(2, 1000, time.Hour)
		const workers, rounds, hold = 200, 20, time.Millisecond
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var shed []string
		for w := range workers {
			wg.Go(func() {
				for r := range rounds {
					why, _, err := a.acquire(context.Background(), nil)
					if why != "" || err != nil {
						mu.Lock()
						shed = append(shed, why)
						mu.Unlock()
						continue
					}
					// Stagger the holds so releases and arrivals interleave.
					d := hold * time.Duration(1+(w+r)%3)
					time.Sleep(d)
					a.release(d)
				}
			})
		}
		wg.Wait()
		if len(shed) > 0 {
			t.Fatalf("%d requests shed (%v); want none", len(shed), shed[:min(5, len(shed))])
		}
		// Two slots busy all along: the holds add up to 2 ms a request on
		// average, so the run takes half of that per request, and a few
		// holds more at the end, when fewer requests than slots are left.
		if got, want := time.Since(start), workers*rounds*2*hold/2; got < want || got > want+time.Second {
			t.Errorf("the run took %v, want %v and at most a second more (the slots sat idle)", got, want)
		}
		if n := a.queued.Load(); n != 0 {
			t.Errorf("%d requests still counted as waiting", n)
		}
	})
}
