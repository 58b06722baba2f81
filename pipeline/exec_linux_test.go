//go:build linux

package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// TestRunEndsProcessGroup: whatever a stage's program started is ended
// with it, when it times out, when the run is cancelled, and when it exits
// leaving a child that holds its stdout open.
//
// The test process makes itself a child subreaper, so the background
// sleeps the scripts start become its children once their shell is gone.
// It then waits for every process of the stage's group: each must have
// been killed (a sleep that finished by itself was never ended), and the
// group must be gone after (kill(-pgid, 0) is ESRCH). The waits block
// rather than poll, so the test needs no sleeps or clocks.
func TestRunEndsProcessGroup(t *testing.T) {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	fifo := filepath.Join(t.TempDir(), "pgid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		stage   string
		cancel  bool   // cancel the run once the script has written its group to the FIFO
		expire  bool   // make the time limit pass then (RunOptions.After)
		wantIs  error  // nil: the run succeeds
		wantErr string // part of the message
	}{
		{
			name:    "time-out",
			stage:   `{exec: [sh, -c, 'sleep 5 & echo $$ > ` + fifo + `; wait'], timeout: 1s}`,
			expire:  true,
			wantIs:  ErrTimeout,
			wantErr: "stage 'a': stage timed out: sh -c sleep 5 & echo $$ > " + fifo + "; wait did not finish within 1s; its process group was ended",
		},
		{
			name:    "cancel",
			stage:   `{exec: [sh, -c, 'sleep 5 & echo $$ > ` + fifo + `; wait']}`,
			cancel:  true,
			wantIs:  ErrStageFailed,
			wantErr: "stage 'a': stage failed: sh was stopped (context canceled); its process group was ended",
		},
		{
			name:  "a background child holds stdout",
			stage: `{exec: [sh, -c, 'sleep 5 & echo "{\"output_text\":\"$$\"}"']}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseString(t, "group.yaml", "stages:\n  a: "+tt.stage+"\nflow: a\n")
			if err := p.Diagnostics.Err(); err != nil {
				t.Fatalf("check: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			limit := make(chan time.Time)
			opts := RunOptions{Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")},
				After: func(time.Duration) <-chan time.Time { return limit }}
			type result struct {
				run *Run
				err error
			}
			done := make(chan result, 1)
			go func() {
				run, err := p.Run(ctx, RequestInput(lodging2026), opts)
				done <- result{run, err}
			}()
			var pgid string
			if tt.cancel || tt.expire {
				b, err := os.ReadFile(fifo) // blocks until the script has written
				if err != nil {
					t.Fatal(err)
				}
				pgid = strings.TrimSpace(string(b))
				if tt.cancel {
					cancel()
				} else {
					close(limit) // the time limit passes
				}
			}
			res := <-done
			switch {
			case tt.wantIs == nil && res.err != nil:
				t.Fatalf("Run() = %v, want success", res.err)
			case tt.wantIs != nil && (!errors.Is(res.err, tt.wantIs) || !strings.Contains(res.err.Error(), tt.wantErr)):
				t.Fatalf("Run() = %v, want %v with %q", res.err, tt.wantIs, tt.wantErr)
			}
			switch {
			case tt.wantIs == nil:
				pgid = res.run.Output()
			}
			n, err := strconv.Atoi(pgid)
			if err != nil || n <= 1 {
				t.Fatalf("the script's process group is %q, want a number", pgid)
			}
			reaped := 0
			for {
				var ws syscall.WaitStatus
				pid, err := syscall.Wait4(-n, &ws, 0, nil)
				if errors.Is(err, syscall.ECHILD) {
					break
				}
				if err != nil {
					t.Fatalf("wait4(-%d): %v", n, err)
				}
				reaped++
				if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Errorf("process %d of the stage's group ended by itself (status %#x); it was not ended with the stage", pid, ws)
				}
			}
			if reaped == 0 {
				t.Errorf("no background process of group %d was left to the test; the script did not run as meant", n)
			}
			if err := syscall.Kill(-n, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("kill(-%d, 0) = %v, want ESRCH: a process of the stage's group is left", n, err)
			}
		})
	}
}
