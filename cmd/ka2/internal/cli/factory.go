package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/procrun"
)

// Factory is everything a command takes from the world outside the
// process: the standard streams and whether each is a terminal, the
// environment, git, the clock, the listener of serve and its reload
// signal. Main makes the real one (System) once and hands it to every
// command; tests make their own (TestFactory, or a literal). Commands
// reach none of these any other way.
//
// A nil function field means the real thing (the process's environment,
// git on PATH, time.Now, net.Listen); a nil Hangup means no reload signal.
type Factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTTY, OutTTY and ErrTTY say whether In, Out and ErrOut are
	// terminals (regress draws its progress line only on a terminal).
	InTTY, OutTTY, ErrTTY bool

	// Getenv reads one environment variable (regress reads CI); Environ
	// lists the whole environment (handed to pipeline exec stages).
	Getenv  func(string) string
	Environ func() []string
	// Git runs git with the given arguments and returns its standard
	// output (lint --changed-since and --format sarif, impact --base-ref).
	Git GitRunner
	// Now is the clock, read only by the CLI to resolve defaults (lint's
	// --today) and to stamp provenance events.
	Now func() time.Time
	// Listen opens the listener serve answers on, for its --addr.
	Listen func(addr string) (net.Listener, error)
	// Columns is the width of the terminal Out is, in columns (timeline
	// fits its text chart to it); nil or 0 means unknown.
	Columns func() int
	// Hangup returns a channel that receives a value for each request to
	// reload the corpus (SIGHUP), and a function that stops the delivery.
	Hangup func() (<-chan os.Signal, func())

	// Version describes the binary for the outputs that record it
	// (traces, SARIF, the Action pin init writes); nil means this
	// binary's own (currentVersion).
	Version func() VersionInfo

	// Hostname names the machine for the reports that record it (regress);
	// nil is os.Hostname.
	Hostname func() (string, error)

	// UID is the user ka2 runs as, for the owner check of the settings
	// files found upward (see project.Trust); nil is os.Getuid.
	UID func() int

	// ErrorFormat is "text" or "json", from the root --error-format flag.
	ErrorFormat string

	// ConfigFile is the project file the root --config flag names; Dir
	// is the folder a project file is looked for from, upward ("" means
	// the working folder).
	ConfigFile, Dir string
	proj            projectState
	warned          map[string]bool // the settings files passed over, warned about once each
}

// GitRunner runs git with args and returns its standard output. It stops
// git when ctx is done.
type GitRunner func(ctx context.Context, args ...string) ([]byte, error)

// System is the Factory of the running process: its standard streams, its
// environment, git on PATH, the system clock, TCP listeners and SIGHUP.
func System() *Factory {
	return &Factory{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: isTerminal(os.Stdin), OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr),
		Getenv: os.Getenv, Environ: os.Environ,
		Git:    runGit,
		Now:    time.Now,
		Listen: listenTCP,
		Hangup: notifyHangup,
		// Asked when a command needs it: a terminal can be resized.
		Columns: terminalColumns,
	}
}

// TestFactory is a Factory for tests: stdin holds the given text, stdout
// and stderr are the returned buffers, no stream is a terminal, the
// environment is empty, and the clock stands at 2026-09-14 09:00 UTC. Git
// and Listen are the real ones; there is no reload signal.
func TestFactory(stdin string) (f *Factory, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	f = &Factory{
		In: strings.NewReader(stdin), Out: stdout, ErrOut: stderr,
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
		Now:     func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) },
	}
	return f, stdout, stderr
}

func (f *Factory) version() VersionInfo {
	if f.Version == nil {
		return currentVersion()
	}
	return f.Version()
}

func (f *Factory) getenv(key string) string {
	if f.Getenv == nil {
		return os.Getenv(key)
	}
	return f.Getenv(key)
}

func (f *Factory) environ() []string {
	if f.Environ == nil {
		return os.Environ()
	}
	return f.Environ()
}

func (f *Factory) git() GitRunner {
	if f.Git == nil {
		return runGit
	}
	return f.Git
}

func (f *Factory) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

func (f *Factory) hostname() (string, error) {
	if f.Hostname == nil {
		return os.Hostname()
	}
	return f.Hostname()
}

func (f *Factory) listen(addr string) (net.Listener, error) {
	if f.Listen == nil {
		return listenTCP(addr)
	}
	return f.Listen(addr)
}

// hangup is f.Hangup, or a channel that never receives.
func (f *Factory) hangup() (<-chan os.Signal, func()) {
	if f.Hangup == nil {
		return nil, func() {}
	}
	return f.Hangup()
}

func listenTCP(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

func notifyHangup() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	return c, func() { signal.Stop(c) }
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// maxGitOutput is the most ka2 reads from one git command. The largest
// output by far is git archive of a corpus folder at a revision (impact
// --base-ref, lint --changed-since), which holds only the folder's policy
// files and .ka2ignore files, each at most inputfile.MaxSize. 256 MiB is
// 64 such files at that cap, or some 16,000 policies of 16 KB (the most a
// contract's default 4096-token budget can quote from one), beyond any
// real corpus, while it stops a hostile or runaway repository before it
// takes the machine's memory.
const maxGitOutput = 256 << 20

// errGitTooLarge matches the error for git output over its cap.
var errGitTooLarge = errors.New("git output too large")

type gitTooLarge struct{ max int }

func (e gitTooLarge) Error() string {
	return fmt.Sprintf("its output is larger than %s, the most ka2 reads from git", inputfile.Size(int64(e.max)))
}

func (e gitTooLarge) Is(target error) bool { return target == errGitTooLarge }

// runGit runs git and returns its standard output; a failure carries git's
// standard error. Paths are never quoted (core.quotePath=false), so a file
// such as 住宿.md comes out as its name; callers also ask for -z output.
// git is ended when ctx is done, and the error then matches ctx.Err().
// Output over maxGitOutput ends git too (see gitLimited).
func runGit(ctx context.Context, args ...string) ([]byte, error) {
	return gitLimited(ctx, maxGitOutput, args...)
}

// gitLimited is runGit with the output capped at max bytes: past it git
// is stopped, with what it started, rather than left writing into a pipe
// nobody reads, and the error matches errGitTooLarge.
func gitLimited(ctx context.Context, max int, args ...string) ([]byte, error) {
	res, err := procrun.Run(ctx, procrun.Spec{
		Argv:      append([]string{"git", "-c", "core.quotePath=false"}, args...),
		Env:       os.Environ(),
		MaxStdout: max,
	})
	if err == nil {
		return res.Stdout, nil
	}
	cmdline := strings.Join(args, " ")
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("git %s: %w", cmdline, cerr)
	}
	if errors.Is(err, procrun.ErrStdoutLimit) {
		return nil, fmt.Errorf("git %s: %w", cmdline, gitTooLarge{max})
	}
	if msg := strings.TrimSpace(res.Stderr); msg != "" {
		return nil, fmt.Errorf("git %s: %s", cmdline, msg)
	}
	var ee *procrun.ExitError
	if errors.As(err, &ee) {
		return nil, fmt.Errorf("git %s: %w", cmdline, ee.Err)
	}
	var se *procrun.StartError
	if errors.As(err, &se) {
		err = se.Err
	}
	return nil, fmt.Errorf("this needs git: %w", err)
}

// cancelReader is a reader whose Read returns ctx's error once ctx is done,
// even while the read underneath is still blocked (on a terminal waiting
// for a line, say): Ctrl-C must stop `ka2 review` at its prompt and a
// command reading --request - from a terminal. The blocked read is left to
// the exiting process.
type cancelReader struct {
	ctx context.Context
	r   io.Reader
}

type readResult struct {
	n   int
	err error
}

func (c cancelReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	buf := make([]byte, len(p))
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

// cmdContext is embedded in every command's options: the context the
// command runs under (cmd.Context(), which SIGINT and SIGTERM cancel).
type cmdContext struct {
	// Ctx ends the command's long operations when it is done; nil means
	// context.Background().
	Ctx context.Context
}

func (c *cmdContext) ctx() context.Context {
	if c.Ctx == nil {
		return context.Background()
	}
	return c.Ctx
}

// CancelReader returns a reader of r whose Read gives up with ctx's error
// once ctx is done, even while a read of r is blocked (see cancelReader).
func CancelReader(ctx context.Context, r io.Reader) io.Reader {
	return cancelReader{ctx: ctx, r: r}
}
