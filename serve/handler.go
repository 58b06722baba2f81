package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// DigestHeader names the response header that carries the digest of the
// corpus a response was made from.
const DigestHeader = "Ka2-Corpus-Digest"

// GenerationHeader names the response header that carries the snapshot's
// generation (see Snapshot.Generation).
const GenerationHeader = "Ka2-Corpus-Generation"

// QuestionDatesHeader lists, on a contract, the dates its question names
// on which no scope date falls (2026-09-14 for a day, 2026-09 for a
// month), comma-separated; absent when there are none.
const QuestionDatesHeader = "Ka2-Question-Dates-Outside-Scope"

// retryAfter is the Retry-After of an overloaded answer, in seconds: a
// build takes milliseconds, so a slot is free again long before; one
// second is the least the header can say, and as long as
// DefaultQueueWait: no request waits in the queue longer than a shed one
// is told to wait before it retries.
const retryAfter = "1"

// route is one endpoint: its metric label, method, path and handler. A
// handler writes the whole response and returns its status code.
type route struct {
	name   string
	method string
	path   string
	serve  func(w http.ResponseWriter, r *http.Request, snap *Snapshot) int
	// limited routes count against Config.MaxInFlight: the API, whose
	// bodies and builds cost memory and CPU. Probes and scrapes do not, so
	// that they answer while the API is saturated.
	limited bool
	// decides is decides[name], looked up once when the routes are made.
	decides bool
	latency prometheus.Observer
	srv     *Server
}

// pattern is the route's ServeMux pattern: a path ending in a slash
// names that path alone, not the tree below it.
func (rt *route) pattern() string {
	p := rt.method + " " + rt.path
	if strings.HasSuffix(p, "/") {
		p += "{$}"
	}
	return p
}

// ServeHTTP answers r as the route's endpoint.
func (rt *route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt.srv.exchange(w, r, rt, time.Now(), rt.serve, rt.limited)
}

// routes makes the handler of every endpoint: a ServeMux of method
// patterns (a GET pattern answers HEAD too) whose own answers (404, 405
// with Allow, the redirect of an uncleaned path) are worded by ka2.
func (s *Server) routes() http.Handler {
	table := []*route{
		{name: "contract", method: http.MethodPost, path: "/v1/contract", serve: s.serveContract, limited: true},
		{name: "select", method: http.MethodGet, path: "/v1/select", serve: s.serveSelect, limited: true},
		{name: "show", method: http.MethodGet, path: "/v1/show", serve: s.serveShow, limited: true},
		{name: "verify", method: http.MethodPost, path: "/v1/verify", serve: s.serveVerify, limited: true},
		{name: "grade", method: http.MethodPost, path: "/v1/grade", serve: s.serveGrade, limited: true},
		{name: "render", method: http.MethodPost, path: "/v1/render", serve: s.serveRender, limited: true},
		{name: "openapi", method: http.MethodGet, path: "/openapi.json", serve: s.serveOpenAPI},
		{name: "healthz", method: http.MethodGet, path: "/healthz", serve: s.serveHealthz},
		{name: "readyz", method: http.MethodGet, path: "/readyz", serve: s.serveReadyz},
		{name: "metrics", method: http.MethodGet, path: "/metrics", serve: s.serveMetrics},
	}
	table = append(table, s.uiRoutes()...)
	mux := http.NewServeMux()
	byPath := make(map[string]*route, len(table))
	endpoints := make([]string, len(table))
	for i, rt := range table {
		rt.srv, rt.decides = s, decides[rt.name]
		rt.latency = s.metrics.latency.WithLabelValues(rt.name)
		mux.Handle(rt.pattern(), rt)
		byPath[rt.path] = rt
		endpoints[i] = rt.method + " " + rt.path
	}
	notFound := "; the endpoints are " + strings.Join(endpoints, ", ")
	other := &route{name: "other", srv: s, latency: s.metrics.latency.WithLabelValues("other")}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _ := mux.Handler(r)
		if rt, ok := h.(*route); ok {
			rt.ServeHTTP(w, r)
			return
		}
		s.muxAnswer(w, r, h, byPath, other, notFound)
	})
}

// muxAnswer answers a request no route takes, after the mux's own
// handler h: a 405 of the route at that path (the mux's Allow kept), or
// else a 404, both in ka2's error body. The mux would redirect a path it
// cleans (//v1/contract, /v1/./select) to the cleaned one; an API answers
// paths as written, so that is a 404 too, naming the path to use: a
// redirect would answer outside the route, its admission and its
// decision log, with a body that is no ka2 error.
func (s *Server) muxAnswer(w http.ResponseWriter, r *http.Request, h http.Handler, byPath map[string]*route, other *route, endpoints string) {
	start := time.Now()
	rec := &muxRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.code == http.StatusMethodNotAllowed && byPath[r.URL.Path] != nil {
		allow := rec.header.Get("Allow")
		s.exchange(w, r, byPath[r.URL.Path], start, func(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
			w.Header().Set("Allow", allow)
			return writeError(w, snap, http.StatusMethodNotAllowed, errkind.Detail{Kind: string(errkind.MethodNotAllowed),
				Message: fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, strings.ReplaceAll(allow, ", ", " or "))})
		}, false)
		return
	}
	msg := "no endpoint " + r.URL.Path
	if u, err := url.Parse(rec.header.Get("Location")); err == nil && byPath[u.Path] != nil {
		msg += fmt.Sprintf(": paths are matched as written; use %s", u.Path)
	} else {
		msg += endpoints
	}
	s.exchange(w, r, other, start, func(w http.ResponseWriter, _ *http.Request, snap *Snapshot) int {
		return writeError(w, snap, http.StatusNotFound, errkind.Detail{Kind: string(errkind.NotFound), Message: msg})
	}, false)
}

// muxRecorder keeps the status and header of one of the mux's own
// answers; ka2 words the body.
type muxRecorder struct {
	header http.Header
	code   int
}

func (m *muxRecorder) Header() http.Header { return m.header }

func (m *muxRecorder) WriteHeader(code int) {
	if m.code == 0 {
		m.code = code
	}
}

func (m *muxRecorder) Write(b []byte) (int, error) { return len(b), nil }

// exchange answers r with serve as route rt's answer, the one path of
// every answer: its decision id and log line when rt decides, its
// metrics, panic recovery and, when limited, admission.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, rt *route, start time.Time, serve func(http.ResponseWriter, *http.Request, *Snapshot) int, limited bool) {
	snap := s.snap.Load()
	var decision string
	if rt.decides {
		w, decision = s.beginDecision(w, r, rt, snap)
	}
	code := s.dispatch(w, r, rt, snap, serve, limited)
	if decision != "" {
		s.finishDecision(r.Context(), w, decision, rt, code)
	}
	s.metrics.request(rt, code, time.Since(start).Seconds())
}

// dispatch runs serve, after admission when limited, turning a panic into
// a 500 response.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, rt *route, snap *Snapshot, serve func(http.ResponseWriter, *http.Request, *Snapshot) int, limited bool) (code int) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic in handler", "route", rt.name, "panic", fmt.Sprint(v))
			code = writeError(w, snap, http.StatusInternalServerError, errkind.Detail{Kind: string(errkind.Internal), Message: "internal error; the server log has the details"})
		}
	}()
	if limited {
		// Taken before the body is read: the bound is on memory as much
		// as on CPU.
		shed, waited, err := s.admit.acquire(r.Context(), s.hooks.queued)
		if waited > 0 || shed != "" {
			s.metrics.queueWait.Observe(waited.Seconds())
		}
		switch {
		case err != nil:
			return writeError(w, snap, errkind.StatusClientClosedRequest, errkind.Detail{Kind: string(errkind.Canceled),
				Message: "the client went away while the request waited for its turn"})
		case shed != "":
			s.metrics.rejected.WithLabelValues(shed).Inc()
			w.Header().Set("Retry-After", retryAfter)
			return writeError(w, snap, http.StatusServiceUnavailable, errkind.Detail{Kind: string(errkind.Overloaded), Message: s.admit.shedMessage(shed)})
		}
		held := time.Now()
		defer func() { s.admit.release(time.Since(held)) }()
		if s.hooks.inHandler != nil {
			s.hooks.inHandler(rt.name)
		}
	}
	return serve(w, r, snap)
}

// setSnapshotHeaders names the snapshot a response comes from (New
// loads one before the handler exists, so there always is one).
func setSnapshotHeaders(h http.Header, snap *Snapshot) {
	v := snap.headers()
	h[DigestHeader], h[GenerationHeader] = v[0:1:1], v[1:2:2]
}

// writeError writes an error response and returns its status.
func writeError(w http.ResponseWriter, snap *Snapshot, status int, d errkind.Detail) int {
	body, err := marshal(errkind.Body{Error: d})
	if err != nil {
		body = []byte(`{"error":{"kind":"internal","message":"cannot encode the error"}}` + "\n")
		status = http.StatusInternalServerError
	}
	writeBody(w, snap, status, "application/json", body)
	return status
}

// writeBody writes a complete response.
func writeBody(w http.ResponseWriter, snap *Snapshot, status int, contentType string, body []byte) {
	h := w.Header()
	setSnapshotHeaders(h, snap)
	h["Content-Type"] = []string{contentType}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

// marshal encodes v as compact JSON without HTML escaping, and a newline.
func marshal(v any) ([]byte, error) {
	b, err := jsontext.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeJSON writes v with status, or an internal error if v cannot be
// encoded.
func writeJSON(w http.ResponseWriter, snap *Snapshot, status int, v any) int {
	body, err := marshal(v)
	if err != nil {
		return writeError(w, snap, http.StatusInternalServerError, errkind.Detail{Kind: string(errkind.Internal), Message: "encode response: " + err.Error()})
	}
	writeBody(w, snap, status, "application/json", body)
	return status
}

// classify maps a build error to its status and error detail, as the CLI
// maps it to an exit code and kind.
func classify(err error) (int, errkind.Detail) {
	// Every error of a build, a selection or a show is a problem of the
	// input a question meets (errkind's bad_input is the service's
	// bad_request): a build reads no file and holds no resource, so no
	// error of one is the server's own failure; a 500 is kept for panics.
	kind := errkind.Classify(err).HTTP()
	d := errkind.NewDetail(kind, err)
	d.Message = budget.WordFit(d.Message, err, func(fit budget.Fit) string {
		if fit.Setting == string(contract.SettingShort) {
			return fmt.Sprintf(`or set "short": true in the request: quoting the cite ranges, it takes %d of %d`, fit.Total, fit.Limit)
		}
		return ""
	})
	d.Message = diag.Reword(d.Message, err, requestField)
	return kind.Status(), d
}

var newline = []byte{'\n'}

// jsonContentType is the Content-Type of every contract, one slice for
// all of them: Header.Set replaces a value and Header.Add copies one of
// capacity 1, so no response's header writes into another's.
var jsonContentType = []string{"application/json"}[0:1:1]

// bufPool keeps the buffers request bodies are read into. It earns its
// place by memory, which the collector pays for at every answer: a
// sample contract through the handler (`go test ./serve -run '^$' -bench
// 'BenchmarkHandlerContract$' -benchmem -count 4`, 2026-12-02) allocates
// 6.9 KB in 29 allocations with the pool and 8.5 KB in 32 without it
// (0.81× the bytes); the time per answer was 0.87× (medians of four,
// 15.2 against 17.5 µs, a shared machine).
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// borrowBuffer takes a body buffer from the pool; returnBuffer gives it
// back.
func borrowBuffer() *bytes.Buffer { return bufPool.Get().(*bytes.Buffer) }

// returnBuffer gives buf back to the pool; a buffer grown past 64 KiB is
// dropped instead, so one large body does not keep its memory.
func returnBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 64<<10 {
		buf.Reset()
		bufPool.Put(buf)
	}
}

// readBody reads the request body, at most limit bytes, into buf. A body
// over the limit is a *bodyError. A body read whole is closed: net/http
// then knows it is done with, where otherwise it reads it again for what
// is left before it writes the response (an io.CopyN of an empty rest:
// 0.5 µs an answer, 1% of the server's CPU, in a profile of ka2 serve on
// the sample corpus under wrk -c64).
func readBody(w http.ResponseWriter, r *http.Request, limit int64, buf *bytes.Buffer) error {
	if r.ContentLength > limit {
		return &bodyError{limit: limit}
	}
	if r.ContentLength >= 0 {
		// net/http's body of a declared length ends there: the bound
		// holds without MaxBytesReader (1 of BenchmarkHandlerContract's
		// 67 allocs/op); a body that says nothing of its length, chunked,
		// is read through one.
		if _, err := buf.ReadFrom(r.Body); err != nil {
			return fmt.Errorf("read the request body: %w", err)
		}
		if int64(buf.Len()) > limit {
			return &bodyError{limit: limit}
		}
		r.Body.Close() // read whole: nothing is left to fail
		return nil
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		r.Body.Close()
		return nil
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &bodyError{limit: limit}
	}
	return fmt.Errorf("read the request body: %w", err)
}

type bodyError struct{ limit int64 }

func (e *bodyError) Error() string {
	return fmt.Sprintf("the request body is over the limit of %d bytes; send a smaller request", e.limit)
}

// serveContract answers POST /v1/contract: the request document of `ka2
// build --request`, applied over the server's settings, built from the
// snapshot; the contract bytes exactly as `ka2 build` prints them.
func (s *Server) serveContract(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	buf := borrowBuffer()
	defer returnBuffer(buf)
	if err := readBody(w, r, s.cfg.MaxBodyBytes, buf); err != nil {
		return writeError(w, snap, http.StatusBadRequest, errkind.Detail{Kind: string(errkind.BadRequest), Message: err.Error()})
	}
	// The steps of `ka2 build --request` (contractSteps.build); the build
	// stops when the client goes away or the request timeout passes.
	decisionOf(w).request(buf.Bytes())
	ctx, cancel := withDeadline(r.Context(), time.Now().Add(s.cfg.RequestTimeout))
	defer cancel()
	req, res, err := s.contractSteps(snap.Builder).build(ctx, buf.Bytes())
	decisionOf(w).built(res)
	if res != nil {
		if res.JSON != nil {
			n := 0
			for _, it := range res.Items {
				if it.Kind == provenance.KindEvidence {
					n++
				}
			}
			s.metrics.evidence.Observe(float64(n))
			if limit := res.Budget.Limit(); limit > 0 {
				s.metrics.utilised.Observe(float64(res.Budget.Total) / float64(limit))
			}
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
			s.log.Info("build stopped: the client went away", "error", err.Error(), "digest", snap.Digest())
			return writeError(w, snap, errkind.StatusClientClosedRequest, errkind.Detail{Kind: string(errkind.Canceled),
				Message: "the client went away before the contract was built"})
		case errors.Is(err, context.DeadlineExceeded):
			s.log.Warn("build stopped: the request timeout passed", "timeout", s.cfg.RequestTimeout, "error", err.Error(), "digest", snap.Digest())
			return writeError(w, snap, http.StatusServiceUnavailable, errkind.Detail{Kind: string(errkind.Timeout),
				Message: fmt.Sprintf("the contract was not built within the server's request timeout of %s; send a smaller request", s.cfg.RequestTimeout)})
		}
		status, d := classify(err)
		if !errors.Is(err, contract.ErrBadRequest) && status == http.StatusBadRequest {
			// Not the request's form: perhaps the corpus; the operator
			// should see it.
			s.log.Warn("request refused", "error", err.Error(), "digest", snap.Digest())
		}
		return writeError(w, snap, status, d)
	}
	h := w.Header()
	setSnapshotHeaders(h, snap)
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(res.JSON) + 1)}
	if out := contract.QuestionDatesOutsideScope(req.Question, req.Query.Dates); len(out) > 0 {
		// The contract is right for its scope; the caller learns that the
		// question asks about another date without the bytes changing.
		dates := make([]string, len(out))
		for i, q := range out {
			dates[i] = q.Date
		}
		h[QuestionDatesHeader] = []string{strings.Join(dates, ", ")}
	}
	w.WriteHeader(http.StatusOK)
	// The bytes of Result.WriteTo, without its copy into one buffer: the
	// response writer buffers both writes.
	w.Write(res.JSON)
	w.Write(newline)
	return http.StatusOK
}

// serveSelect answers GET /v1/select?subject=…&date=…[&lang=…].
func (s *Server) serveSelect(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	v := r.URL.Query()
	q := selector.Query{Subjects: v["subject"], Lang: v.Get("lang")}
	if len(q.Subjects) == 0 {
		return badRequest(w, snap, "subject is required, e.g. ?subject=lodging&date=2026-09-14")
	}
	if len(v["date"]) == 0 {
		return badRequest(w, snap, "date is required, e.g. ?subject=lodging&date=2026-09-14")
	}
	for _, text := range v["date"] {
		d, err := corpus.ParseDate(text)
		if err != nil {
			return badRequest(w, snap, "date "+err.Error())
		}
		q.Dates = append(q.Dates, d)
	}
	rep, err := snap.Builder.Index.NewReport(q)
	if err != nil {
		status, d := classify(err)
		return writeError(w, snap, status, d)
	}
	return writeJSON(w, snap, http.StatusOK, rep)
}

func badRequest(w http.ResponseWriter, snap *Snapshot, msg string) int {
	return writeError(w, snap, http.StatusBadRequest, errkind.Detail{Kind: string(errkind.BadRequest), Message: msg})
}

// showResponse is GET /v1/show's body: the quote an address names, in the
// shape of an evidence record.
type showResponse struct {
	Address   string `json:"address"`
	SourceID  string `json:"source_id"`
	Version   string `json:"version"`
	Lang      string `json:"lang,omitempty"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Quote     string `json:"quote"`
}

// queryParam names the query parameter that sets a setting, for hints
// about /v1/show and /v1/select.
func queryParam(setting string) string { return "?" + setting + "=" }

// serveShow answers GET /v1/show?address=ID:START-END[&lang=…].
func (s *Server) serveShow(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	v := r.URL.Query()
	if len(v["address"]) != 1 {
		return badRequest(w, snap, "give one address, e.g. ?address=travel-v2:1-3")
	}
	a, err := corpus.ParseAddress(v.Get("address"))
	if err != nil {
		return badRequest(w, snap, err.Error())
	}
	src, rng, quote, err := snap.Corpus.Resolve(a, v.Get("lang"))
	if err != nil {
		status, kind := http.StatusBadRequest, string(errkind.BadRequest)
		var ce *diag.Diagnostic
		if errors.As(err, &ce) && ce.Code == corpus.CodeUnknownSource {
			status, kind = http.StatusNotFound, string(errkind.NotFound)
		}
		return writeError(w, snap, status, errkind.Detail{Kind: kind, Message: fmt.Sprintf("%s: %s", a, diag.Phrase(err, queryParam))})
	}
	return writeJSON(w, snap, http.StatusOK, showResponse{
		Address: corpus.Address{SourceID: src.ID, Range: rng}.String(), SourceID: src.ID, Version: src.Version,
		Lang: src.Lang, LineStart: rng.Start, LineEnd: rng.End, Quote: quote})
}

// verifyResponse is POST /v1/verify's body, the shape of `ka2 verify
// --format json`.
type verifyResponse struct {
	OK       bool                   `json:"ok"`
	Lang     string                 `json:"lang"`
	Problems []contract.ProblemJSON `json:"problems"`
	Notes    []contract.ProblemJSON `json:"notes,omitempty"`
	Budget   *budget.Report         `json:"budget,omitempty"`
}

// serveVerify answers POST /v1/verify[?lang=…] with the posted contract's
// problems. A contract with problems is still a 200: the check ran; ok
// says whether it passed.
func (s *Server) serveVerify(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	buf := borrowBuffer()
	defer returnBuffer(buf)
	if err := readBody(w, r, s.cfg.MaxBodyBytes, buf); err != nil {
		return badRequest(w, snap, err.Error())
	}
	decisionOf(w).request(buf.Bytes())
	// Text that encoding/json would silently change is a bad request, as
	// for POST /v1/contract, not a problem found in the contract.
	if err := contract.CheckText("contract", buf.Bytes()); err != nil {
		status, d := classify(err)
		return writeError(w, snap, status, d)
	}
	v := snap.Builder.Verify(buf.Bytes(), r.URL.Query().Get("lang"))
	decisionOf(w).verified(buf.Bytes(), v)
	return writeJSON(w, snap, http.StatusOK, verifyAnswer(v))
}

// verifyAnswer is POST /v1/verify's body for v.
func verifyAnswer(v contract.Verification) verifyResponse {
	// The contract is the body, so the settings a hint names are query
	// parameters (?lang=).
	out := verifyResponse{OK: v.OK(), Lang: v.Lang, Problems: contract.ProblemsJSON(v.Problems, queryParam), Budget: v.Budget}
	if len(v.Notes) > 0 {
		out.Notes = contract.ProblemsJSON(v.Notes, queryParam)
	}
	return out
}

// serveHealthz answers GET /healthz: the process is alive.
func (s *Server) serveHealthz(w http.ResponseWriter, _ *http.Request, snap *Snapshot) int {
	writeBody(w, snap, http.StatusOK, "application/json", []byte(`{"status":"ok"}`+"\n"))
	return http.StatusOK
}

// Readiness is GET /readyz's body.
type Readiness struct {
	Ready bool `json:"ready"`
	// Corpus describes the corpus serving now.
	Corpus CorpusStatus `json:"corpus"`
	// Degraded is true when the last reload failed or timed out, or the
	// corpus cannot be watched as a whole: the corpus still serves
	// (Ready), but it may be older than the files; LastReload and Watch
	// say when and why.
	Degraded bool `json:"degraded"`
	// LastReload is the last load, the first one included; its error, if
	// it failed, says why the serving corpus is older than the files.
	LastReload ReloadStatus `json:"last_reload"`
	// Watch is what the watcher is doing, when one runs.
	Watch *WatchStatus `json:"watch,omitempty"`
}

// CorpusStatus describes a snapshot's corpus.
type CorpusStatus struct {
	Location   string    `json:"location"`
	Digest     string    `json:"digest"`
	Sources    int       `json:"sources"`
	Generation uint64    `json:"generation"`
	LoadedAt   time.Time `json:"loaded_at"`
}

// serveReadyz answers GET /readyz: 200 while a corpus is loaded, with the
// last reload's outcome and error, if any, and the watcher's state. A
// failed or timed-out reload, or a corpus that cannot be watched, is
// reported (degraded) but keeps the answer 200: the corpus serving is
// whole and checked, and every replica reading the same files would fail
// the same way, so taking them out of service would turn a stale corpus
// into an outage.
func (s *Server) serveReadyz(w http.ResponseWriter, _ *http.Request, snap *Snapshot) int {
	last := s.LastReload()
	degraded := last.Outcome == ReloadFailed || last.Outcome == ReloadTimedOut
	watch := s.watch.Load()
	if watch != nil && watch.State != WatchWatching {
		degraded = true
	}
	return writeJSON(w, snap, http.StatusOK, Readiness{Ready: true, Degraded: degraded, LastReload: last, Watch: watch,
		Corpus: CorpusStatus{Location: s.cfg.Build.Location(), Digest: snap.Digest(), Sources: len(snap.Corpus.Sources),
			Generation: snap.Generation, LoadedAt: snap.LoadedAt}})
}

// serveMetrics answers GET /metrics in the Prometheus text format.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	setSnapshotHeaders(w.Header(), snap)
	rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
	promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}).ServeHTTP(rec, r)
	return rec.code
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}
