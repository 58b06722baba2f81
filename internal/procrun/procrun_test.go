//go:build unix

package procrun_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/procrun"
	"github.com/ka2/ka2/internal/testutil"
)

func TestRun(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	tests := []struct {
		name       string
		spec       procrun.Spec
		wantStdout string
		wantStderr string
		wantCode   int
		wantIs     error  // a sentinel the error matches
		wantAs     string // or the type it is: exit, start
		wantErr    string
	}{
		{
			name:       "stdin to stdout",
			spec:       procrun.Spec{Argv: []string{"sh", "-c", "tr a-z A-Z; echo note >&2"}, Stdin: []byte("hello"), Env: env},
			wantStdout: "HELLO", wantStderr: "note\n",
		},
		{
			name:       "the environment is only what is given",
			spec:       procrun.Spec{Argv: []string{"/bin/sh", "-c", `printf '%s' "${HOME-unset}"`}},
			wantStdout: "unset",
		},
		{
			name:       "non-zero exit",
			spec:       procrun.Spec{Argv: []string{"sh", "-c", "echo why >&2; exit 3"}, Env: env},
			wantStderr: "why\n", wantCode: 3, wantAs: "exit", wantErr: "exited with status 3",
		},
		{
			name:     "killed by a signal",
			spec:     procrun.Spec{Argv: []string{"sh", "-c", "kill -9 $$"}, Env: env},
			wantCode: -1, wantAs: "exit", wantErr: "was stopped (signal: killed)",
		},
		{
			name:   "time limit",
			spec:   procrun.Spec{Argv: []string{"sh", "-c", "sleep 5"}, Env: env, Timeout: time.Second, After: testutil.Passed},
			wantIs: procrun.ErrTimeout, wantCode: -1,
		},
		{
			name:       "stdout over its limit",
			spec:       procrun.Spec{Argv: []string{"sh", "-c", "while :; do echo 0123456789; done"}, Env: env, MaxStdout: 100},
			wantStdout: strings.Repeat("0123456789\n", 10)[:101], wantIs: procrun.ErrStdoutLimit, wantCode: -1,
		},
		{
			name:       "stderr over its limit keeps its tail",
			spec:       procrun.Spec{Argv: []string{"sh", "-c", "printf 'aaaaaaaaaa%.0s' 1 2 3 4 5 >&2; printf 'zz' >&2"}, Env: env, MaxStderr: 12},
			wantStderr: "[ka2: stderr is over its 12 bytes limit; its first 40 bytes were not kept]\naaaaaaaaaazz",
		},
		{
			name:   "not found",
			spec:   procrun.Spec{Argv: []string{"./no-such-program"}, Dir: t.TempDir()},
			wantAs: "start", wantErr: "no such file or directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := procrun.Run(context.Background(), tt.spec)
			got := []any{string(res.Stdout), res.Stderr, res.ExitCode}
			if diff := cmp.Diff([]any{tt.wantStdout, tt.wantStderr, tt.wantCode}, got); diff != "" {
				t.Errorf("stdout, stderr, exit code mismatch (-want +got):\n%s", diff)
			}
			var ee *procrun.ExitError
			var se *procrun.StartError
			switch {
			case tt.wantIs == nil && tt.wantAs == "":
				if err != nil {
					t.Fatalf("Run() = %v, want success", err)
				}
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Fatalf("Run() = %v, want %v", err, tt.wantIs)
			case tt.wantAs == "exit" && (!errors.As(err, &ee) || ee.Code != tt.wantCode):
				t.Fatalf("Run() = %v, want an *ExitError with code %d", err, tt.wantCode)
			case tt.wantAs == "start" && !errors.As(err, &se):
				t.Fatalf("Run() = %v, want a *StartError", err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestRunCancel: a cancelled context ends the program and is the error.
// The program writes to a FIFO once it runs, and the test cancels when it
// has read that, so the cancel always finds the program running.
func TestRunCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		os.ReadFile(fifo) // blocks until the program has written
		cancel()
	}()
	res, err := procrun.Run(ctx, procrun.Spec{Argv: []string{"sh", "-c", "echo $$ > " + fifo + "; sleep 5"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if !errors.Is(err, context.Canceled) || res.ExitCode != -1 {
		t.Errorf("Run() = %v with exit code %d, want context.Canceled and -1", err, res.ExitCode)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{32 << 20: "32 MiB", 1 << 20: "1 MiB", 64 << 10: "64 KiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := procrun.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
