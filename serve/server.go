package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Defaults of Config's limits and timeouts.
const (
	DefaultMaxBodyBytes      = 1 << 20 // 1 MiB
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 10 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultDrainTimeout      = 10 * time.Second
	DefaultDebounce          = 250 * time.Millisecond
	// DefaultRequestTimeout bounds one contract build: a build of the
	// largest request the default body limit lets in takes well under a
	// second, and the answer must leave room within DefaultWriteTimeout.
	DefaultRequestTimeout = 10 * time.Second
)

// Config is what a Server is made from. Build names the corpus, the
// contract definition, the counter and the limits exactly as `ka2 build`
// does; Settings are the build flags a request may replace (lang, short,
// require-evidence, and defaults for subject, dates and question).
type Config struct {
	Build    contract.Config
	Settings contract.Settings
	// Policy is the provenance policy; nil means the embedded default.
	Policy *provenance.Policy

	// Logger receives reload outcomes, drain progress and internal
	// errors; nil discards them.
	Logger *slog.Logger
	// Registry receives the server's metrics; nil makes a new registry
	// with the Go and process collectors. /metrics serves this registry.
	// A registry holds one server's metrics: registering a second server's
	// panics, as prometheus.Registry.MustRegister does.
	Registry *prometheus.Registry
	// Now is the clock for timestamps in /readyz and the logs; nil means
	// time.Now. No byte of a contract depends on it.
	Now func() time.Time

	// MaxBodyBytes bounds a request body (default 1 MiB);
	// MaxHeaderBytes the request header (default 64 KiB).
	MaxBodyBytes   int64
	MaxHeaderBytes int
	// Timeouts of the HTTP server; zero takes the default.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// RequestTimeout bounds the build of one POST /v1/contract (default
	// 10 s): past it the build stops and the answer is 503 with kind
	// timeout. A build also stops when its client goes away.
	RequestTimeout time.Duration
	// DrainTimeout bounds how long Serve waits for requests in flight once
	// its context is done (default 10 s).
	DrainTimeout time.Duration
	// Debounce is the quiet period Watch waits for after a change before
	// it reloads (default 250 ms).
	Debounce time.Duration
}

// Snapshot is one loaded corpus and everything built from it. It is never
// changed after it is made; a reload makes a new one.
type Snapshot struct {
	// Builder builds contracts from this corpus; it is safe for
	// concurrent use.
	Builder *contract.Builder
	Corpus  *corpus.Corpus
	// Generation counts the snapshots served, from 1.
	Generation uint64
	LoadedAt   time.Time
	// LoadDuration is how long loading and indexing took.
	LoadDuration time.Duration

	started time.Time // by the real clock, for the next reload's cutoff
}

// Digest is the corpus digest, as every response reports it.
func (s *Snapshot) Digest() string { return s.Corpus.Digest }

// ReloadOutcome is how a reload ended.
type ReloadOutcome string

// The outcomes of Reload, as /readyz and the metrics name them.
const (
	ReloadOK        ReloadOutcome = "ok"        // a new corpus is serving
	ReloadUnchanged ReloadOutcome = "unchanged" // the corpus loaded with the serving digest
	ReloadFailed    ReloadOutcome = "error"     // the corpus did not load; the old one serves
)

// ReloadStatus records the last reload.
type ReloadStatus struct {
	Trigger  string        `json:"trigger"`
	Outcome  ReloadOutcome `json:"outcome"`
	At       time.Time     `json:"at"`
	Duration time.Duration `json:"-"`
	// Error is the load error of a failed reload, every problem of the
	// corpus one per line.
	Error string `json:"error,omitempty"`
	// Digest is the digest of the corpus the reload loaded, when it did.
	Digest string `json:"digest,omitempty"`
}

// Server answers contract requests from the current snapshot. Its methods
// are safe for concurrent use.
type Server struct {
	cfg      Config
	def      *contract.Definition
	counter  budget.Counter
	limits   budget.Limits
	log      *slog.Logger
	now      func() time.Time
	metrics  *metrics
	handler  http.Handler
	snap     atomic.Pointer[Snapshot]
	reloadMu sync.Mutex // one reload at a time
	// unapplied are the changed paths (relative, slash-separated) passed
	// to ReloadChanged since the serving corpus was loaded, held by
	// reloadMu: a failed reload leaves the old corpus serving, so the next
	// delta must read those files again too.
	unapplied map[string]bool
	status    atomic.Pointer[ReloadStatus]
	gen       atomic.Uint64
	// testHookBuild, when set by a test, runs just before a contract
	// build with the build's context.
	testHookBuild func(ctx context.Context)
}

// New loads the definition, the budget and the corpus as `ka2 build`
// would, and makes a Server serving that corpus. A corpus that does not
// load is an error, as it is for `ka2 build` (a *contract.ConfigError).
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	setDefault(&cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDefault(&cfg.ReadTimeout, DefaultReadTimeout)
	setDefault(&cfg.WriteTimeout, DefaultWriteTimeout)
	setDefault(&cfg.IdleTimeout, DefaultIdleTimeout)
	setDefault(&cfg.DrainTimeout, DefaultDrainTimeout)
	setDefault(&cfg.Debounce, DefaultDebounce)
	setDefault(&cfg.RequestTimeout, DefaultRequestTimeout)
	def, err := contract.LoadDefinition(cfg.Build.Contract)
	if err != nil {
		return nil, err
	}
	counter, limits, err := cfg.Build.Budget(def)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, def: def, counter: counter, limits: limits, log: cfg.Logger, now: cfg.Now}
	s.metrics = newMetrics(cfg.Registry)
	snap, err := s.load(nil, nil)
	if err != nil {
		return nil, err
	}
	s.swap(snap, &ReloadStatus{Trigger: "start", Outcome: ReloadOK, At: snap.LoadedAt, Duration: snap.LoadDuration, Digest: snap.Digest()})
	s.handler = s.routes()
	return s, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// Snapshot returns the snapshot serving now.
func (s *Server) Snapshot() *Snapshot { return s.snap.Load() }

// LastReload returns the outcome of the last load, the first one included.
func (s *Server) LastReload() ReloadStatus { return *s.status.Load() }

// Registry returns the registry /metrics serves.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.reg }

// Handler returns the HTTP handler of every endpoint.
func (s *Server) Handler() http.Handler { return s.handler }

// reuseMargin is how long before a snapshot's load a file must have last
// changed for a reload to reuse what that load parsed from it: wider than
// any file system's timestamp granularity.
const reuseMargin = time.Second

// load reads and indexes the corpus beside the serving one. With prev, the
// files that did not change since prev was loaded are not read again
// (see corpus.LoadReusing); with changed too, only those paths are looked
// at (see corpus.LoadChanged).
func (s *Server) load(prev *Snapshot, changed []string) (*Snapshot, error) {
	start := s.now()
	t0 := time.Now()
	var prevCorpus *corpus.Corpus
	var cutoff time.Time
	if prev != nil {
		prevCorpus, cutoff = prev.Corpus, prev.started.Add(-reuseMargin)
	}
	var corp *corpus.Corpus
	var err error
	if changed != nil && prev != nil && s.cfg.Build.Corpus != "" {
		corp, err = loadChanged(s.cfg.Build.Corpus, prevCorpus, changed, cutoff)
	} else {
		corp, err = contract.ReloadCorpus(s.cfg.Build.Corpus, prevCorpus, cutoff)
	}
	if err != nil {
		return nil, err
	}
	var ix *selector.Index
	if prev != nil {
		ix = selector.UpdateIndex(prev.Builder.Index, corp)
	} else {
		ix = selector.NewIndex(corp)
	}
	b := &contract.Builder{Definition: s.def, Index: ix, Counter: s.counter, Limits: s.limits, Policy: s.cfg.Policy}
	return &Snapshot{Builder: b, Corpus: corp, LoadedAt: start, LoadDuration: time.Since(t0), started: t0}, nil
}

// loadChanged is contract.ReloadCorpus through corpus.LoadChanged: the
// same errors, with paths from the corpus folder.
func loadChanged(dir string, prev *corpus.Corpus, changed []string, cutoff time.Time) (*corpus.Corpus, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &contract.ConfigError{Setting: contract.SettingCorpus, Err: fmt.Errorf("open corpus: %w; check the --corpus folder", err)}
	}
	defer root.Close()
	corp, err := corpus.LoadChanged(root.FS(), prev, changed, cutoff)
	if err != nil {
		var list corpus.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				e.Path = path.Join(filepath.ToSlash(dir), e.Path)
			}
		}
		return nil, &contract.ConfigError{Setting: contract.SettingCorpus, Err: err}
	}
	return corp, nil
}

func (s *Server) swap(snap *Snapshot, st *ReloadStatus) {
	snap.Generation = s.gen.Add(1)
	s.snap.Store(snap)
	s.status.Store(st)
	s.metrics.corpusSources.Set(float64(len(snap.Corpus.Sources)))
	s.metrics.corpusGeneration.Set(float64(snap.Generation))
	s.metrics.corpusLoaded.Set(float64(snap.LoadedAt.UnixNano()) / 1e9)
	s.metrics.lastReloadOK.Set(1)
}

// Reload loads the corpus again, beside the serving one, and swaps it in
// if it loaded without a problem and differs from the serving one. Files
// whose status did not change since the serving corpus was loaded are not
// read again (see corpus.LoadReusing); ReloadAll reads every file. On a
// problem the serving corpus stays, the status (see LastReload, /readyz)
// records the error, and the error is returned. trigger names the cause
// in the status and the log, e.g. "sighup" or "watch". Reloads run one at
// a time; requests are never blocked by one.
func (s *Server) Reload(trigger string) (ReloadStatus, error) {
	return s.reload(trigger, true, nil)
}

// ReloadAll is Reload reading every file again.
func (s *Server) ReloadAll(trigger string) (ReloadStatus, error) {
	return s.reload(trigger, false, nil)
}

// ReloadChanged is Reload told which paths changed (slash-separated,
// relative to the corpus folder), as a file watcher reports them: only
// those files are read again, and the rest of the corpus is taken from
// the serving one without a walk of the tree (see corpus.LoadChanged,
// which walks anyway for a change it cannot resolve, such as a folder).
// The paths of reloads that failed since the serving corpus was loaded
// are read again too. With the embedded sample corpus it is Reload.
func (s *Server) ReloadChanged(trigger string, paths []string) (ReloadStatus, error) {
	return s.reload(trigger, true, paths)
}

func (s *Server) reload(trigger string, reuse bool, changed []string) (ReloadStatus, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	at := s.now()
	t0 := time.Now()
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
	snap, err := s.load(prev, changed)
	if err == nil {
		s.unapplied = nil // the loaded corpus has them all
	}
	st := &ReloadStatus{Trigger: trigger, At: at, Duration: time.Since(t0)}
	s.metrics.loadSeconds.Observe(st.Duration.Seconds())
	switch {
	case err != nil:
		st.Outcome, st.Error = ReloadFailed, err.Error()
		s.status.Store(st)
		s.metrics.lastReloadOK.Set(0)
		s.log.Error("corpus reload failed; the previous corpus keeps serving",
			"trigger", trigger, "serving_digest", s.Snapshot().Digest(), "error", err.Error(), "duration", st.Duration)
	case snap.Digest() == s.Snapshot().Digest():
		st.Outcome, st.Digest = ReloadUnchanged, snap.Digest()
		s.status.Store(st)
		s.metrics.lastReloadOK.Set(1)
		s.log.Info("corpus reloaded, unchanged", "trigger", trigger, "digest", st.Digest, "duration", st.Duration)
	default:
		st.Outcome, st.Digest = ReloadOK, snap.Digest()
		s.swap(snap, st)
		s.log.Info("corpus reloaded", "trigger", trigger, "digest", st.Digest, "generation", snap.Generation,
			"sources", len(snap.Corpus.Sources), "duration", st.Duration)
	}
	s.metrics.reloads.WithLabelValues(string(st.Outcome)).Inc()
	return *st, err
}

// HTTPServer returns an http.Server for the handler with the configured
// timeouts and header limit.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// ErrDrainTimeout is returned by Serve when requests were still in flight
// at the end of the drain deadline; their connections were closed.
var ErrDrainTimeout = errors.New("drain deadline passed with requests in flight")

// Serve answers on ln until ctx is done, then stops accepting, waits up to
// the drain timeout for requests in flight and returns nil once they are
// answered, or ErrDrainTimeout after closing the connections still open.
// An error accepting on ln is returned as it is.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "digest", s.Snapshot().Digest())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("draining", "timeout", s.cfg.DrainTimeout)
	dctx, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout)
	defer cancel()
	err := hs.Shutdown(dctx)
	<-errc // http.ErrServerClosed
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		s.log.Error("drain deadline passed; closed the connections still open", "timeout", s.cfg.DrainTimeout)
		return fmt.Errorf("%w (after %s); raise --drain-timeout", ErrDrainTimeout, s.cfg.DrainTimeout)
	}
	if err != nil {
		return err
	}
	s.log.Info("drained")
	return nil
}
