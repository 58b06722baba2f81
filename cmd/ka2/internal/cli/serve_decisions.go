package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ka2/ka2/serve"
)

// decisionLog opens the --decision-log file, nil without one, and has the
// server record the git commit of the corpus folder when it is in a git
// work tree.
func (o *ServeOptions) decisionLog(cfg *serve.Config, log *slog.Logger) (*serve.DecisionLog, error) {
	if o.DecisionLog == "" {
		return nil, nil
	}
	open := func() (io.Writer, error) {
		// O_APPEND: each write of whole lines lands whole at the end, also
		// beside another process appending to the same file.
		return os.OpenFile(o.DecisionLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	}
	if o.DecisionLog == "-" {
		open = func() (io.Writer, error) { return o.stderr(), nil } // never closed
	}
	dl, err := serve.OpenDecisionLog(serve.DecisionLogConfig{Open: open, Requests: o.DecisionLogRequests,
		Buffer: o.DecisionLogBuffer, Logger: log, Now: o.f.Now})
	if err != nil {
		return nil, usageError{fmt.Errorf("--decision-log %s: %w", o.DecisionLog, err)}
	}
	cfg.DecisionLog = dl
	if o.Corpus != "" {
		cfg.Revision = gitRevision(o.f.git(), filepath.Clean(o.Corpus))
	}
	return dl, nil
}

// gitRevision returns the Config.Revision of a corpus folder: HEAD when
// the folder is in a git work tree and has no change git sees (modified,
// staged or untracked files), "" otherwise: then no commit holds the files
// served.
func gitRevision(git GitRunner, dir string) func(context.Context) string {
	return func(ctx context.Context) string {
		head, err := git(ctx, "-C", dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
		if err != nil {
			return ""
		}
		status, err := git(ctx, "-C", dir, "status", "--porcelain", "-z", "--untracked-files=all", "--", ".")
		if err != nil || len(status) > 0 {
			return ""
		}
		return strings.TrimSpace(string(head))
	}
}

// stderr is standard error as the log and a --decision-log - share it:
// one write at a time, so that neither cuts a line of the other, and so
// that a writer that is not safe for concurrent use (a test's buffer) is
// not written from two goroutines.
func (o *ServeOptions) stderr() io.Writer {
	if o.errOut == nil {
		o.errOut = &lockedWriter{w: o.f.ErrOut}
	}
	return o.errOut
}

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
