package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/jsontext"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits on what an exec program may write. More than maxStdout bytes on
// stdout stops the program (its whole process group) and fails the stage:
// the output could not be read whole, and a program writing without end
// must not fill the memory. Stderr is only for people, so over maxStderr it
// is cut rather than failed: the last maxStderr bytes are kept (the end is
// where a failing program says why), after a line saying how much was cut.
const (
	maxStdout = 32 << 20
	maxStderr = 1 << 20
)

// waitDelay bounds how long ka2 waits, after a stage's process group was
// ended, for its pipes to close: only a process that left the group (with
// setsid, say) can still hold them then.
const waitDelay = 2 * time.Second

// errStdoutLimit is the cause given to a stage's context when its stdout
// passed maxStdout; errTimeLimit when its time limit passed.
var (
	errStdoutLimit = errors.New("stdout over its limit")
	errTimeLimit   = errors.New("time limit passed")
)

// exec runs an exec stage: its context as JSON on stdin, its output as a
// StageOutput document on stdout, under its time limit. The program runs
// in its own process group, and whatever of the group is still running
// when the program exits, times out, is cancelled or writes too much is
// ended, so that nothing a stage started outlives it. The snapshot keeps
// stderr and the exit status.
func (r *runner) exec(ctx context.Context, st *Stage, sc *StageContext, snap *Snapshot) (StageOutput, error) {
	stdin, err := marshal(sc)
	if err != nil {
		return StageOutput{}, err
	}
	stdout, err := r.program(ctx, st, st.Exec, stdin, &snap.Stderr, &snap.ExitCode)
	if err != nil {
		return StageOutput{}, err
	}
	out, err := parseStageOutput(stdout)
	if err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "output", ExitCode: snap.ExitCode, Err: err}
	}
	return out, nil
}

// program runs argv, a stage's program or one of its hooks, with stdin
// under the stage's time limit, and returns what it wrote on stdout. It
// sets *stderr and *exitCode; a failure is a *StageError naming st.
func (r *runner) program(ctx context.Context, st *Stage, argv []string, stdin []byte, stderr *string, exitCode *int) ([]byte, error) {
	var err error
	limit := r.limit(st)
	// Two contexts: the outer one is cancelled with errStdoutLimit when
	// stdout passes its limit; the inner one also ends, with errTimeLimit,
	// at the time limit, counted from the program's start.
	lctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cctx, cancel := context.WithCancelCause(lctx)
	defer cancel(nil)
	startClock := func() {
		expired, stopTimer := r.after(limit)
		go func() {
			defer stopTimer()
			select {
			case <-expired:
				cancel(errTimeLimit)
			case <-cctx.Done():
			}
		}()
	}

	prog := argv[0]
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) {
		// Relative to the pipeline file's folder, not wherever ka2 runs.
		if prog, err = filepath.Abs(filepath.Join(r.opts.Dir, filepath.FromSlash(prog))); err != nil {
			return nil, &StageError{Stage: st.Name, Step: "run", Err: fmt.Errorf("%w: %v", ErrStageFailed, err)}
		}
	}
	cmd := exec.CommandContext(cctx, prog, argv[1:]...)
	cmd.Dir = r.opts.Dir
	cmd.Env = r.opts.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	ownGroup(cmd)
	cmd.Cancel = func() error { return endGroup(cmd.Process) }
	cmd.WaitDelay = waitDelay
	res, runErr := runPiped(cmd, stdin, startClock, func() { stop(errStdoutLimit) })
	*stderr = res.stderr
	if cmd.ProcessState != nil {
		*exitCode = cmd.ProcessState.ExitCode()
	}
	fail := func(step string, err error) ([]byte, error) {
		return nil, &StageError{Stage: st.Name, Step: step, ExitCode: *exitCode, Err: err}
	}
	const ended = "its process group was ended"
	switch {
	case res.stdoutOver:
		return fail("output", fmt.Errorf("%w: %s wrote more than %d MiB on stdout, the limit for a stage's output; it was stopped and %s",
			ErrOutputLimit, argv[0], maxStdout>>20, ended))
	case errors.Is(context.Cause(cctx), errTimeLimit) && ctx.Err() == nil:
		return fail("run", fmt.Errorf("%w: %s did not finish within %s; %s; raise timeout: on the stage, or --timeout",
			ErrTimeout, strings.Join(argv, " "), limit, ended))
	case ctx.Err() != nil:
		return fail("run", fmt.Errorf("%w: %s was stopped (%w); %s", ErrStageFailed, argv[0], ctx.Err(), ended))
	case runErr != nil:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			err := fmt.Errorf("%w: %s exited with status %d", ErrStageFailed, argv[0], *exitCode)
			if *exitCode == -1 {
				err = fmt.Errorf("%w: %s was stopped (%v)", ErrStageFailed, argv[0], ee)
			}
			if line := lastLine(*stderr); line != "" {
				err = fmt.Errorf("%w: %s", err, line)
			}
			return fail("run", err)
		}
		return fail("run", fmt.Errorf("%w: cannot run %s: %v; a program path with a slash is relative to the pipeline file's folder, a bare name is looked up on PATH",
			ErrStageFailed, argv[0], runErr))
	}
	return res.stdout, nil
}

// piped is what a stage program wrote.
type piped struct {
	stdout     []byte
	stdoutOver bool // more than maxStdout bytes came; stdout holds the first maxStdout+1
	stderr     string
}

// runPiped runs cmd with stdin as its standard input and reads its stdout
// and stderr under their limits; onStart is called once the program has
// started, onOver once stdout passes its limit (it must make cmd's context
// end).
//
// ka2 makes the pipes itself rather than leaving that to os/exec, so that
// Wait returns when the program exits, even when a process it left behind
// holds a pipe open; the group is ended then, which closes those pipes.
func runPiped(cmd *exec.Cmd, stdin []byte, onStart, onOver func()) (piped, error) {
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
	// The program holds its own copies now; ka2 keeps only its ends, so
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
		res.stdout, _ = io.ReadAll(io.LimitReader(outR, maxStdout+1))
		if len(res.stdout) > maxStdout {
			res.stdoutOver = true
			onOver()
		}
		outR.Close()
	})
	var tail tailBuffer
	wg.Go(func() {
		tail.readFrom(errR, maxStderr)
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
	case <-time.After(waitDelay):
		// A process outside the group holds a pipe; stop reading.
		closeAll()
		<-done
	}
	res.stderr = tail.String()
	return res, waitErr
}

// after returns a channel that receives once d has passed (RunOptions.After,
// or a timer), and a function that releases the timer.
func (r *runner) after(d time.Duration) (<-chan time.Time, func()) {
	if r.opts.After != nil {
		return r.opts.After(d), func() {}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// tailBuffer keeps the last bytes of a stream and counts the rest.
type tailBuffer struct {
	buf     []byte
	dropped int64
}

// readFrom reads r to its end (or an error), keeping the last max bytes.
// The buffer grows to at most twice max before the old half is dropped,
// so each byte is copied a bounded number of times.
func (t *tailBuffer) readFrom(r io.Reader, max int) {
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		t.buf = append(t.buf, chunk[:n]...)
		if len(t.buf) > 2*max {
			drop := len(t.buf) - max
			t.dropped += int64(drop)
			t.buf = t.buf[:copy(t.buf, t.buf[drop:])]
		}
		if err != nil {
			break
		}
	}
	if len(t.buf) > max {
		drop := len(t.buf) - max
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
	return fmt.Sprintf("[ka2: stderr is over its %d MiB limit; its first %d bytes were not kept]\n", maxStderr>>20, t.dropped) + string(t.buf)
}

// parseStageOutput reads and checks a StageOutput document.
func parseStageOutput(data []byte) (StageOutput, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return StageOutput{}, fmt.Errorf(`%w: nothing on stdout; write a JSON object such as {"output_text": "…"}`, ErrBadOutput)
	}
	if err := checkText(data); err != nil {
		return StageOutput{}, fmt.Errorf("%w: stdout: %v", ErrBadOutput, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out StageOutput
	if err := dec.Decode(&out); err != nil {
		return StageOutput{}, fmt.Errorf("%w: %v; the keys are output_text or output, messages, tool_results and artifacts", ErrBadOutput, err)
	}
	if dec.More() {
		return StageOutput{}, fmt.Errorf("%w: more than one JSON value on stdout", ErrBadOutput)
	}
	if out.OutputText != nil && out.Output != nil {
		return StageOutput{}, fmt.Errorf("%w: both output_text and output are set; write one", ErrBadOutput)
	}
	if bytes.Equal(out.Output, []byte("null")) {
		return StageOutput{}, fmt.Errorf("%w: output is null; write a JSON value or use output_text", ErrBadOutput)
	}
	for i, m := range out.Messages {
		switch m.Role {
		case "system", "user", "assistant", "tool":
		default:
			return StageOutput{}, fmt.Errorf("%w: messages[%d] has role %q; use system, user, assistant or tool", ErrBadOutput, i, m.Role)
		}
	}
	for i, t := range out.ToolResults {
		if t.Tool == "" || t.Content == nil {
			return StageOutput{}, fmt.Errorf("%w: tool_results[%d] needs a tool name and a content", ErrBadOutput, i)
		}
	}
	for name := range out.Artifacts {
		if name == "" {
			return StageOutput{}, fmt.Errorf("%w: an artifact has an empty name", ErrBadOutput)
		}
	}
	return out, nil
}

// checkText refuses JSON whose text encoding/json would silently turn
// into U+FFFD (see jsontext.Check), as "LINE:COL: FIELD: invalid text: …".
func checkText(data []byte) error {
	e := jsontext.Check(data)
	if e == nil {
		return nil
	}
	where := fmt.Sprintf("%d:%d", e.Line, e.Col)
	if f := e.Describe(); f != "" {
		where += ": " + f
	}
	return fmt.Errorf("%s: invalid text: %s; %s", where, e.Msg, e.Hint)
}
