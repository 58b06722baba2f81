package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestDo(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 100} {
		got := make([]int, 50)
		if err := Do(context.Background(), len(got), jobs, func(i int) { got[i] = i * i }); err != nil {
			t.Fatalf("jobs %d: Do() = %v", jobs, err)
		}
		for i, v := range got {
			if v != i*i {
				t.Fatalf("jobs %d: index %d = %d, want %d", jobs, i, v, i*i)
			}
		}
	}
	if err := Do(context.Background(), 0, 0, func(int) { t.Error("called with n = 0") }); err != nil {
		t.Errorf("Do(n = 0) = %v", err)
	}
}

// TestDoStops: once the context is done no further call starts, and Do
// says that some were left out.
func TestDoStops(t *testing.T) {
	for _, jobs := range []int{1, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int64
		err := Do(ctx, 1000, jobs, func(i int) {
			if calls.Add(1) == 3 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) || calls.Load() >= 1000 {
			t.Errorf("jobs %d: Do() = %v after %d calls, want context.Canceled before all 1000", jobs, err, calls.Load())
		}
	}
}
