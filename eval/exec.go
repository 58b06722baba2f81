package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/internal/procrun"
)

// Exec is a generator that is a local program. It reads one line of
// compact JSON on stdin, {"contract": …, "request": …} (the variant
// contract and the Request), and prints the answer text on stdout. It
// runs as a pipeline stage's program does (package procrun): in its own
// process group, ended with everything it started when it exits, times
// out or writes too much, under a time limit and output caps.
type Exec struct {
	// Argv is the program and its arguments; a bare name is looked up on
	// PATH, a relative path is relative to Dir.
	Argv []string
	// Dir is the folder the program runs in; "" is the current one.
	Dir string
	// Env is the program's environment; nil means an empty one.
	Env []string
	// Timeout limits one answer (default DefaultTimeout).
	Timeout time.Duration
	// After, if not nil, replaces a timer for Timeout (tests).
	After func(time.Duration) <-chan time.Time
}

// DefaultTimeout is the time limit of one answer: an Exec program's run,
// and an Endpoint's request.
const DefaultTimeout = 2 * time.Minute

// execInput is what an Exec program reads.
type execInput struct {
	Contract json.RawMessage `json:"contract"`
	Request  Request         `json:"request"`
}

// Answer runs the program on the contract and returns what it printed,
// without surrounding white space. A program that fails, times out,
// writes more than 4 MiB or prints no answer, or no UTF-8 text, gives an
// error, which Evaluate records as a failed run.
func (e *Exec) Answer(ctx context.Context, contract []byte, req Request) (string, error) {
	if len(e.Argv) == 0 || e.Argv[0] == "" {
		return "", errors.New("exec: no program to run")
	}
	var doc bytes.Buffer
	if err := json.Compact(&doc, contract); err != nil {
		return "", fmt.Errorf("exec: the contract is not JSON: %w", err)
	}
	stdin, err := jsontext.Marshal(execInput{Contract: doc.Bytes(), Request: req})
	if err != nil {
		return "", err
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	name := e.Argv[0]
	res, err := procrun.Run(ctx, procrun.Spec{Argv: e.Argv, Dir: e.Dir, Env: e.Env, Stdin: append(stdin, '\n'),
		Timeout: timeout, After: e.After, MaxStdout: maxResponse})
	const ended = "its process group was ended"
	var ee *procrun.ExitError
	switch {
	case err == nil:
	case errors.Is(err, procrun.ErrStdoutLimit):
		return "", fmt.Errorf("exec: %s wrote more than %s on stdout, the limit for an answer; it was stopped and %s: %w",
			name, procrun.Size(maxResponse), ended, err)
	case errors.Is(err, procrun.ErrTimeout):
		return "", fmt.Errorf("exec: %s did not finish within %s; %s: %w", name, timeout, ended, err)
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.As(err, &ee):
		err := fmt.Errorf("exec: %s %w", name, ee)
		if line := lastLine(res.Stderr); line != "" {
			err = fmt.Errorf("%w: %s", err, line)
		}
		return "", err
	default:
		return "", fmt.Errorf("exec: cannot run %s: %w", name, err)
	}
	if !utf8.Valid(res.Stdout) {
		return "", fmt.Errorf("exec: %s printed an answer that is not UTF-8 text", name)
	}
	answer := strings.TrimSpace(string(res.Stdout))
	if answer == "" {
		return "", fmt.Errorf("exec: %s printed no answer on stdout", name)
	}
	return answer, nil
}

// lastLine is the last non-empty line of s, for error messages.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
