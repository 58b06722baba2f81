package golden_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/testutil"
)

// TestRunCancelled stops an --update run after its second case, as Ctrl-C
// would: Run returns context.Canceled and no report, no temporary file is
// left, and every golden is either as it was or wholly the new output.
func TestRunCancelled(t *testing.T) {
	inSampleCopy(t)
	s := load(t, "cases")
	if len(s.Cases) < 4 {
		t.Fatalf("the sample has %d cases; the test needs at least 4", len(s.Cases))
	}
	const old = "old golden\n"
	for _, c := range s.Cases {
		testutil.WriteFile(t, c.Golden, old)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := golden.Options{Update: true, Jobs: 1, Progress: func(p golden.Progress) {
		if p.Done == 2 {
			cancel()
		}
	}}
	rep, err := golden.Run(ctx, s, opts)
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Fatalf("Run() = %v, %v; want no report and context.Canceled", rep, err)
	}
	if want := "run stopped after 2 of "; !strings.Contains(err.Error(), want) {
		t.Errorf("Run() error %q does not say %q", err, want)
	}
	rewritten := 0
	for _, c := range s.Cases {
		got, err := os.ReadFile(filepath.FromSlash(c.Golden))
		if err != nil {
			t.Fatal(err)
		}
		switch string(got) {
		case old:
		case string(c.Build().Stored()):
			rewritten++
		default:
			t.Errorf("%s holds neither the old golden nor the new output:\n%s", c.Golden, got)
		}
	}
	if rewritten != 2 {
		t.Errorf("%d goldens rewritten, want the 2 of the cases that ran", rewritten)
	}
	err = filepath.WalkDir("cases", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Impact and Load return context.Canceled at once for a context already
// cancelled, and no result.
func TestCancelledBeforeStart(t *testing.T) {
	inSampleCopy(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := golden.Load(ctx, []string{"cases"}, golden.LoadOptions{}); !errors.Is(err, context.Canceled) || s != nil {
		t.Errorf("Load() = %v, %v; want context.Canceled", s, err)
	}
	s := load(t, "cases")
	corp, err := corpus.Load(corpus.Sample())
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := golden.Impact(ctx, s, corp, corp, 0); !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("Impact() = %v, %v; want context.Canceled", rep, err)
	}
	if rep, err := golden.Run(ctx, s, golden.Options{}); !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("Run() = %v, %v; want context.Canceled", rep, err)
	}
}
