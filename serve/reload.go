package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// reuseMargin is how long before a snapshot's load a file must have last
// changed for a reload to reuse what that load parsed from it: wider than
// any file system's timestamp granularity.
const reuseMargin = time.Second

// ErrReloadTimeout is wrapped by the error of a reload that did not
// finish within Config.ReloadTimeout.
var ErrReloadTimeout = errors.New("reload deadline passed")

// load reads and indexes the corpus beside the serving one. With prev, the
// files that did not change since prev was loaded are not read again
// (see loadReusing); with changed too, only those paths are looked at
// (see loadChanged). Once ctx is done, no file the load has not opened
// yet is read (see corpus.Reload), so the load ends soon after.
func (s *Server) load(ctx context.Context, prev *Snapshot, changed []string) (*Snapshot, error) {
	start := s.now()
	t0 := time.Now()
	var prevCorpus *corpus.Corpus
	var prevStats fileStats
	var cutoff time.Time
	if prev != nil {
		prevCorpus, prevStats, cutoff = prev.Corpus, prev.stats, prev.started.Add(-reuseMargin)
	}
	if changed != nil && prev == nil {
		changed = nil
	}
	rev := s.revision(ctx)
	corp, stats, err := loadCorpus(ctx, s.cfg.Build.Corpus, prevCorpus, prevStats, changed, cutoff)
	if err != nil {
		return nil, err
	}
	if rev != "" && s.revision(ctx) != rev {
		rev = "" // committed during the load: which commit the files are is unknown
	}
	// The evidence records are prepared with the index, once per load; a
	// delta reload prepares the changed sources' records only.
	var ix *selector.Index
	var cat *contract.Catalog
	if prev != nil {
		ix = selector.UpdateIndex(prev.Builder.Index, corp)
		cat = contract.UpdateCatalog(prev.Builder.Catalog, ix)
	} else {
		ix = selector.NewIndex(corp)
		cat = contract.NewCatalog(ix)
	}
	b := &contract.Builder{Definition: s.def, Index: ix, Catalog: cat, Counter: s.counter, Limits: s.limits, Policy: s.cfg.Policy}
	return &Snapshot{Builder: b, Corpus: corp, LoadedAt: start, LoadDuration: time.Since(t0), started: t0, stats: stats, Revision: rev}, nil
}

// revision is Config.Revision's answer, or "".
func (s *Server) revision(ctx context.Context) string {
	if s.cfg.Revision == nil {
		return ""
	}
	return s.cfg.Revision(ctx)
}

// loadCorpus is corpus.Location.Load, through loadChanged when changed is
// not nil and loadReusing otherwise. The load reads src.FS as its maker
// narrowed it (a project's exclusions), so ctx stops the load, not a
// wrapper of the file system: one would hide the exclusions.
func loadCorpus(ctx context.Context, src corpus.Location, prev *corpus.Corpus, prevStats fileStats, changed []string, cutoff time.Time) (*corpus.Corpus, fileStats, error) {
	var stats fileStats
	corp, err := src.LoadWith(func(fsys fs.FS) (*corpus.Corpus, error) {
		var c *corpus.Corpus
		var err error
		if changed != nil && prev != nil {
			c, stats, err = loadChanged(ctx, fsys, prev, prevStats, changed, cutoff)
		} else {
			c, stats, err = loadReusing(ctx, fsys, prev, prevStats, cutoff)
		}
		return c, err
	})
	if err != nil {
		return nil, fileStats{}, err
	}
	return corp, stats, nil
}

// ctxFS is the file system of an os.Root that fails every call once ctx
// is done. A call already blocked (reading a FIFO) is not interrupted;
// the reload's deadline abandons it (see reload).
type ctxFS struct {
	ctx  context.Context
	fsys fs.FS // from os.Root.FS: Stat, ReadDir, ReadFile, ReadLink and Lstat
}

func (c ctxFS) done(op, name string) error {
	if err := c.ctx.Err(); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

func (c ctxFS) Open(name string) (fs.File, error) {
	if err := c.done("open", name); err != nil {
		return nil, err
	}
	return c.fsys.Open(name)
}

func (c ctxFS) Stat(name string) (fs.FileInfo, error) {
	if err := c.done("stat", name); err != nil {
		return nil, err
	}
	return fs.Stat(c.fsys, name)
}

func (c ctxFS) Lstat(name string) (fs.FileInfo, error) {
	if err := c.done("lstat", name); err != nil {
		return nil, err
	}
	return fs.Lstat(c.fsys, name)
}

func (c ctxFS) ReadLink(name string) (string, error) {
	if err := c.done("readlink", name); err != nil {
		return "", err
	}
	return fs.ReadLink(c.fsys, name)
}

func (c ctxFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.done("readdir", name); err != nil {
		return nil, err
	}
	return fs.ReadDir(c.fsys, name)
}

func (s *Server) swap(snap *Snapshot, st *ReloadStatus) {
	snap.Generation = s.gen.Add(1)
	s.snap.Store(snap)
	s.status.Store(st)
	s.metrics.corpusSources.Set(float64(len(snap.Corpus.Sources)))
	s.metrics.corpusGeneration.Set(float64(snap.Generation))
	s.metrics.corpusLoaded.Set(float64(snap.LoadedAt.UnixNano()) / 1e9)
	s.metrics.lastReloadOK.Set(1)
	s.metrics.lastReload.Set(float64(st.At.UnixNano()) / 1e9)
}

// Reload loads the corpus again, beside the serving one, and swaps it in
// if it loaded without a problem and differs from the serving one. Files
// whose status did not change since the serving corpus was loaded are not
// read again (see loadReusing); ReloadAll reads every file. The
// files are taken only once settled (see Config.Settle).
//
// On a problem the serving corpus stays, the status (see LastReload,
// /readyz) records the error, and the error is returned. A reload that
// does not end within Config.ReloadTimeout, or before ctx is done, is
// abandoned with an error wrapping ErrReloadTimeout (outcome "timeout"):
// whatever its load gives later is dropped, and the next reload does not
// wait for it. trigger names the cause in the status and the log, e.g.
// "sighup" or "watch". Reloads run one at a time; requests are never
// blocked by one.
func (s *Server) Reload(ctx context.Context, trigger string) (ReloadStatus, error) {
	return s.reload(ctx, trigger, true, nil)
}

// ReloadAll is Reload reading every file again.
func (s *Server) ReloadAll(ctx context.Context, trigger string) (ReloadStatus, error) {
	return s.reload(ctx, trigger, false, nil)
}

// ReloadChanged is Reload told which paths changed (slash-separated,
// relative to the corpus folder), as a file watcher reports them: only
// those files are read again (and waited on to settle), and the rest of
// the corpus is taken from the serving one without a walk of the tree
// (see loadChanged, which walks anyway for a change it cannot
// resolve, such as a folder). The paths of reloads that failed since the
// serving corpus was loaded are read again too. With the embedded sample
// corpus it is Reload.
func (s *Server) ReloadChanged(ctx context.Context, trigger string, paths []string) (ReloadStatus, error) {
	return s.reload(ctx, trigger, true, paths)
}

// loaded is what a load goroutine hands back to the reload that started
// it.
type loaded struct {
	snap *Snapshot
	err  error
}

func (s *Server) reload(ctx context.Context, trigger string, reuse bool, changed []string) (ReloadStatus, error) {
	at := s.now()
	t0 := time.Now()
	// Waiting here is bounded by the deadline of the reload that holds
	// reloadMu: it lets go at its deadline, stuck or not.
	select {
	case s.reloadMu <- struct{}{}:
	case <-ctx.Done():
		return ReloadStatus{Trigger: trigger, At: at, Outcome: ReloadFailed, Error: context.Cause(ctx).Error()}, context.Cause(ctx)
	}
	defer func() { <-s.reloadMu }()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ReloadTimeout)
	defer cancel()
	attempt := s.attempts.Add(1)
	var prev *Snapshot
	if reuse {
		prev = s.Snapshot()
	}
	if changed != nil {
		if s.unapplied == nil {
			s.unapplied = map[string]bool{}
		}
		for _, p := range changed {
			s.unapplied[p] = true
		}
		changed = slices.Sorted(maps.Keys(s.unapplied))
	}

	// The load runs apart, so that a read that blocks for good (a FIFO)
	// holds only its own goroutine: this reload gives up at the deadline
	// and releases reloadMu, and the result, if one ever comes, goes to a
	// channel no reload reads again.
	done := make(chan loaded, 1)
	var doing atomic.Pointer[string] // what the load is at, for a timeout's message
	go func() {
		snap, err := s.settledLoad(ctx, attempt, prev, changed, &doing)
		done <- loaded{snap, err}
	}()
	var res loaded
	timedOut := false
	select {
	case res = <-done:
		timedOut = res.err != nil && ctx.Err() != nil
	case <-ctx.Done():
		timedOut = true
	}
	if timedOut {
		why := "a read that blocks (a FIFO or device named *.md?), or files that never stop changing"
		if d := doing.Load(); d != nil {
			why = *d
		}
		res = loaded{err: fmt.Errorf("%w: the reload did not finish within %s: %s; the previous corpus keeps serving",
			ErrReloadTimeout, s.cfg.ReloadTimeout, why)}
		s.abandon(attempt, done)
	}
	if res.err == nil {
		s.unapplied = nil // the loaded corpus has them all
	}
	st := &ReloadStatus{Attempt: attempt, Trigger: trigger, At: at, Duration: time.Since(t0)}
	s.metrics.loadSeconds.Observe(st.Duration.Seconds())
	switch {
	case timedOut:
		st.Outcome, st.Error = ReloadTimedOut, res.err.Error()
		s.failed(st)
		s.log.Error("corpus reload timed out and was abandoned; the previous corpus keeps serving",
			"trigger", trigger, "attempt", attempt, "serving_digest", s.Snapshot().Digest(), "timeout", s.cfg.ReloadTimeout)
	case res.err != nil:
		st.Outcome, st.Error = ReloadFailed, res.err.Error()
		s.failed(st)
		s.log.Error("corpus reload failed; the previous corpus keeps serving",
			"trigger", trigger, "attempt", attempt, "serving_digest", s.Snapshot().Digest(), "error", res.err.Error(), "duration", st.Duration)
	case res.snap.Digest() == s.Snapshot().Digest():
		st.Outcome, st.Digest = ReloadUnchanged, res.snap.Digest()
		s.status.Store(st)
		s.metrics.lastReloadOK.Set(1)
		s.metrics.lastReload.Set(float64(st.At.UnixNano()) / 1e9)
		s.log.Info("corpus reloaded, unchanged", "trigger", trigger, "digest", st.Digest, "duration", st.Duration)
	default:
		st.Outcome, st.Digest = ReloadOK, res.snap.Digest()
		s.swap(res.snap, st)
		s.log.Info("corpus reloaded", "trigger", trigger, "digest", st.Digest, "generation", res.snap.Generation,
			"sources", len(res.snap.Corpus.Sources), "duration", st.Duration)
	}
	s.metrics.reloads.WithLabelValues(string(st.Outcome)).Inc()
	select {
	case s.reloadNote <- struct{}{}:
	default: // one is waiting already
	}
	if s.hooks.reloaded != nil {
		s.hooks.reloaded(*st)
	}
	return *st, res.err
}

// failed records a reload that left the old corpus serving.
func (s *Server) failed(st *ReloadStatus) {
	s.status.Store(st)
	s.metrics.lastReloadOK.Set(0)
	s.metrics.lastReload.Set(float64(st.At.UnixNano()) / 1e9)
}

// abandon waits, apart, for the load of a reload that gave up on it, and
// drops its result: the reload that started it has returned, and only
// that reload may swap a result in. The gauge of abandoned loads shows
// the ones still running (a read blocked for good stays there).
func (s *Server) abandon(attempt uint64, done <-chan loaded) {
	s.metrics.abandoned.Inc()
	go func() {
		res := <-done
		s.metrics.abandoned.Dec()
		digest := ""
		if res.snap != nil {
			digest = res.snap.Digest()
		}
		s.log.Warn("an abandoned corpus reload finished after its deadline; its result is dropped",
			"attempt", attempt, "digest", digest, "latest_attempt", s.attempts.Load())
		if s.hooks.lateResult != nil {
			s.hooks.lateResult(attempt)
		}
	}()
}

// settledLoad waits for the files to settle, loads them, and checks that
// they did not change while loading; if they did, it waits and loads
// again.
func (s *Server) settledLoad(ctx context.Context, attempt uint64, prev *Snapshot, changed []string, doing *atomic.Pointer[string]) (*Snapshot, error) {
	reading := "still reading the corpus: a read that blocks (a FIFO or device named *.md?) or a very slow file system"
	for {
		seen, err := s.settle(ctx, changed, doing)
		if err != nil {
			return nil, err
		}
		doing.Store(&reading)
		if s.hooks.beforeLoad != nil {
			s.hooks.beforeLoad(ctx, attempt)
		}
		snap, err := s.load(ctx, prev, changed)
		if err != nil {
			return nil, err
		}
		if s.hooks.afterLoad != nil {
			s.hooks.afterLoad(attempt)
		}
		if s.cfg.Settle < 0 {
			return snap, nil
		}
		// Right before the swap: a file written during the load may have
		// been read half-written.
		now, err := s.stamps(ctx, changed)
		if err != nil {
			return nil, err
		}
		if maps.Equal(seen, now) {
			return snap, nil
		}
		s.log.Info("corpus files changed while loading; waiting for them to settle", "attempt", attempt,
			"files", strings.Join(differing(seen, now, 5), ", "))
	}
}

// settle waits until the files under the given paths (nil: the whole
// corpus) keep their stamps for Config.Settle, and returns the stamps.
func (s *Server) settle(ctx context.Context, paths []string, doing *atomic.Pointer[string]) (map[string]corpus.Stamp, error) {
	if s.cfg.Settle < 0 {
		return nil, nil
	}
	cur, err := s.stamps(ctx, paths)
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(s.cfg.Settle)
	defer t.Stop()
	var changing []string
	for {
		select {
		case <-ctx.Done():
			if changing == nil {
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("files still changing: %s", strings.Join(changing, ", "))
		case <-t.C:
		}
		next, err := s.stamps(ctx, paths)
		if err != nil {
			return nil, err
		}
		if maps.Equal(cur, next) {
			return next, nil
		}
		changing = differing(cur, next, 5)
		note := "files still changing: " + strings.Join(changing, ", ")
		doing.Store(&note)
		s.log.Debug("corpus files still changing; waiting for them to settle", "files", strings.Join(changing, ", "))
		cur = next
		t.Reset(s.cfg.Settle)
	}
}

// stamps returns the stamp of every *.md file under the paths (relative
// to the corpus folder; nil is the whole corpus), skipping names that
// start with "." as the loader does. Files it cannot see are missing, as
// far as stamps go: the load reports them.
func (s *Server) stamps(ctx context.Context, paths []string) (map[string]corpus.Stamp, error) {
	dir := s.cfg.Build.Corpus.Dir
	if dir == "" {
		return nil, nil // embedded: never changes
	}
	rootFS, done, err := corpus.OpenFolder(dir)
	if err != nil {
		return nil, nil // the load reports it
	}
	defer done()
	fsys := ctxFS{ctx: ctx, fsys: rootFS}
	if paths == nil {
		paths = []string{"."}
	}
	out := map[string]corpus.Stamp{}
	for _, p := range paths {
		info, err := fs.Stat(fsys, p)
		if err != nil {
			if err := ctx.Err(); err != nil {
				return nil, context.Cause(ctx)
			}
			out[p] = corpus.Stamp{}
			continue
		}
		if !info.IsDir() {
			out[p] = corpus.StampOf(info)
			continue
		}
		if p == "." {
			// The whole corpus, linked folders too, as the loader lists it.
			files, _ := corpus.Files(fsys)
			for _, q := range files {
				if info, err := fs.Stat(fsys, q); err == nil {
					out[q] = corpus.StampOf(info)
				} else {
					out[q] = corpus.Stamp{}
				}
			}
			if err := ctx.Err(); err != nil {
				return nil, context.Cause(ctx)
			}
			continue
		}
		fs.WalkDir(fsys, p, func(q string, d fs.DirEntry, err error) error {
			if err != nil || q != p && strings.HasPrefix(d.Name(), ".") {
				if d != nil && d.IsDir() && q != p {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || path.Ext(q) != ".md" {
				return nil
			}
			if info, err := fs.Stat(fsys, q); err == nil {
				out[q] = corpus.StampOf(info)
			} else {
				out[q] = corpus.Stamp{}
			}
			return nil
		})
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
	}
	return out, nil
}

// differing names up to n paths whose stamps differ between a and b, for
// the log.
func differing(a, b map[string]corpus.Stamp, n int) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(a)) {
		if bs, ok := b[p]; !ok || bs != a[p] {
			out = append(out, p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	if len(out) > n {
		out = append(out[:n], fmt.Sprintf("and %d more", len(out)-n))
	}
	return out
}
