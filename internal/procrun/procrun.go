// Package procrun decides how ka2 runs a program it was told to run (a
// pipeline stage, a hook, an eval generator): in its own process group,
// with its input on stdin, its stdout capped, the tail of its stderr kept
// and a time limit, and with everything the program started ended when it
// exits, times out, is cancelled or writes too much. Callers word the
// failures for their users; procrun returns them as typed errors.
package procrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ka2/ka2/internal/inputfile"
)

// The default output limits. More than MaxStdout bytes on stdout stops the
// program (its whole process group) and fails the run: the output could
// not be read whole, and a program writing without end must not fill the
// memory. Stderr is only for people, so over MaxStderr it is cut rather
// than failed: the last MaxStderr bytes are kept (the end is where a
// failing program says why), after a line saying how much was cut.
const (
	DefaultMaxStdout = 32 << 20
	DefaultMaxStderr = 1 << 20
)

// WaitDelay bounds how long Run waits, after a program's process group
// was ended, for its pipes to close: only a process that left the group
// (with setsid, say) can still hold them then.
const WaitDelay = 2 * time.Second

// Spec is a program to run and its limits.
type Spec struct {
	// Argv is the program and its arguments. A program path is used as
	// it is (relative to Dir when relative and holding a slash); a bare
	// name is looked up on PATH.
	Argv []string
	// Dir is the folder the program runs in; "" is the current one.
	Dir string
	// Env is the program's environment; nil means an empty one, so
	// nothing reaches the program unless the caller passes it.
	Env []string
	// Stdin is written to the program's standard input, then closed.
	Stdin []byte
	// Timeout, when positive, limits the run, counted from the program's
	// start.
	Timeout time.Duration
	// After, if not nil, replaces a timer for Timeout: a test makes the
	// limit pass when it chooses instead of waiting for it.
	After func(time.Duration) <-chan time.Time
	// MaxStdout and MaxStderr are the output limits; zero means
	// DefaultMaxStdout and DefaultMaxStderr.
	MaxStdout, MaxStderr int
}

// Result is what a program left: its stdout (the first MaxStdout+1 bytes
// when it wrote more), the kept tail of its stderr, and its exit status.
type Result struct {
	Stdout []byte
	// Stderr is the last MaxStderr bytes, after a line saying how much
	// was cut when there was more.
	Stderr string
	// ExitCode is the program's exit status, -1 when a signal ended it,
	// 0 when it did not run.
	ExitCode int
}

// Sentinels for why a run failed. Run returns them, a *ExitError, a
// *StartError, or the context's error when ctx was done.
var (
	// ErrTimeout: the program ran past Spec.Timeout; its process group
	// was ended.
	ErrTimeout = errors.New("time limit passed")
	// ErrStdoutLimit: the program wrote more than MaxStdout bytes on
	// stdout; it was stopped with its process group.
	ErrStdoutLimit = errors.New("stdout over its limit")
)

// ExitError is a program that exited non-zero or was ended by a signal.
type ExitError struct {
	// Code is the exit status, -1 for a signal.
	Code int
	Err  *exec.ExitError
}

// Error says how the program ended: "exited with status N" or "was
// stopped (signal: …)".
func (e *ExitError) Error() string {
	if e.Code == -1 {
		return fmt.Sprintf("was stopped (%v)", e.Err)
	}
	return fmt.Sprintf("exited with status %d", e.Code)
}

// Unwrap returns the *exec.ExitError.
func (e *ExitError) Unwrap() error { return e.Err }

// StartError is a program that could not be started: not found, not
// executable, or no pipes to give it.
type StartError struct{ Err error }

// Error is the cause.
func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *StartError) Unwrap() error { return e.Err }

// Run runs spec's program and waits for it. The program runs in its own
// process group (on Unix), and whatever of the group is still running
// when the program exits, times out, is cancelled or writes too much is
// ended, so that nothing it started outlives the run. The Result is
// filled as far as the program got, also when the error is not nil.
//
// The error is checked in this order: ErrStdoutLimit, ErrTimeout (only
// when ctx is not done), ctx's error, then *ExitError or *StartError.
func Run(ctx context.Context, spec Spec) (Result, error) {
	maxOut, maxErr := spec.MaxStdout, spec.MaxStderr
	if maxOut <= 0 {
		maxOut = DefaultMaxStdout
	}
	if maxErr <= 0 {
		maxErr = DefaultMaxStderr
	}
	// Two contexts: the outer one is cancelled with ErrStdoutLimit when
	// stdout passes its limit; the inner one also ends, with ErrTimeout,
	// at the time limit, counted from the program's start.
	lctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cctx, cancel := context.WithCancelCause(lctx)
	defer cancel(nil)
	startClock := func() {
		if spec.Timeout <= 0 {
			return
		}
		expired, stopTimer := after(spec.After, spec.Timeout)
		go func() {
			defer stopTimer()
			select {
			case <-expired:
				cancel(ErrTimeout)
			case <-cctx.Done():
			}
		}()
	}

	cmd := exec.CommandContext(cctx, spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	ownGroup(cmd)
	cmd.Cancel = func() error { return endGroup(cmd.Process) }
	cmd.WaitDelay = WaitDelay
	p, runErr := runPiped(cmd, spec.Stdin, maxOut, maxErr, startClock, func() { stop(ErrStdoutLimit) })
	res := Result{Stdout: p.stdout, Stderr: p.stderr}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case p.stdoutOver:
		return res, ErrStdoutLimit
	case errors.Is(context.Cause(cctx), ErrTimeout) && ctx.Err() == nil:
		return res, ErrTimeout
	case ctx.Err() != nil:
		return res, ctx.Err()
	case runErr != nil:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return res, &ExitError{Code: res.ExitCode, Err: ee}
		}
		return res, &StartError{Err: runErr}
	}
	return res, nil
}

// after returns a channel that receives once d has passed (f, or a
// timer), and a function that releases the timer.
func after(f func(time.Duration) <-chan time.Time, d time.Duration) (<-chan time.Time, func()) {
	if f != nil {
		return f(d), func() {}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// piped is what a program wrote.
type piped struct {
	stdout     []byte
	stdoutOver bool // more than the limit came; stdout holds the first limit+1 bytes
	stderr     string
}

// runPiped runs cmd with stdin as its standard input and reads its stdout
// and stderr under their limits; onStart is called once the program has
// started, onOver once stdout passes its limit (it must make cmd's context
// end).
//
// Run makes the pipes itself rather than leaving that to os/exec, so that
// Wait returns when the program exits, even when a process it left behind
// holds a pipe open; the group is ended then, which closes those pipes.
func runPiped(cmd *exec.Cmd, stdin []byte, maxOut, maxErr int, onStart, onOver func()) (piped, error) {
	var res piped
	var files []*os.File // every end still open in this process
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return res, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return res, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return res, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The program holds its own copies now; Run keeps only its ends, so
	// that end of file comes when the program's side is closed.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		closeAll()
		return res, err
	}
	onStart()

	var wg sync.WaitGroup
	wg.Go(func() {
		// A program that does not read its input gets EPIPE here, which
		// is its choice, not an error.
		inW.Write(stdin)
		inW.Close()
	})
	wg.Go(func() {
		res.stdout, _ = io.ReadAll(io.LimitReader(outR, int64(maxOut)+1))
		if len(res.stdout) > maxOut {
			res.stdoutOver = true
			onOver()
		}
		outR.Close()
	})
	tail := tailBuffer{max: maxErr}
	wg.Go(func() {
		tail.readFrom(errR)
		errR.Close()
	})
	waitErr := cmd.Wait()
	// The program has exited; end what it left running in its group, so
	// that the pipes they hold close.
	endGroup(cmd.Process)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(WaitDelay):
		// A process outside the group holds a pipe; stop reading.
		closeAll()
		<-done
	}
	res.stderr = tail.String()
	return res, waitErr
}

// tailBuffer keeps the last max bytes of a stream and counts the rest.
type tailBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

// readFrom reads r to its end (or an error), keeping the last max bytes.
// The buffer grows to at most twice max before the old half is dropped,
// so each byte is copied a bounded number of times.
func (t *tailBuffer) readFrom(r io.Reader) {
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		t.buf = append(t.buf, chunk[:n]...)
		if len(t.buf) > 2*t.max {
			drop := len(t.buf) - t.max
			t.dropped += int64(drop)
			t.buf = t.buf[:copy(t.buf, t.buf[drop:])]
		}
		if err != nil {
			break
		}
	}
	if len(t.buf) > t.max {
		drop := len(t.buf) - t.max
		t.dropped += int64(drop)
		t.buf = t.buf[drop:]
	}
	// Start on a whole character, not inside one.
	for len(t.buf) > 0 && !utf8.RuneStart(t.buf[0]) {
		t.buf = t.buf[1:]
		t.dropped++
	}
}

// String is the kept text, after a line saying how much was cut.
func (t *tailBuffer) String() string {
	if t.dropped == 0 {
		return string(t.buf)
	}
	return fmt.Sprintf("[ka2: stderr is over its %s limit; its first %d bytes were not kept]\n", Size(t.max), t.dropped) + string(t.buf)
}

// Size writes a byte count as people read a limit: "32 MiB", "64 KiB" or
// "100 bytes".
func Size(n int) string { return inputfile.Size(int64(n)) }
