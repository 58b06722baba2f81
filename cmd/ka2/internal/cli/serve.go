package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/serve"
)

// ServeOptions are the inputs of `ka2 serve`.
type ServeOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	Lang            string
	Short           bool
	RequireEvidence bool
	Policy          string
	Addr            string
	LogFormat       string
	LogLevel        string
	Watch           bool
	Debounce        time.Duration
	PollInterval    time.Duration
	ReloadTimeout   time.Duration
	Settle          time.Duration
	MaxInFlight     int
	QueueWait       time.Duration
	MaxQueue        int
	DrainTimeout    time.Duration
	RequestTimeout  time.Duration
	CPUProfile      string
	UI              bool
	MemoryLimit     string
	// MaxCapacity and Counters bound a request's "capacity" and
	// "counter".
	MaxCapacity int
	Counters    []string

	// DecisionLog is the decision log's file, "-" for standard error, or
	// "" for none.
	DecisionLog         string
	DecisionLogRequests string
	DecisionLogBuffer   int
	errOut              *lockedWriter // see stderr
}

// NewCmdServe makes `ka2 serve`. runF replaces the run step in tests.
func NewCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer contract requests over HTTP, reloading the corpus when it changes",
		Long: `Serve loads the corpus once and answers over HTTP (JSON) on --addr:

  POST /v1/contract  a --request document; exactly the bytes ka2 build --request prints
  GET  /v1/select    ?subject=…&date=…[&date=…][&lang=…]: every source's decision
  GET  /v1/show      ?address=travel-v2:1-3[&lang=…]: the cited lines
  POST /v1/verify    a contract [?lang=…]: the problems ka2 verify finds
  POST /v1/grade     {"contract":…,"answer":…}: the findings of ka2 grade --format json
  POST /v1/render    {"contract":…,"provider":"openai-chat"}: the body ka2 render prints
  GET  /openapi.json the OpenAPI 3.1 document of every endpoint
  GET  /v1/timeline  [?subject=…][&lang=…][&date=…][&format=svg|json]: the timeline, selected sources highlighted
  GET  /             the preview page (turn it off with --ui=false)
  GET  /healthz, /readyz, /metrics (Prometheus)

The build flags (--corpus, --definition, --counter, --capacity, --reserve,
--wrapper, --policy, --lang, --short, --require-evidence) mean what they
mean for ka2 build; a request's keys replace them per request, its
"capacity" up to --max-capacity and its "counter" among --counters. Errors are
{"error":{"kind":…,"message":…}}: bad_request (400), budget_exceeded,
no_evidence and context_type (422), timeout and overloaded (503). Every
response carries the corpus digest it was built from in the
Ka2-Corpus-Digest header.

A request may add only the item types and sources the policy's remote
section grants (by default memory from memory:* and tool_output from
tool:*); any other item is refused as context_type (422). A build stops
when its client goes away, and after --request-timeout (503, kind
timeout).

The corpus is reloaded on SIGHUP (every file read again) and, with --watch,
when a file under it changes (after --debounce of quiet; files whose size,
times and inode did not change are not read again). Links are followed: the
corpus may be a link (current -> v2) or a Kubernetes ConfigMap volume, and
the swap of a link reloads. A folder swapped, renamed, removed or made again
(mv pol pol.old; mv new pol) is watched anew, as after every reload that
reads the whole tree; every --poll-interval the watches are checked, and
while some of the corpus cannot be watched it is reloaded then instead and
/readyz says degraded. A reload takes a changed file only once its size
and modification time stayed the same for --settle, so write files to a
temporary name and rename them into place. It is loaded beside the serving
one and swapped in atomically; one that fails to load, or does not finish
within --reload-timeout, is never served: the old one keeps serving,
/readyz says degraded, when and why, and the log and metrics say so too.

At most --max-in-flight API requests are answered at once; more wait their
turn in a queue of at most --max-queue, woken in the order they came, for at
most --queue-wait. One that would wait longer, by the recent pace of
answers, or finds the queue full gets 503 overloaded with Retry-After at
once; one that waited --queue-wait gets it then.

Every answer of /v1/contract and /v1/verify carries a decision id in the
Ka2-Decision-Id header. With --decision-log FILE (- for standard error) each
is appended to FILE as one JSON line: the id, the request (its SHA-256 only
with --decision-log-requests digest), the corpus digest and git revision,
the answer's SHA-256, the budget figures and the evidence addresses; ka2
audit rebuilds them. Lines wait in a buffer of --decision-log-buffer, so an
answer never waits for the file; past it they are dropped and counted (the
metrics, the log, and a line of the file). SIGHUP reopens the file first.

SIGTERM or SIGINT stops accepting, waits up to --drain-timeout for requests
in flight and exits 0 (7 if the deadline passed with requests still open).`,
		Example: `  ka2 serve --corpus policies
  curl -s localhost:8080/v1/contract -d '{"subject":"meals","dates":["2026-09-14"],"question":"What is the daily meal allowance?"}'
  ka2 serve --corpus policies --addr 127.0.0.1:9090 --log-format json --counter o200k_base`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.StringVar(&opts.Policy, "policy", "", "provenance policy YAML file (default: the embedded policy)")
	fs.StringVar(&opts.Lang, "lang", "en", "default language of requests without \"lang\": en or zh")
	fs.BoolVar(&opts.Short, "short", false, "quote only cite ranges, unless a request sets \"short\"")
	fs.BoolVar(&opts.RequireEvidence, "require-evidence", false, "answer no_evidence (422) instead of an empty evidence list, unless a request sets \"require_evidence\"")
	fs.BoolVar(&opts.Watch, "watch", true, "reload when a file under --corpus changes")
	fs.DurationVar(&opts.Debounce, "debounce", serve.DefaultDebounce, "quiet period after a change before reloading")
	fs.DurationVar(&opts.PollInterval, "poll-interval", serve.DefaultPollInterval, "how often --watch checks that its watches still hold the corpus's folders, and reloads while it cannot watch them all")
	fs.DurationVar(&opts.ReloadTimeout, "reload-timeout", serve.DefaultReloadTimeout, "longest a reload may take, settling included, before it is abandoned and reported")
	fs.DurationVar(&opts.Settle, "settle", serve.DefaultSettle, "how long a changed file's size and modification time must stay the same before a reload takes it (0: no wait)")
	fs.IntVar(&opts.MaxInFlight, "max-in-flight", 0, "most API requests answered at once; more wait in the queue (0: 4 per CPU)")
	fs.DurationVar(&opts.QueueWait, "queue-wait", serve.DefaultQueueWait, "longest an API request waits for its turn; one that would wait longer gets 503 overloaded at once (0: no queue)")
	fs.IntVar(&opts.MaxCapacity, "max-capacity", serve.DefaultMaxCapacity, "largest \"capacity\" a request may ask for")
	fs.StringSliceVar(&opts.Counters, "counters", nil, "the counters a request's \"counter\" may name, comma-separated (default: every counter the contract definition sets limits for)")
	fs.IntVar(&opts.MaxQueue, "max-queue", serve.DefaultMaxQueue, "most API requests waiting for their turn; one more gets 503 overloaded")
	fs.DurationVar(&opts.DrainTimeout, "drain-timeout", serve.DefaultDrainTimeout, "how long SIGTERM waits for requests in flight")
	fs.DurationVar(&opts.RequestTimeout, "request-timeout", serve.DefaultRequestTimeout, "longest build of one POST /v1/contract before it stops with 503 (with --queue-wait, at most "+serve.DefaultWriteTimeout.String()+")")
	enumVar(fs, &opts.LogFormat, "log-format", "text", textJSON, "log format on standard error")
	enumVar(fs, &opts.LogLevel, "log-level", "info", []string{"debug", "info", "warn", "error"}, "least severe log level")
	fs.BoolVar(&opts.UI, "ui", true, "serve the preview page at GET / (--ui=false turns it off)")
	fs.StringVar(&opts.MemoryLimit, "memory-limit", "auto", "how the process's memory is bounded: auto (collect when the heap reaches 1.4× the live heap, at least 64 MiB over it), off (the Go runtime's default, GOGC=100, or GOGC and GOMEMLIMIT), or a fixed soft limit such as 512MiB")
	fs.StringVar(&opts.DecisionLog, "decision-log", "", "append one JSON line per answer of /v1/contract and /v1/verify to this file (- for standard error); reopened on SIGHUP")
	enumVar(fs, &opts.DecisionLogRequests, "decision-log-requests", serve.DecisionRequestFull, []string{serve.DecisionRequestFull, serve.DecisionRequestDigest}, "what the decision log keeps of each request: full (ka2 audit can rebuild it) or digest (its SHA-256 only)")
	fs.IntVar(&opts.DecisionLogBuffer, "decision-log-buffer", serve.DefaultDecisionBuffer, "decision log lines held while the file is slow; past it lines are dropped and counted, never the answers delayed")
	fs.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (for performance work)")
	return cmd
}

func (o *ServeOptions) validate() error {
	if o.Debounce <= 0 || o.DrainTimeout <= 0 || o.ReloadTimeout <= 0 || o.PollInterval <= 0 {
		return usageError{errors.New("--debounce, --drain-timeout, --reload-timeout and --poll-interval must be positive")}
	}
	if o.Settle < 0 {
		return usageError{fmt.Errorf("--settle %s: use 0 (no wait) or a positive duration", o.Settle)}
	}
	if o.Settle >= o.ReloadTimeout {
		return usageError{fmt.Errorf("--settle %s must be shorter than --reload-timeout %s, or no changed file could ever be taken", o.Settle, o.ReloadTimeout)}
	}
	if _, err := parseMemoryLimit(o.MemoryLimit); err != nil {
		return err
	}
	if o.MaxInFlight < 0 || o.MaxInFlight > maxInFlightLimit {
		return usageError{fmt.Errorf("--max-in-flight %d: use 1 to %d, or 0 for 4 per CPU", o.MaxInFlight, maxInFlightLimit)}
	}
	if o.MaxCapacity < 1 || o.MaxCapacity > budget.MaxCapacity {
		return usageError{fmt.Errorf("--max-capacity %d: use 1 to %d", o.MaxCapacity, budget.MaxCapacity)}
	}
	for _, c := range o.Counters {
		if _, err := budget.Lookup(c); err != nil {
			return usageError{fmt.Errorf("--counters: %w", err)}
		}
	}
	if o.MaxQueue < 1 || o.MaxQueue > maxInFlightLimit {
		return usageError{fmt.Errorf("--max-queue %d: use 1 to %d (--queue-wait 0 turns the queue off)", o.MaxQueue, maxInFlightLimit)}
	}
	// A request that waited still has its body to read, within the read
	// timeout that counts from its headers.
	if o.QueueWait < 0 || o.QueueWait >= serve.DefaultReadTimeout {
		return usageError{fmt.Errorf("--queue-wait %s: use 0 (no queue) or a duration below %s", o.QueueWait, serve.DefaultReadTimeout)}
	}
	// The answer must be written within the server's write timeout,
	// which counts from the request's headers: a request that waits
	// and builds longer could never be answered.
	if o.RequestTimeout <= 0 || o.RequestTimeout > serve.DefaultWriteTimeout {
		return usageError{fmt.Errorf("--request-timeout %s: use a duration above 0 and at most %s", o.RequestTimeout, serve.DefaultWriteTimeout)}
	}
	if o.DecisionLogBuffer < 1 || o.DecisionLogBuffer > maxInFlightLimit {
		return usageError{fmt.Errorf("--decision-log-buffer %d: use 1 to %d", o.DecisionLogBuffer, maxInFlightLimit)}
	}
	if o.RequestTimeout+o.QueueWait > serve.DefaultWriteTimeout {
		return usageError{fmt.Errorf("--request-timeout %s and --queue-wait %s add up to more than the write timeout of %s: a request could wait and build longer than its answer may take; lower one",
			o.RequestTimeout, o.QueueWait, serve.DefaultWriteTimeout)}
	}
	return nil
}

// maxInFlightLimit bounds --max-in-flight: past it the flag no longer
// bounds memory in any useful way (a million 1 MiB bodies is a terabyte).
const maxInFlightLimit = 1 << 20

func (o *ServeOptions) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level %q: use debug, info, warn or error", o.LogLevel)}
	}
	hopts := &slog.HandlerOptions{Level: level}
	if o.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(o.stderr(), hopts)), nil
	}
	return slog.New(slog.NewTextHandler(o.stderr(), hopts)), nil
}

// config turns the flags into the server's configuration. Limits and
// counter problems are usage errors, as for build.
func (o *ServeOptions) config(log *slog.Logger) (serve.Config, error) {
	policy, err := (&typedFlags{Policy: o.Policy}).policy()
	if err != nil {
		return serve.Config{}, err
	}
	settle, queueWait := o.Settle, o.QueueWait
	// serve.Config: negative is no wait, zero the default.
	if settle == 0 {
		settle = -1
	}
	if queueWait == 0 {
		queueWait = -1
	}
	return serve.Config{
		Build:          o.budgetFlags.config(&o.corpusFlags),
		Settings:       contract.Settings{Lang: o.Lang, Short: o.Short, RequireEvidence: o.RequireEvidence},
		Policy:         policy,
		Logger:         log,
		Debounce:       o.Debounce,
		PollInterval:   o.PollInterval,
		ReloadTimeout:  o.ReloadTimeout,
		Settle:         settle,
		MaxInFlight:    o.MaxInFlight,
		QueueWait:      queueWait,
		MaxQueue:       o.MaxQueue,
		DrainTimeout:   o.DrainTimeout,
		RequestTimeout: o.RequestTimeout,
		UI:             o.UI,
		MaxCapacity:    o.MaxCapacity,
		Counters:       o.Counters,
	}, nil
}

func runServe(ctx context.Context, o *ServeOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	log, err := o.logger()
	if err != nil {
		return err
	}
	cfg, err := o.config(log)
	if err != nil {
		return err
	}
	// --lang is the default of every request that sets none; one the
	// contract has no text for would fail each of them, so refuse it now.
	// Its values come from the contract definition, not a fixed list.
	if def, err := contract.LoadDefinitionContent(o.Contract, o.Content); err == nil {
		if _, err := def.ContentFor(o.Lang); err != nil {
			return usageError{fmt.Errorf("invalid value %q for --lang: want one of %s", o.Lang, strings.Join(def.Langs(), ", "))}
		}
	}
	dlog, err := o.decisionLog(&cfg, log)
	if err != nil {
		return err
	}
	if dlog != nil {
		// After Serve: every answer is written, so every decision queued.
		defer dlog.Close()
	}
	srv, err := serve.New(cfg)
	if err != nil {
		return o.budgetFlags.usage(err) // worded as for build
	}
	// Loading made garbage several times the corpus's size; give it back
	// to the system now rather than when the runtime gets round to it.
	debug.FreeOSMemory()
	if ctx == nil {
		ctx = context.Background()
	}
	mem, _ := parseMemoryLimit(o.MemoryLimit) // checked by validate
	mem.apply(ctx, o.f.getenv)
	ln, err := o.f.listen(o.Addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr %s: %w", o.Addr, err)}
	}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	// ctx is the command's: Main cancels it on SIGTERM or SIGINT, which
	// starts the drain. A reload request (SIGHUP) comes from the factory.
	hup, stopHup := o.f.hangup()
	defer stopHup()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if dlog != nil {
					dlog.Reopen() // a failure is logged; the old file stays open
				}
				srv.ReloadAll(ctx, "sighup")
			}
		}
	}()
	if o.Watch {
		go func() {
			if err := srv.Watch(ctx); err != nil {
				log.Error("cannot watch the corpus; reload with SIGHUP", "error", err.Error())
			}
		}()
	}
	if err := srv.Serve(ctx, ln); err != nil {
		if errors.Is(err, serve.ErrDrainTimeout) {
			return exitError{kind: errkind.DrainTimeout, err: err}
		}
		return err
	}
	return nil
}
