package contract_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ka2/ka2/provenance"
)

// countdown is a context whose Err reports err from its left+1st call on:
// it cancels a build at an exact point of its work, with no clock.
type countdown struct {
	context.Context
	left  atomic.Int64
	calls atomic.Int64
	err   error
}

func newCountdown(left int64, err error) *countdown {
	c := &countdown{Context: context.Background(), err: err}
	c.left.Store(left)
	return c
}

func (c *countdown) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		return c.err
	}
	return nil
}

// TestBuildCancelled cancels a build whose request holds a megabyte
// instruction item that the wrapped-content check reads against many
// lines, at every kind of point: before it starts, between items, and
// deep inside the check. Each time the build returns the context's error
// and no result.
func TestBuildCancelled(t *testing.T) {
	b := typedBuilder(t, nil)
	var lines strings.Builder
	for k := 20; k < 300; k++ {
		lines.WriteString(strings.Repeat("a", k) + "b\n")
	}
	req := typedRequest([]provenance.Item{
		cand(provenance.KindToolOutput, "tool:t", lines.String()),
		cand(provenance.KindInstruction, provenance.SourceSystem, strings.Repeat("a", 1<<20)),
	})
	// An uncancelled run counts the looks at the context.
	full := newCountdown(1<<62, context.Canceled)
	if _, err := b.Build(full, req); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("Build() = %v, want the budget error of a megabyte instruction", err)
	}
	total := full.calls.Load()
	if total < 50 {
		t.Fatalf("the build looked at its context %d times; the wrapped check of a megabyte should look often", total)
	}
	for _, at := range []int64{0, 1, 5, total / 2, total - 1} {
		for _, cause := range []error{context.Canceled, context.DeadlineExceeded} {
			ctx := newCountdown(at, cause)
			res, err := b.Build(ctx, req)
			if !errors.Is(err, cause) || res != nil {
				t.Errorf("Build() cancelled after %d of %d looks = %v, %v; want nil and %v", at, total, res, err, cause)
			}
			// The look that saw the error, and one on the way out:
			// no more work was done.
			if after := ctx.calls.Load() - at; after > 2 {
				t.Errorf("cancelled after %d looks, the build looked %d more times before it stopped", at, after)
			}
		}
	}
}
