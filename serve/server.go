package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
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
	// DefaultReloadTimeout bounds one reload, settling included: about
	// five times the 25 s a full load of a million-source (1.4 GB) corpus
	// takes on two cores, so only a load that is stuck (a read that
	// blocks) or a tree that never stops changing reaches it.
	DefaultReloadTimeout = 2 * time.Minute
	// DefaultSettle is how long a changed file's size and modification
	// time must stay the same before a reload takes it: longer than the
	// pauses of a writer that streams a file in pieces (a copy over a slow
	// link, an editor's autosave, a script that writes then appends), and
	// short enough that a change still serves within seconds. Writers
	// that rename a finished file into place never wait on it for long.
	DefaultSettle = 2 * time.Second
	// DefaultQueueWait is the longest an API request waits for its turn
	// when Config.MaxInFlight others are being answered: no longer than
	// the Retry-After of the 503 that sheds it, so that waiting never
	// costs a client more than retrying would. A build takes
	// microseconds to milliseconds, so an ordinary burst (a pipeline's
	// worker pool, tens of connections per core) waits milliseconds.
	DefaultQueueWait = time.Second
	// DefaultMaxQueue bounds the API requests waiting for their turn. A
	// waiting request holds its connection and headers, not its body
	// (read once it has its turn): some 16 KB each, 16 MiB for all.
	DefaultMaxQueue = 1024
	// DefaultPollInterval is how often Watch checks that every watched
	// name still holds the folder it watches (a stat of each: well under
	// a millisecond for a thousand folders), and, while it cannot watch
	// the whole corpus, reloads it: soon enough that a missed change is
	// served within seconds, seldom enough that reloading a large corpus
	// walking the tree does not take a core.
	DefaultPollInterval = 5 * time.Second
)

// DefaultMaxInFlight is the bound on API requests in flight when
// Config.MaxInFlight is zero: four per processor the runtime uses. A
// build is CPU-bound and takes microseconds to milliseconds, so a few per
// core keep every core busy while some requests wait on their clients'
// bodies; beyond that more requests only add latency and memory (each
// may hold a 1 MiB body and its build), and a quick 503 lets the client
// or its load balancer go elsewhere.
func DefaultMaxInFlight() int { return 4 * runtime.GOMAXPROCS(0) }

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
	// PollInterval is how often Watch checks its watches, and reloads
	// while it cannot watch the whole corpus (default
	// DefaultPollInterval).
	PollInterval time.Duration
	// ReloadTimeout bounds one reload, settling and loading (default
	// DefaultReloadTimeout). A reload past it is abandoned and reported
	// (outcome "timeout"); the serving corpus stays, and the next reload
	// does not wait for the abandoned one.
	ReloadTimeout time.Duration
	// Settle is how long the files a reload reads must keep their size
	// and modification time before the reload takes them (default
	// DefaultSettle; negative turns settling off). They are checked again
	// after the load, right before the swap; a change starts the wait
	// again.
	Settle time.Duration
	// UI serves the preview page at GET / (with its script and style
	// sheet under /ui/): a read-only form that builds contracts through
	// the API and shows the timeline.
	UI bool
	// MaxInFlight bounds the API requests (/v1/…) answered at once
	// (default DefaultMaxInFlight()); more wait in a queue, woken in the
	// order they came. /healthz, /readyz and /metrics are not counted, so
	// probes and scrapes still answer under load.
	MaxInFlight int
	// QueueWait bounds how long an API request waits in the queue
	// (default DefaultQueueWait; negative: no queue, a request that
	// finds MaxInFlight others in flight is shed at once). A request that
	// would wait longer, by the recent pace of answers, is answered 503
	// overloaded with Retry-After at once; one that waited that long is
	// answered so then.
	QueueWait time.Duration
	// MaxQueue bounds the requests waiting (default DefaultMaxQueue); one
	// more is shed at once.
	MaxQueue int
	// MaxCapacity bounds the capacity a request may ask for (default
	// DefaultMaxCapacity); Counters are the counters a request may name
	// (nil: every counter the definition sets limits for). A request
	// outside them is a 400 naming the bound.
	MaxCapacity int
	Counters    []string

	// DecisionLog, when not nil, gets a line for every answer of an
	// endpoint that decides (see Decision); every such answer has a
	// decision id in DecisionHeader either way. The caller closes it
	// once Serve returned.
	DecisionLog *DecisionLog
	// Revision, when not nil, names the git commit that holds the corpus
	// files exactly as they are now, or "" when none does (a change not
	// committed). It is asked before and after each load; a load whose
	// two answers differ has no revision. Decisions record it.
	Revision func(ctx context.Context) string
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
	// Revision is the git commit holding this corpus's files, when
	// Config.Revision knows one.
	Revision string

	started time.Time // by the real clock, for the next reload's cutoff
	stats   fileStats // the status of each file when it was listed

	// hdr holds the values of DigestHeader and GenerationHeader, made
	// when the snapshot is first asked for them rather than on every
	// response.
	hdr struct {
		once   sync.Once
		values [2]string
	}
}

// Digest is the corpus digest, as every response reports it.
func (s *Snapshot) Digest() string { return s.Corpus.Digest }

// headers returns the values of DigestHeader and GenerationHeader. The
// handlers put each in a response's header as a slice of length and
// capacity 1, so that a later Add to a response's header copies it
// rather than writing into a slice every response shares.
func (s *Snapshot) headers() []string {
	s.hdr.once.Do(func() {
		s.hdr.values = [2]string{s.Digest(), strconv.FormatUint(s.Generation, 10)}
	})
	return s.hdr.values[:]
}

// ReloadOutcome is how a reload ended.
type ReloadOutcome string

// The outcomes of Reload, as /readyz and the metrics name them.
const (
	ReloadOK        ReloadOutcome = "ok"        // a new corpus is serving
	ReloadUnchanged ReloadOutcome = "unchanged" // the corpus loaded with the serving digest
	ReloadFailed    ReloadOutcome = "error"     // the corpus did not load; the old one serves
	// ReloadTimedOut: the reload did not finish within its deadline (a
	// read that blocks, or files that never settle); it was abandoned, its
	// result is never served, and the old corpus serves.
	ReloadTimedOut ReloadOutcome = "timeout"
)

// ReloadStatus records the last reload.
type ReloadStatus struct {
	// Attempt numbers the reloads from 1 (the first load is 0).
	Attempt  uint64        `json:"attempt"`
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

// The states of WatchStatus.
const (
	// WatchWatching: every folder of the corpus is watched; a change is
	// served about Debounce plus Settle after it.
	WatchWatching = "watching"
	// WatchPolling: some of the corpus cannot be watched (the folder is
	// gone, a folder could not be watched, the system's watches ran
	// out); Watch reloads every PollInterval until it can again, and
	// /readyz says degraded.
	WatchPolling = "polling"
)

// WatchStatus is what Watch is doing, as /readyz reports it.
type WatchStatus struct {
	State string `json:"state"` // WatchWatching or WatchPolling
	// Folders counts the folders watched: the corpus's, the one that
	// holds it, and those links lead to.
	Folders int `json:"folders"`
	// Error says why the corpus cannot be watched, when it cannot.
	Error string `json:"error,omitempty"`
	// Since is when the state, and its error, began.
	Since time.Time `json:"since"`
}

// Server answers contract requests from the current snapshot. Its methods
// are safe for concurrent use.
type Server struct {
	cfg     Config
	def     *contract.Definition
	counter budget.Counter
	limits  budget.Limits
	openAPI []byte // GET /openapi.json's body (see OpenAPI)
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics
	handler http.Handler
	snap    atomic.Pointer[Snapshot]
	// reloadMu is held by the reload running, one at a time: a channel
	// with room for one, so that a reload waiting for it gives up when its
	// context is done.
	reloadMu chan struct{}
	// unapplied are the changed paths (relative, slash-separated) passed
	// to ReloadChanged since the serving corpus was loaded, held by
	// reloadMu: a failed reload leaves the old corpus serving, so the next
	// delta must read those files again too.
	unapplied map[string]bool
	status    atomic.Pointer[ReloadStatus]
	gen       atomic.Uint64
	// watch is what Watch is doing; nil while it does not run.
	watch atomic.Pointer[WatchStatus]
	// reloadNote is sent to, without waiting, at the end of every
	// reload, so that Watch plans its watches anew after one it did not
	// start.
	reloadNote chan struct{}
	// testHookBuild, when set by a test, runs just before a contract
	// build with the build's context.
	testHookBuild func(ctx context.Context)
	// attempts numbers the reloads; a load's result is taken only by the
	// reload that started it, while that reload still holds reloadMu, so
	// a load abandoned at its deadline can never be swapped in late.
	attempts atomic.Uint64
	// admit bounds the API requests answered at once and queues the rest.
	admit *admission
	hooks hooks
	// decisionIDs gives every answer of an endpoint that decides its id.
	decisionIDs *decisionIDs
}

// hooks let tests see and steer what happens inside; all nil outside
// tests (see export_test.go).
type hooks struct {
	beforeLoad func(ctx context.Context, attempt uint64)
	afterLoad  func(attempt uint64)
	lateResult func(attempt uint64)
	reloaded   func(ReloadStatus)
	watching   func()
	inHandler  func(route string)
	queued     func()
	addWatch   func(path string) error
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
	setDefault(&cfg.PollInterval, DefaultPollInterval)
	setDefault(&cfg.RequestTimeout, DefaultRequestTimeout)
	setDefault(&cfg.ReloadTimeout, DefaultReloadTimeout)
	if cfg.Settle == 0 {
		cfg.Settle = DefaultSettle
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight()
	}
	if cfg.QueueWait == 0 {
		cfg.QueueWait = DefaultQueueWait
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = DefaultMaxQueue
	}
	def, err := cfg.Build.Definition()
	if err != nil {
		return nil, err
	}
	counter, limits, err := cfg.Build.Budget(def)
	if err != nil {
		return nil, err
	}
	doc, err := OpenAPI(def)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, def: def, counter: counter, limits: limits, log: cfg.Logger, now: cfg.Now, openAPI: doc}
	s.admit = newAdmission(cfg.MaxInFlight, cfg.MaxQueue, cfg.QueueWait)
	s.reloadMu = make(chan struct{}, 1)
	s.reloadNote = make(chan struct{}, 1)
	s.metrics = newMetrics(cfg.Registry, s.admit)
	s.metrics.maxInFlight.Set(float64(cfg.MaxInFlight))
	s.metrics.maxQueue.Set(float64(s.admit.maxQueue))
	s.metrics.queueWaitBound.Set(max(0, cfg.QueueWait.Seconds()))
	s.decisionIDs = newDecisionIDs()
	if cfg.DecisionLog != nil {
		cfg.DecisionLog.register(s.metrics.reg)
	}
	snap, err := s.load(context.Background(), nil, nil)
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
		return &diag.Diagnostic{Message: fmt.Sprintf("%v (after %s)", ErrDrainTimeout, s.cfg.DrainTimeout), Err: ErrDrainTimeout,
			Hint: diag.Set("raise {drain-timeout}")}
	}
	if err != nil {
		return err
	}
	s.log.Info("drained")
	return nil
}
