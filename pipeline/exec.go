package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Limits on what an exec program may write. Output over the stdout limit
// is an error; stderr over its limit is cut, and the cut is marked.
const (
	maxStdout = 32 << 20
	maxStderr = 1 << 20
)

// waitDelay bounds how long a stopped program's pipes may stay open, for
// example held by a child it started.
const waitDelay = 2 * time.Second

// exec runs an exec stage: its context as JSON on stdin, its output as a
// StageOutput document on stdout, under its time limit. The snapshot keeps
// stderr and the exit status.
func (r *runner) exec(ctx context.Context, st *Stage, sc *StageContext, snap *Snapshot) (StageOutput, error) {
	stdin, err := marshal(sc)
	if err != nil {
		return StageOutput{}, err
	}
	limit := st.Timeout
	if limit == 0 {
		limit = r.opts.Timeout
	}
	if limit == 0 {
		limit = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	prog := st.Exec[0]
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) {
		// Relative to the pipeline file's folder, not wherever ka2 runs.
		if prog, err = filepath.Abs(filepath.Join(r.opts.Dir, filepath.FromSlash(prog))); err != nil {
			return StageOutput{}, &StageError{Stage: st.Name, Step: "run", Err: fmt.Errorf("%w: %v", ErrStageFailed, err)}
		}
	}
	cmd := exec.CommandContext(cctx, prog, st.Exec[1:]...)
	cmd.Dir = r.opts.Dir
	cmd.Env = r.opts.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &cappedBuffer{max: maxStdout}
	stderr := &cappedBuffer{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	runErr := cmd.Run()
	snap.Stderr = stderr.String()
	if cmd.ProcessState != nil {
		snap.ExitCode = cmd.ProcessState.ExitCode()
	}
	fail := func(step string, err error) (StageOutput, error) {
		return StageOutput{}, &StageError{Stage: st.Name, Step: step, ExitCode: snap.ExitCode, Err: err}
	}
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return fail("run", fmt.Errorf("%w: %s did not finish within %s and was stopped; raise timeout: on the stage, or --timeout",
			ErrTimeout, strings.Join(st.Exec, " "), limit))
	case ctx.Err() != nil:
		return fail("run", fmt.Errorf("%w: %s was stopped: %w", ErrStageFailed, st.Exec[0], ctx.Err()))
	case runErr != nil:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			err := fmt.Errorf("%w: %s exited with status %d", ErrStageFailed, st.Exec[0], snap.ExitCode)
			if snap.ExitCode == -1 {
				err = fmt.Errorf("%w: %s was stopped (%v)", ErrStageFailed, st.Exec[0], ee)
			}
			if line := lastLine(snap.Stderr); line != "" {
				err = fmt.Errorf("%w: %s", err, line)
			}
			return fail("run", err)
		}
		return fail("run", fmt.Errorf("%w: cannot run %s: %v; a program path with a slash is relative to the pipeline file's folder, a bare name is looked up on PATH",
			ErrStageFailed, st.Exec[0], runErr))
	case stdout.over:
		return fail("output", fmt.Errorf("%w: more than %d bytes on stdout", ErrBadOutput, maxStdout))
	}
	out, err := parseStageOutput(stdout.Bytes())
	if err != nil {
		return fail("output", err)
	}
	return out, nil
}

// parseStageOutput reads and checks a StageOutput document.
func parseStageOutput(data []byte) (StageOutput, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return StageOutput{}, fmt.Errorf(`%w: nothing on stdout; write a JSON object such as {"output_text": "…"}`, ErrBadOutput)
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

// cappedBuffer keeps at most max bytes and notes that more came.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
	cut  int
}

// Write keeps what fits and counts the rest; it never fails, so the
// program is never blocked or killed by a full pipe.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.Len()
	if len(p) > room {
		b.over = true
		b.cut += len(p) - max(room, 0)
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// String is the kept text, with a note when some was cut.
func (b *cappedBuffer) String() string {
	if b.over {
		return b.Buffer.String() + fmt.Sprintf("\n[ka2: %d more bytes of stderr were not kept]\n", b.cut)
	}
	return b.Buffer.String()
}
