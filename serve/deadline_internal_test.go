package serve

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestDeadlineCtx: the polling deadline behaves as context.WithDeadline
// does for each way a build's context ends: the deadline passing (seen by
// Err alone, and by Done), the parent canceled, and the release.
func TestDeadlineCtx(t *testing.T) {
	tests := []struct {
		name    string
		run     func(c context.Context, cancelParent, release func())
		wantErr error
	}{
		{name: "before the deadline", run: func(context.Context, func(), func()) {}, wantErr: nil},
		{name: "deadline by Err", run: func(context.Context, func(), func()) { time.Sleep(time.Minute) }, wantErr: context.DeadlineExceeded},
		{name: "deadline by Done", run: func(c context.Context, _, _ func()) { <-c.Done() }, wantErr: context.DeadlineExceeded},
		{name: "parent canceled", run: func(_ context.Context, cancel, _ func()) { cancel() }, wantErr: context.Canceled},
		{name: "parent canceled, Done", run: func(c context.Context, cancel, _ func()) {
			done := c.Done()
			cancel()
			<-done
		}, wantErr: context.Canceled},
		{name: "released", run: func(c context.Context, _, release func()) {
			release()
			<-c.Done()
		}, wantErr: context.Canceled},
		{name: "released after Done", run: func(c context.Context, _, release func()) {
			done := c.Done()
			release()
			<-done
		}, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parent, cancelParent := context.WithCancel(context.Background())
				defer cancelParent()
				deadline := time.Now().Add(time.Second)
				c, release := withDeadline(parent, deadline)
				defer release()
				tt.run(c, cancelParent, release)
				if err := c.Err(); !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
					t.Fatalf("Err() = %v, want %v", err, tt.wantErr)
				}
				if d, ok := c.Deadline(); !ok || !d.Equal(deadline) {
					t.Errorf("Deadline() = %v, %v; want %v, true", d, ok, deadline)
				}
			})
		})
	}
}

// BenchmarkDeadline is a build's deadline set and released, as a timer
// (context.WithTimeout) and polled (withDeadline), under a parent like
// net/http's request context; a build polls Err a few times.
func BenchmarkDeadline(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("timer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, release := context.WithTimeout(parent, time.Second)
			for range 8 {
				_ = c.Err()
			}
			release()
		}
	})
	b.Run("polled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, release := withDeadline(parent, time.Now().Add(time.Second))
			for range 8 {
				_ = c.Err()
			}
			release()
		}
	})
}
