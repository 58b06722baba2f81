package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/internal/testutil"
)

// TestInterrupted runs commands under a context that is already cancelled,
// as after Ctrl-C: each stops before doing its work, prints nothing on
// stdout, and exits 130 with the cancellation on stderr.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	contract := filepath.Join(dir, "contract.json")
	testutil.WriteFile(t, contract, "{}\n")
	tests := []struct {
		name string
		args []string
	}{
		{"lint sample", []string{"lint"}},
		{"lint folder", []string{"lint", dir}},
		{"impact", []string{"impact", "--cases", dir, "--corpus", dir, "--base", dir}},
		{"regress", []string{"regress", dir}},
		{"review", []string{"review", dir}},
		{"select", []string{"select", "--subject", "lodging", "--date", "2026-09-14"}},
		{"show", []string{"show", "travel-v2:1-3"}},
		{"build", []string{"build", "--subject", "lodging", "--date", "2026-09-14", "--question", "q"}},
		{"verify", []string{"verify", contract}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := cli.TestFactory("")
			code := cli.Run(ctx, f, tt.args)
			if code != cli.ExitInterrupted || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "ka2: ") ||
				!strings.HasSuffix(stderr.String(), "context canceled\n") {
				t.Errorf("ka2 %s: exit %d, stdout %q, stderr %q; want exit 130, no output and the cancellation",
					strings.Join(tt.args, " "), code, stdout, stderr)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		f, _, stderr := cli.TestFactory("")
		code := cli.Run(ctx, f, []string{"--error-format", "json", "lint"})
		var got cliError
		if err := json.Unmarshal(stderr.Bytes(), &got); err != nil || code != cli.ExitInterrupted || got.Error.Kind != "interrupted" {
			t.Errorf("exit %d, stderr %s; want exit 130 and kind interrupted", code, stderr)
		}
	})
}

// TestInterruptedGit: lint --changed-since stops when the interrupt comes
// while git runs; git is given the command's context.
func TestInterruptedGit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, stdout, stderr := cli.TestFactory("")
	var calls int
	f.Git = func(gctx context.Context, args ...string) ([]byte, error) {
		calls++
		cancel() // the interrupt arrives while git runs
		<-gctx.Done()
		return nil, gctx.Err()
	}
	code := cli.Run(ctx, f, []string{"lint", "--changed-since", "main", t.TempDir()})
	if code != cli.ExitInterrupted || calls != 1 || stdout.Len() != 0 {
		t.Errorf("exit %d after %d git call(s), stdout %q, stderr %q; want exit 130 after one", code, calls, stdout, stderr)
	}
}

// TestRegressInterruptedMidway interrupts `ka2 regress --update --jobs 1`
// after its second case (the interrupt comes with the second redraw of the
// progress line): it exits 130, says how far it got, leaves no temporary
// file, and every golden is either as it was or the new output.
func TestRegressInterruptedMidway(t *testing.T) {
	setupRegressFixture(t)
	goldens := map[string]string{}
	err := filepath.WalkDir("cases", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".golden") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			goldens[p] = string(data)
			// Stale, so that --update rewrites every one.
			return os.WriteFile(p, []byte("stale\n"), 0o644)
		}
		return err
	})
	if err != nil || len(goldens) != 7 {
		t.Fatalf("fixture: %d goldens, %v", len(goldens), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, _, stderr := cli.TestFactory("")
	// The progress line on the terminal is written after each case.
	f.ErrOut, f.ErrTTY = &cancelOnWrite{n: 2, cancel: cancel, w: stderr}, true
	code := cli.Run(ctx, f, []string{"regress", "--update", "--jobs", "1", "cases"})
	if code != cli.ExitInterrupted || !strings.Contains(stderr.String(), "run stopped after 2 of 7 cases, 2 golden files written") {
		t.Fatalf("exit %d, stderr %q; want 130 and how far the run got", code, stderr)
	}
	rewritten := 0
	err = filepath.WalkDir("cases", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		want, ok := goldens[p]
		if !ok {
			return nil
		}
		switch got, _ := os.ReadFile(p); string(got) {
		case "stale\n":
		case want:
			rewritten++
		default:
			t.Errorf("%s is neither the old golden nor the new one:\n%s", p, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rewritten != 2 {
		t.Errorf("%d goldens rewritten, want 2", rewritten)
	}
}

// cancelOnWrite calls cancel at its n-th write.
type cancelOnWrite struct {
	mu     sync.Mutex
	n      int
	cancel func()
	// w, if not nil, gets what is written.
	w io.Writer
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n--; w.n == 0 {
		w.cancel()
	}
	if w.w != nil {
		return w.w.Write(p)
	}
	return len(p), nil
}

// TestReviewInterruptedAtPrompt: Ctrl-C while review waits for an answer
// stops it with exit 130, the pending goldens left as they are.
func TestReviewInterruptedAtPrompt(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	regressCLI(t, "", "regress", "--pending", "cases").want(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, stdout, stderr := cli.TestFactory("")
	block := make(chan struct{})
	defer close(block)
	f.In = cli.CancelReader(ctx, blockingReader{cancel: cancel, block: block})
	code := cli.Run(ctx, f, []string{"review", "cases"})
	if code != cli.ExitInterrupted || !strings.Contains(stdout.String(), "accept? [y]es") ||
		!strings.Contains(stderr.String(), "review stopped, 1 pending golden left untouched") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 130 after the prompt", code, stdout, stderr)
	}
	if _, err := os.Stat(firstFreeDay + ".new"); err != nil {
		t.Errorf("the pending golden is gone: %v", err)
	}
}

// blockingReader is a terminal nobody types at: Read cancels (the user
// presses Ctrl-C) and blocks until the test ends.
type blockingReader struct {
	cancel func()
	block  chan struct{}
}

func (r blockingReader) Read([]byte) (int, error) {
	r.cancel()
	<-r.block
	return 0, io.EOF
}
