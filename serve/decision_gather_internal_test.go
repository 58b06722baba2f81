package serve

import (
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// writeRecorder keeps each Write a DecisionLog makes.
type writeRecorder struct {
	mu     sync.Mutex
	writes []string
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *writeRecorder) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// TestDecisionLogGathers: lines that come within gatherDelay of each other
// go to the file in one write, once the delay has passed; Close writes
// what is gathered without waiting.
func TestDecisionLogGathers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &writeRecorder{}
		l, err := OpenDecisionLog(DecisionLogConfig{Open: func() (io.Writer, error) { return rec, nil }})
		if err != nil {
			t.Fatal(err)
		}
		l.add([]byte("1\n"))
		synctest.Wait()
		time.Sleep(gatherDelay / 2)
		l.add([]byte("2\n"))
		l.add([]byte("3\n"))
		synctest.Wait()
		if got := rec.got(); len(got) != 0 {
			t.Fatalf("written before the delay passed: %q", got)
		}
		time.Sleep(gatherDelay / 2)
		synctest.Wait()
		if got := rec.got(); len(got) != 1 || got[0] != "1\n2\n3\n" {
			t.Fatalf("writes %q, want one of the three lines", got)
		}
		l.add([]byte("4\n"))
		l.Close()
		if got := rec.got(); len(got) != 2 || got[1] != "4\n" {
			t.Fatalf("writes %q, want the line added before Close in a second", got)
		}
	})
}
