package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// DecisionHeader names the response header that carries an answer's
// decision id, the id of its line in the decision log.
const DecisionHeader = "Ka2-Decision-Id"

// decides names the routes whose every answer is a decision: it gets a
// decision id and, with a decision log, a line. Adding an endpoint to the
// log is adding its route name here; its handler then reports what it
// decided through decisionOf(w) (request, built, posted, verified; each
// is a no-op without a log), and Audit rebuilds it once auditors has it.
var decides = map[string]bool{
	"contract": true,
	"verify":   true,
	"grade":    true,
	"render":   true,
}

// The outcomes of a Decision.
const (
	// OutcomeOK: the answer is the endpoint's result (a contract; a
	// contract that verifies).
	OutcomeOK = "ok"
	// OutcomeProblems: POST /v1/verify checked the contract and found
	// problems, or POST /v1/grade found findings in the answer.
	OutcomeProblems = "problems"
	// OutcomeError: the answer is an error body; ErrorKind says which.
	OutcomeError = "error"
)

// Decision is one line of the decision log: one answer of an endpoint
// that decides (POST /v1/contract, /v1/verify, /v1/grade, /v1/render), with what it was
// asked, from which corpus, and what it answered, so that the answer can
// be rebuilt and compared later (see Audit).
type Decision struct {
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	Endpoint string    `json:"endpoint"`
	Status   int       `json:"status"`
	Outcome  string    `json:"outcome"`
	// ErrorKind is the error body's kind when Outcome is OutcomeError.
	ErrorKind string `json:"error_kind,omitempty"`
	// Request is the request body as it was sent, when the log keeps
	// requests whole (DecisionRequestFull); RequestSHA256 is the hex
	// SHA-256 of the body, always set once the body was read.
	Request       *string `json:"request,omitempty"`
	RequestSHA256 string  `json:"request_sha256,omitempty"`
	// AnswerSHA256 is the hex SHA-256 of the answer's body, as sent.
	AnswerSHA256 string `json:"answer_sha256"`
	// Query is the request URL's query (POST /v1/verify's ?lang=), when
	// it has one.
	Query  string         `json:"query,omitempty"`
	Corpus DecisionCorpus `json:"corpus"`
	// ContractSHA256 is the hex SHA-256 of the contract decided about,
	// without its final newline: the one built (contract) or the one
	// posted (verify).
	ContractSHA256 string `json:"contract_sha256,omitempty"`
	// Budget is the contract's budget figures, when it was built or
	// checked.
	Budget *DecisionBudget `json:"budget,omitempty"`
	// Records are the addresses of the contract's evidence records, in
	// their order (travel-v2:1-3).
	Records []string `json:"records,omitempty"`
	// Dropped, on a line of its own with no ID, counts the decisions the
	// log dropped since the last such line because its buffer was full:
	// their answers were given, their lines are missing.
	Dropped uint64 `json:"dropped,omitempty"`
}

// DecisionCorpus names the corpus a decision was made from.
type DecisionCorpus struct {
	Digest     string `json:"digest"`
	Generation uint64 `json:"generation"`
	// Revision is the git commit holding exactly these files, when the
	// server knows one (see Config.Revision).
	Revision string `json:"revision,omitempty"`
}

// DecisionBudget is a contract's budget figures.
type DecisionBudget struct {
	Counter string `json:"counter"`
	budget.Limits
	Limit int `json:"limit"`
	Total int `json:"total"`
	Left  int `json:"left"`
}

func decisionBudget(r *budget.Report) *DecisionBudget {
	if r == nil || r.Counter == "" {
		return nil
	}
	return &DecisionBudget{Counter: r.Counter, Limits: r.Limits, Limit: r.Limit(), Total: r.Total, Left: r.Left}
}

// How a decision log keeps request bodies.
const (
	// DecisionRequestFull keeps each request body whole, so that an audit
	// can rebuild its answer.
	DecisionRequestFull = "full"
	// DecisionRequestDigest keeps only each body's SHA-256, for privacy:
	// an audit can then only say the decision was not checked.
	DecisionRequestDigest = "digest"
)

// DefaultDecisionBuffer is how many lines a DecisionLog holds while its
// file is slow: at a few hundred bytes a line, under a megabyte, and
// several seconds of answers at full speed on two cores.
const DefaultDecisionBuffer = 4096

// maxBatch bounds the lines a DecisionLog writes at once: whole lines in
// one write, so that a line is never split between writes.
const maxBatch = 64 << 10

// gatherDelay is how long a DecisionLog waits after a line for more before
// it writes: under load a write carries the lines of a millisecond, not
// one, and a line is in the file that much later. Writing each line as
// it came took a wake-up of the writer and a system call of about 3 µs
// for every answer logged (a profile of ka2 serve --decision-log under
// wrk -c64); with the delay, ka2 serve --decision-log FILE on the sample
// corpus took 0.83× the CPU per answer (65 against 78 µs, medians of
// five interleaved wrk runs of 3 s each on a loaded machine, 2026-12-02).
const gatherDelay = time.Millisecond

// DecisionLog appends one JSON line per decision to a file, from a
// goroutine of its own: a full buffer drops lines rather than make an
// answer wait, and counts them (in the metrics, the server's log, and a
// line of the decision log itself). Each write is whole lines, one Write
// call to a file opened for appending, so no line is ever half written
// and another writer appending to the same file never cuts one. Its
// methods are safe for concurrent use.
type DecisionLog struct {
	open     func() (io.Writer, error)
	requests string
	now      func() time.Time
	log      *slog.Logger

	lines   chan []byte
	reopen  chan chan error
	stop    chan struct{}
	stopped chan struct{}
	close   sync.Once

	dropped  atomic.Uint64
	reported uint64 // by the writer goroutine only
	failures atomic.Uint64
	written  atomic.Uint64

	// metrics, set when a server registers the log; nil before.
	metrics atomic.Pointer[decisionMetrics]
}

// DecisionLogConfig is what a DecisionLog is made from.
type DecisionLogConfig struct {
	// Open opens the log's file for appending; it is called once at the
	// start and again by each Reopen. A Writer that is an io.Closer is
	// closed when the next one is open and at Close.
	Open func() (io.Writer, error)
	// Requests is DecisionRequestFull (the default) or
	// DecisionRequestDigest.
	Requests string
	// Buffer is how many lines may wait for the file (default
	// DefaultDecisionBuffer).
	Buffer int
	// Logger receives write failures and dropped lines; nil discards.
	Logger *slog.Logger
	// Now stamps the lines that count dropped decisions; nil is time.Now.
	Now func() time.Time
}

// OpenDecisionLog opens the log and starts its writer. Close it to write
// what is buffered.
func OpenDecisionLog(cfg DecisionLogConfig) (*DecisionLog, error) {
	switch cfg.Requests {
	case "":
		cfg.Requests = DecisionRequestFull
	case DecisionRequestFull, DecisionRequestDigest:
	default:
		return nil, fmt.Errorf("decision log requests %q: want %s or %s", cfg.Requests, DecisionRequestFull, DecisionRequestDigest)
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultDecisionBuffer
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w, err := cfg.Open()
	if err != nil {
		return nil, err
	}
	l := &DecisionLog{open: cfg.Open, requests: cfg.Requests, now: cfg.Now, log: cfg.Logger,
		lines: make(chan []byte, cfg.Buffer), reopen: make(chan chan error), stop: make(chan struct{}), stopped: make(chan struct{})}
	go l.run(w)
	return l, nil
}

// Reopen closes the log's file and opens it again (after a log rotation
// renamed it), once the lines written before are out.
func (l *DecisionLog) Reopen() error {
	done := make(chan error, 1)
	select {
	case l.reopen <- done:
		return <-done
	case <-l.stopped:
		return errors.New("the decision log is closed")
	}
}

// Close writes the lines buffered, and the count of those dropped, and
// closes the file. Decisions recorded after Close are dropped and counted.
func (l *DecisionLog) Close() error {
	l.close.Do(func() { close(l.stop) })
	<-l.stopped
	return nil
}

// Dropped counts the lines dropped so far because the buffer was full.
func (l *DecisionLog) Dropped() uint64 { return l.dropped.Load() }

// add queues one line, or drops and counts it when the buffer is full.
func (l *DecisionLog) add(line []byte) {
	select {
	case <-l.stop:
	default:
		select {
		case l.lines <- line:
			return
		default:
		}
	}
	l.dropped.Add(1)
	if m := l.metrics.Load(); m != nil {
		m.dropped.Inc()
	}
}

func (l *DecisionLog) run(w io.Writer) {
	defer close(l.stopped)
	var batch []byte
	for {
		select {
		case line := <-l.lines:
			batch = l.gather(append(batch[:0], line...))
			l.write(w, batch)
		case done := <-l.reopen:
			l.drain(w, batch)
			nw, err := l.open()
			if err == nil {
				closeWriter(w)
				w = nw
				l.log.Info("decision log reopened")
			} else {
				l.log.Error("cannot reopen the decision log; writing to the file open before", "error", err.Error())
			}
			done <- err
		case <-l.stop:
			l.drain(w, batch)
			closeWriter(w)
			return
		}
	}
}

// gather appends the lines that come within gatherDelay to batch, up to
// maxBatch bytes, or until the log is closed.
func (l *DecisionLog) gather(batch []byte) []byte {
	batch = l.fill(batch)
	if len(batch) >= maxBatch {
		return batch
	}
	t := time.NewTimer(gatherDelay)
	defer t.Stop()
	for len(batch) < maxBatch {
		select {
		case line := <-l.lines:
			batch = append(batch, line...)
		case <-t.C:
			return batch
		case <-l.stop:
			return batch
		}
	}
	return batch
}

// fill appends the lines waiting to batch, up to maxBatch bytes.
func (l *DecisionLog) fill(batch []byte) []byte {
	for len(batch) < maxBatch {
		select {
		case line := <-l.lines:
			batch = append(batch, line...)
		default:
			return batch
		}
	}
	return batch
}

// drain writes every line waiting.
func (l *DecisionLog) drain(w io.Writer, batch []byte) {
	for {
		batch = l.fill(batch[:0])
		if len(batch) == 0 {
			l.reportDropped(w)
			return
		}
		l.write(w, batch)
	}
}

// write writes whole lines in one call, then a line counting the
// decisions dropped since the last one, if any were.
func (l *DecisionLog) write(w io.Writer, batch []byte) {
	n := uint64(bytes.Count(batch, newline))
	if _, err := w.Write(batch); err != nil {
		l.failures.Add(n)
		if m := l.metrics.Load(); m != nil {
			m.failed.Add(float64(n))
		}
		l.log.Error("cannot write the decision log; lines lost", "lines", n, "error", err.Error())
	} else {
		l.written.Add(n)
		if m := l.metrics.Load(); m != nil {
			m.written.Add(float64(n))
		}
	}
	l.reportDropped(w)
}

// reportDropped writes a line counting the decisions dropped since the
// last such line, and logs it, when there are any.
func (l *DecisionLog) reportDropped(w io.Writer) {
	d := l.dropped.Load()
	if d == l.reported {
		return
	}
	n := d - l.reported
	l.reported = d
	l.log.Warn("decision log buffer full; decisions answered without a line", "dropped", n, "dropped_total", d)
	line, err := marshalDecision(&Decision{Time: l.now(), Dropped: n})
	if err == nil {
		w.Write(append(line, '\n'))
	}
}

func closeWriter(w io.Writer) {
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
}

// decisionMetrics are a DecisionLog's series in a server's registry.
type decisionMetrics struct {
	written, dropped, failed prometheus.Counter
}

// register adds the log's series to reg; a log serves one server.
func (l *DecisionLog) register(reg *prometheus.Registry) {
	lines := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ka2_decision_log_lines_total",
		Help: "Decision log lines by outcome: written, dropped (the buffer was full; the answer was given without a line) or failed (the write failed)."},
		[]string{"outcome"})
	m := &decisionMetrics{written: lines.WithLabelValues("written"), dropped: lines.WithLabelValues("dropped"), failed: lines.WithLabelValues("failed")}
	m.written.Add(float64(l.written.Load()))
	m.dropped.Add(float64(l.dropped.Load()))
	m.failed.Add(float64(l.failures.Load()))
	reg.MustRegister(lines, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "ka2_decision_log_queued", Help: "Decision log lines waiting to be written."},
		func() float64 { return float64(len(l.lines)) }))
	l.metrics.Store(m)
}

// decisionIDs makes decision ids: a random prefix per server, so ids of
// restarts and replicas do not collide, and a sequence number, so they
// sort in the order they were given within one server.
type decisionIDs struct {
	prefix string
	seq    atomic.Uint64
}

func newDecisionIDs() *decisionIDs {
	var b [6]byte
	rand.Read(b[:])
	return &decisionIDs{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (d *decisionIDs) next() string {
	// Formatted in place: the concatenation of a formatted number took
	// two allocations a request, this one.
	var buf [48]byte
	return string(strconv.AppendUint(append(buf[:0], d.prefix...), d.seq.Add(1), 10))
}

// decisionWriter is the response writer of an answer being logged: it
// keeps the decision the handler reports to and the error body's kind.
type decisionWriter struct {
	http.ResponseWriter
	d        Decision
	requests string // DecisionLogConfig.Requests
	status   int
	answer   hash.Hash
	body     []byte // the start of an error answer's body, for its kind
}

func (w *decisionWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *decisionWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.status >= 400 && len(w.body) < 4096 {
		w.body = append(w.body, p...)
	}
	w.answer.Write(p)
	return w.ResponseWriter.Write(p)
}

// decisionOf returns the decision a handler reports to, or nil when the
// answer is not logged.
func decisionOf(w http.ResponseWriter) *decisionWriter {
	dw, _ := w.(*decisionWriter)
	return dw
}

// request records the request body.
func (w *decisionWriter) request(body []byte) {
	if w == nil {
		return
	}
	sum := sha256.Sum256(body)
	w.d.RequestSHA256 = hex.EncodeToString(sum[:])
	if w.requests == DecisionRequestFull {
		s := string(body)
		w.d.Request = &s
	}
}

// built records a contract built.
func (w *decisionWriter) built(res *contract.Result) {
	if w == nil || res == nil {
		return
	}
	if res.JSON != nil {
		sum := sha256.Sum256(res.JSON)
		w.d.ContractSHA256 = hex.EncodeToString(sum[:])
	}
	w.d.Budget = decisionBudget(&res.Budget)
	for _, it := range res.Items {
		if it.Kind == provenance.KindEvidence {
			w.d.Records = append(w.d.Records, it.Ref.Address())
		}
	}
}

// verified records a contract checked: its digest, budget, evidence
// addresses as the contract states them, and whether it verified.
func (w *decisionWriter) verified(posted []byte, v contract.Verification) {
	if w == nil {
		return
	}
	w.posted(posted)
	w.d.Budget = decisionBudget(v.Budget)
	if !v.OK() {
		w.d.Outcome = OutcomeProblems
	}
}

// graded records an answer graded: problems when it has findings.
func (w *decisionWriter) graded(ok bool) {
	if w != nil && !ok {
		w.d.Outcome = OutcomeProblems
	}
}

// posted records a contract a request carries (to verify, grade or
// render): its SHA-256 without a final newline, and its evidence
// addresses.
func (w *decisionWriter) posted(doc []byte) {
	if w == nil {
		return
	}
	sum := sha256.Sum256(bytes.TrimSuffix(doc, newline))
	w.d.ContractSHA256 = hex.EncodeToString(sum[:])
	w.d.Records = contractRecords(doc)
}

// contractRecords reads the evidence addresses a contract states, or nil
// when it has none or is not a contract.
func contractRecords(doc []byte) []string {
	var c struct {
		Evidence []struct {
			SourceID  string `json:"source_id"`
			LineStart int    `json:"line_start"`
			LineEnd   int    `json:"line_end"`
		} `json:"evidence"`
	}
	if json.Unmarshal(doc, &c) != nil {
		return nil
	}
	var out []string
	for _, e := range c.Evidence {
		out = append(out, fmt.Sprintf("%s:%d-%d", e.SourceID, e.LineStart, e.LineEnd))
	}
	return out
}

// beginDecision gives the answer its decision id and, with a decision
// log, the writer its handler reports to; finishDecision logs it.
func (s *Server) beginDecision(w http.ResponseWriter, r *http.Request, rt *route, snap *Snapshot) (http.ResponseWriter, string) {
	id := s.decisionIDs.next()
	w.Header()[DecisionHeader] = []string{id}
	if s.cfg.DecisionLog == nil {
		return w, id
	}
	dw := &decisionWriter{ResponseWriter: w, requests: s.cfg.DecisionLog.requests, answer: sha256.New(),
		d: Decision{ID: id, Time: s.now(), Endpoint: rt.name, Query: r.URL.RawQuery,
			Corpus: DecisionCorpus{Digest: snap.Digest(), Generation: snap.Generation, Revision: snap.Revision}}}
	return dw, id
}

// finishDecision logs the answer at debug level, and writes its line to
// the decision log once it is answered.
func (s *Server) finishDecision(ctx context.Context, w http.ResponseWriter, id string, rt *route, code int) {
	if s.log.Enabled(ctx, slog.LevelDebug) {
		s.log.LogAttrs(ctx, slog.LevelDebug, "answered", slog.String("decision", id), slog.String("route", rt.name), slog.Int("status", code))
	}
	dw := decisionOf(w)
	if dw == nil {
		return
	}
	d := &dw.d
	d.Status = code
	d.AnswerSHA256 = hex.EncodeToString(dw.answer.Sum(nil))
	switch {
	case code >= 400:
		d.Outcome = OutcomeError
		var body struct {
			Error struct{ Kind string } `json:"error"`
		}
		if json.Unmarshal(dw.body, &body) == nil {
			d.ErrorKind = body.Error.Kind
		}
		// The budget and records of a contract over budget stay: they say
		// why it was refused.
		d.ContractSHA256 = ""
	case d.Outcome == "":
		d.Outcome = OutcomeOK
	}
	line, err := marshalDecision(d)
	if err != nil {
		s.log.Error("cannot encode a decision", "id", d.ID, "error", err.Error())
		return
	}
	s.cfg.DecisionLog.add(append(line, '\n'))
}
