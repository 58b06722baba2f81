package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/serve"
)

// openLog opens a decision log appending to a new file, closed at the end
// of the test, and returns its path.
func openLog(t *testing.T, cfg serve.DecisionLogConfig) (*serve.DecisionLog, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "decisions.log")
	cfg.Open = func() (io.Writer, error) { return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) }
	dl, err := serve.OpenDecisionLog(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dl.Close() })
	return dl, path
}

// readDecisions reads a decision log; every line must be a whole
// decision.
func readDecisions(t *testing.T, path string) []serve.Decision {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []serve.Decision
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var d serve.Decision
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("line %d is not a decision: %v: %s", n, err, sc.Bytes())
		}
		out = append(out, d)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("the log ends in half a line: %q", data[max(0, len(data)-80):])
	}
	return out
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestDecisionLogLines answers each kind of request once and reads the
// log: one line per answer of /v1/contract and /v1/verify, with the id of
// its header, what was asked and what was answered; none for the other
// endpoints, whose answers decide nothing.
func TestDecisionLogLines(t *testing.T) {
	dl, path := openLog(t, serve.DecisionLogConfig{})
	capacity := 1500 // one version fits, the comparison does not
	rn := start(t, serve.Config{Build: contract.Config{Corpus: corpus.Embedded(), Capacity: &capacity}, Settings: en, DecisionLog: dl})
	ok := rn.post(t, "/v1/contract", lodging2026)
	if ok.status != http.StatusOK {
		t.Fatalf("contract: %d %s", ok.status, ok.body)
	}
	tampered := bytes.Replace(ok.body, []byte("750"), []byte("600"), 1)
	over := `{"subject":"lodging","dates":["2025-09-14","2026-09-14"],"question":"Compare the limits."}`
	answers := []struct {
		name, method, path, body string
		status                   int
		outcome, kind            string
		records                  []string
	}{
		{"contract", "POST", "/v1/contract", lodging2026, 200, serve.OutcomeOK, "", []string{"travel-v2:1-5"}},
		{"bad json", "POST", "/v1/contract", `{"subject":`, 400, serve.OutcomeError, "bad_request", nil},
		{"over budget", "POST", "/v1/contract", over, 422, serve.OutcomeError, "budget_exceeded", []string{"travel-v2:1-5", "travel-v1:1-4"}},
		{"verify ok", "POST", "/v1/verify", string(ok.body), 200, serve.OutcomeOK, "", []string{"travel-v2:1-5"}},
		{"verify tampered", "POST", "/v1/verify?lang=en", string(tampered), 200, serve.OutcomeProblems, "", []string{"travel-v2:1-5"}},
		{"wrong method", "GET", "/v1/contract", "", 405, serve.OutcomeError, "method_not_allowed", nil},
		{"grade ok", "POST", "/v1/grade", `{"contract":` + string(bytes.TrimSpace(ok.body)) + `,"answer":"The lodging limit is 750 CNY per room-night [travel-v2:3]."}`,
			200, serve.OutcomeOK, "", []string{"travel-v2:1-5"}},
		{"grade findings", "POST", "/v1/grade", `{"contract":` + string(bytes.TrimSpace(ok.body)) + `,"answer":"The lodging limit is 720 CNY per room-night [travel-v2:3]."}`,
			200, serve.OutcomeProblems, "", []string{"travel-v2:1-5"}},
		{"render", "POST", "/v1/render", `{"contract":` + string(bytes.TrimSpace(ok.body)) + `,"provider":"openai-chat","capacity":4096,"reserve":512}`,
			200, serve.OutcomeOK, "", []string{"travel-v2:1-5"}},
		{"render refused", "POST", "/v1/render", `{"contract":{},"provider":"openai-chat"}`, 400, serve.OutcomeError, "bad_request", nil},
	}
	ids := map[string]bool{ok.header.Get(serve.DecisionHeader): true}
	var bodies [][]byte
	for _, a := range answers {
		resp := rn.do(t, a.method, a.path, a.body)
		if resp.status != a.status {
			t.Fatalf("%s: status %d, want %d: %s", a.name, resp.status, a.status, resp.body)
		}
		id := resp.header.Get(serve.DecisionHeader)
		if id == "" || ids[id] {
			t.Fatalf("%s: decision id %q: want a new one", a.name, id)
		}
		ids[id] = true
		bodies = append(bodies, resp.body)
	}
	for _, p := range []string{"/v1/select?subject=lodging&date=2026-09-14", "/v1/show?address=travel-v2:1-3", "/healthz"} {
		if id := rn.get(t, p).header.Get(serve.DecisionHeader); id != "" {
			t.Errorf("GET %s has decision id %s; it decides nothing", p, id)
		}
	}
	rn.shutdown()
	dl.Close()
	got := readDecisions(t, path)
	if len(got) != len(answers)+1 {
		t.Fatalf("%d lines, want %d", len(got), len(answers)+1)
	}
	digest := ok.header.Get(serve.DigestHeader)
	for i, a := range answers {
		d := got[i+1]
		if d.Endpoint != strings.TrimPrefix(strings.Split(a.path, "?")[0], "/v1/") || d.Status != a.status || d.Outcome != a.outcome || d.ErrorKind != a.kind {
			t.Errorf("%s: line %+v", a.name, d)
		}
		if d.AnswerSHA256 != sha(bodies[i]) {
			t.Errorf("%s: answer_sha256 %s is not the body's", a.name, d.AnswerSHA256)
		}
		if d.Corpus.Digest != digest || d.Corpus.Generation != 1 {
			t.Errorf("%s: corpus %+v, want digest %s, generation 1", a.name, d.Corpus, digest)
		}
		if diff := cmp.Diff(a.records, d.Records); diff != "" {
			t.Errorf("%s: records mismatch (-want +got)\n%s", a.name, diff)
		}
		if a.method == "POST" && (d.Request == nil || *d.Request != a.body || d.RequestSHA256 != sha([]byte(a.body))) {
			t.Errorf("%s: request %v, sha %s: want the body as sent", a.name, d.Request, d.RequestSHA256)
		}
	}
	first := got[0]
	if first.ID != ok.header.Get(serve.DecisionHeader) || first.ContractSHA256 != sha(bytes.TrimSuffix(ok.body, []byte("\n"))) {
		t.Errorf("contract line %+v: want the header's id and the contract's SHA-256", first)
	}
	if b := first.Budget; b == nil || b.Counter != "codepoint" || b.Limit != 1300 || b.Total <= 0 || b.Left != b.Limit-b.Total {
		t.Errorf("contract line budget %+v", first.Budget)
	}
	if q := got[5].Query; q != "lang=en" {
		t.Errorf("verify line query %q, want lang=en", q)
	}
}

// TestDecisionLogDigestOnly keeps requests as their digests: no request
// text reaches the log.
func TestDecisionLogDigestOnly(t *testing.T) {
	dl, path := openLog(t, serve.DecisionLogConfig{Requests: serve.DecisionRequestDigest})
	rn := start(t, serve.Config{Build: sample, Settings: en, DecisionLog: dl})
	rn.post(t, "/v1/contract", lodging2026)
	rn.shutdown()
	dl.Close()
	got := readDecisions(t, path)
	if len(got) != 1 || got[0].Request != nil || got[0].RequestSHA256 != sha([]byte(lodging2026)) {
		t.Fatalf("lines %+v: want one, with the request's digest only", got)
	}
	if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("Beijing")) {
		t.Errorf("the log holds the question: %s", data)
	}
}

// blockingWriter is a file that cannot be written until released. entered
// is closed when the first write starts, which holds first lines.
type blockingWriter struct {
	release chan struct{}
	entered chan struct{}
	first   int
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.first == 0 {
		w.first = bytes.Count(p, []byte("\n"))
		close(w.entered)
	}
	w.mu.Unlock()
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestDecisionLogNeverBlocks: a log whose file does not take writes
// never holds an answer; the lines that do not fit its buffer are
// dropped, counted in the metrics, and counted in the log itself once it
// can be written again, so that every answer is a line or in a count.
func TestDecisionLogNeverBlocks(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{}), entered: make(chan struct{})}
	dl, err := serve.OpenDecisionLog(serve.DecisionLogConfig{Open: func() (io.Writer, error) { return w, nil }, Buffer: 2})
	if err != nil {
		t.Fatal(err)
	}
	rn := start(t, serve.Config{Build: sample, Settings: en, DecisionLog: dl})
	const answers = 40 // over a millisecond of requests: more than the first write gathers
	for range answers {
		if resp := rn.post(t, "/v1/contract", lodging2026); resp.status != http.StatusOK {
			t.Fatalf("status %d: %s", resp.status, resp.body)
		}
	}
	// The writer gathers the lines that come within a moment into its
	// first write, which blocks; then two fit the buffer and the rest
	// are dropped (more if the writer was slow to take a line before).
	<-w.entered
	w.mu.Lock()
	first := w.first
	w.mu.Unlock()
	dropped := dl.Dropped()
	if want := answers - first - min(2, answers-first); dropped < uint64(want) {
		t.Errorf("%d dropped with the file blocked, %d lines in its first write and room for 2 lines; want at least %d", dropped, first, want)
	}
	if got := labeled(t, rn.srv, "ka2_decision_log_lines_total", "dropped"); got != float64(dropped) {
		t.Errorf("dropped metric %v, want %d", got, dropped)
	}
	close(w.release)
	dl.Close()
	var lines, counted uint64
	sc := bufio.NewScanner(&w.buf)
	for sc.Scan() {
		var d serve.Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("line %s: %v", sc.Bytes(), err)
		}
		if d.ID != "" {
			lines++
		}
		counted += d.Dropped
	}
	if lines+counted != answers || counted != dropped {
		t.Errorf("%d lines and %d counted as dropped (%d dropped), want %d answers in all", lines, counted, dropped, answers)
	}
}

// TestDecisionLogReopen: lines written before a reopen go to the file
// open before it, those after it to the new one (a rotation renamed the
// old one away).
func TestDecisionLogReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.log")
	open := func() (io.Writer, error) { return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) }
	dl, err := serve.OpenDecisionLog(serve.DecisionLogConfig{Open: open})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	rn := start(t, serve.Config{Build: sample, Settings: en, DecisionLog: dl})
	before := rn.post(t, "/v1/contract", lodging2026).header.Get(serve.DecisionHeader)
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := dl.Reopen(); err != nil {
		t.Fatal(err)
	}
	after := rn.post(t, "/v1/contract", lodging2026).header.Get(serve.DecisionHeader)
	rn.shutdown()
	dl.Close()
	for file, want := range map[string]string{path + ".1": before, path: after} {
		got := readDecisions(t, file)
		if len(got) != 1 || got[0].ID != want {
			t.Errorf("%s holds %+v, want the one decision %s", filepath.Base(file), got, want)
		}
	}
}

// TestDecisionLogUnderLoad answers from many connections at once: the
// log has exactly one whole line per answer, each with its answer's id.
func TestDecisionLogUnderLoad(t *testing.T) {
	dl, path := openLog(t, serve.DecisionLogConfig{Buffer: 4096})
	rn := start(t, serve.Config{Build: sample, Settings: en, DecisionLog: dl, MaxInFlight: 8})
	const workers, each = 16, 25
	ids := make(chan string, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				resp := rn.post(t, "/v1/contract", lodging2026)
				if resp.status != http.StatusOK {
					t.Errorf("status %d: %s", resp.status, resp.body)
					return
				}
				ids <- resp.header.Get(serve.DecisionHeader)
			}
		})
	}
	wg.Wait()
	close(ids)
	rn.shutdown()
	dl.Close()
	var want []string
	for id := range ids {
		want = append(want, id)
	}
	var got []string
	for _, d := range readDecisions(t, path) {
		got = append(got, d.ID)
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decision ids mismatch (-answered +logged)\n%s", diff)
	}
	if dl.Dropped() != 0 {
		t.Errorf("%d dropped", dl.Dropped())
	}
}

// TestAuditCorpusChanges logs a few hundred decisions while the corpus
// changes under the server, then audits them all: against the corpus
// each was made from, every one reproduces; against the last corpus,
// exactly those whose answer the last corpus changes are named, as
// corpus_changed, and no other.
func TestAuditCorpusChanges(t *testing.T) {
	dir := t.TempDir()
	policy := func(id, subject, from, body string) string {
		return fmt.Sprintf("---\nsource_id: %s\nversion: v1\nsubjects: [%s]\nvalid_from: %s\nlang: en\nunit: CNY\n---\n%s\n", id, subject, from, body)
	}
	writeFile(t, dir, "lodging.md", policy("lodging-v1", "lodging", "2025-01-01", "The lodging limit is 600 CNY per night."))
	writeFile(t, dir, "meals.md", policy("meals-v1", "meals", "2025-01-01", "The meal allowance is 80 CNY a day."))
	dl, path := openLog(t, serve.DecisionLogConfig{})
	// Small enough that the long meals policy is over budget.
	capacity := 1300
	cfg := serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir), Capacity: &capacity}, Settings: en, DecisionLog: dl, Settle: -1}
	rn := start(t, cfg)
	requests := []string{}
	for _, subject := range []string{"lodging", "meals", "taxi"} {
		for _, date := range []string{"2025-06-01", "2026-06-01"} {
			requests = append(requests,
				fmt.Sprintf(`{"subject":%q,"dates":[%q],"question":"What is the limit?"}`, subject, date),
				fmt.Sprintf(`{"subject":%q,"dates":[%q],"question":"What is the limit?","require_evidence":true}`, subject, date),
				fmt.Sprintf(`{"subject":%q,"dates":[%q,"2026-09-14"],"question":"What are the limits?","lang":"en"}`, subject, date))
		}
	}
	// Each step edits the corpus, and the next round of decisions is
	// made from the new one.
	steps := []func(){
		func() {
			writeFile(t, dir, "lodging.md", policy("lodging-v1", "lodging", "2025-01-01", "The lodging limit is 650 CNY per night."))
		},
		func() {
			writeFile(t, dir, "taxi.md", policy("taxi-v1", "taxi", "2026-01-01", "Taxis are refunded up to 120 CNY a ride."))
		},
		func() {
			writeFile(t, dir, "meals.md", policy("meals-v1", "meals", "2025-01-01", strings.Repeat("Meals are refunded against a receipt. ", 12)))
		},
		func() { os.Remove(filepath.Join(dir, "taxi.md")) },
		func() {
			writeFile(t, dir, "lodging.md", policy("lodging-v1", "lodging", "2025-01-01", "The lodging limit is 600 CNY per night."))
		},
	}
	type answered struct {
		id, path, body string
		status         int
		answer         []byte
	}
	var log []answered
	builders := map[string]*contract.Builder{}
	round := func() {
		snap := rn.srv.Snapshot()
		builders[snap.Digest()] = snap.Builder
		for rep := range 3 {
			for _, body := range requests {
				resp := rn.post(t, "/v1/contract", body)
				log = append(log, answered{resp.header.Get(serve.DecisionHeader), "/v1/contract", body, resp.status, resp.body})
				if resp.status == http.StatusOK && rep == 0 {
					v := rn.post(t, "/v1/verify", string(resp.body))
					log = append(log, answered{v.header.Get(serve.DecisionHeader), "/v1/verify", string(resp.body), v.status, v.body})
				}
			}
		}
	}
	round()
	for _, step := range steps {
		step()
		if _, err := rn.srv.ReloadAll(context.Background(), "test"); err != nil {
			t.Fatal(err)
		}
		round()
	}
	// What the last corpus answers now, asked again of the server.
	changed := map[string]bool{}
	for _, a := range log {
		now := rn.post(t, a.path, a.body)
		if now.status != a.status || !bytes.Equal(now.body, a.answer) {
			changed[a.id] = true
		}
	}
	last := rn.srv.Snapshot().Builder
	rn.shutdown()
	dl.Close()
	statuses := map[int]int{}
	for _, a := range log {
		statuses[a.status]++
	}
	if len(log) < 300 || len(changed) == 0 || len(changed) == len(log) || statuses[200] == 0 || statuses[422] == 0 {
		t.Fatalf("%d decisions (statuses %v), %d changed: the test needs hundreds, answers and refusals, some changed and some not", len(log), statuses, len(changed))
	}
	t.Logf("%d decisions (statuses %v), %d changed", len(log), statuses, len(changed))

	audit := func(target func(d *serve.Decision) *contract.Builder) *serve.AuditReport {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rep, err := serve.Audit(context.Background(), f, serve.AuditConfig{Settings: en,
			Target: func(_ context.Context, d *serve.Decision) (*contract.Builder, error) { return target(d), nil }})
		if err != nil {
			t.Fatal(err)
		}
		// The log also holds the decisions of the "what now" requests.
		if rep.Decisions != 2*len(log) || len(rep.Unchecked) != 0 {
			t.Fatalf("audit read %d decisions, %d unchecked; want %d, none", rep.Decisions, len(rep.Unchecked), 2*len(log))
		}
		return rep
	}
	if rep := audit(func(d *serve.Decision) *contract.Builder { return builders[d.Corpus.Digest] }); !rep.OK() {
		t.Errorf("each against its own corpus: %d differ, want none: %+v", len(rep.Differ), rep.Differ[0])
	}
	rep := audit(func(*serve.Decision) *contract.Builder { return last })
	named := map[string]bool{}
	for _, f := range rep.Differ {
		if f.Reason != serve.ReasonCorpusChanged {
			t.Errorf("%s: reason %s (%s), want corpus_changed", f.ID, f.Reason, f.Message)
		}
		named[f.ID] = true
		if !changed[f.ID] && len(named) < 400 {
			t.Logf("named, not changed: %+v", f)
		}
	}
	if diff := cmp.Diff(changed, named); diff != "" {
		t.Errorf("decisions named mismatch (-changed +named)\n%s", diff)
	}
}

// labeled returns the counter name{outcome=outcome} of the server's
// registry.
func labeled(t *testing.T, srv *serve.Server, name, outcome string) float64 {
	t.Helper()
	mfs, err := srv.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if mf.GetName() == name && l.GetName() == "outcome" && l.GetValue() == outcome {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no metric %s{outcome=%q}", name, outcome)
	return 0
}

var en = contract.Settings{Lang: "en"}

// shutdown stops the server and waits until every answer is written, and
// so every decision recorded; the test's cleanup still finds Serve's
// result.
func (r *running) shutdown() {
	r.client.CloseIdleConnections()
	r.stop()
	err := <-r.done
	r.done <- err
}

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDecisionDebugLog: at debug level every decision is logged with its
// id, with or without a decision log; select, which decides nothing, is
// not.
func TestDecisionDebugLog(t *testing.T) {
	logs := &lockedBuffer{}
	rn := start(t, serve.Config{Build: sample, Settings: en, Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	id := rn.post(t, "/v1/contract", lodging2026).header.Get(serve.DecisionHeader)
	rn.get(t, "/v1/select?subject=lodging&date=2026-09-14")
	rn.shutdown()
	want := fmt.Sprintf(`"msg":"answered","decision":%q,"route":"contract","status":200}`, id)
	if got := logs.String(); !strings.Contains(got, want) || strings.Count(got, `"msg":"answered"`) != 1 {
		t.Errorf("log:\n%s\nwant one answered line: %s", got, want)
	}
}

// TestAuditRebuildsWhatWasServed: a contract the server answered rebuilds
// from its decision line to the served bytes (and a refusal to the same
// refusal), whatever the request sets: its own counter, capacity, reserve
// or provider, short, items and promotions, an item the policy refuses.
// The audit and the handler run one set of steps.
func TestAuditRebuildsWhatWasServed(t *testing.T) {
	dl, path := openLog(t, serve.DecisionLogConfig{})
	rn := start(t, serve.Config{Build: sample, Settings: en, DecisionLog: dl})
	q := `"subject":"lodging","dates":["2026-09-14"],"question":"What is the limit?"`
	two := `"subject":"lodging","dates":["2025-09-14","2026-09-14"],"question":"How did the limit change?"`
	requests := []struct {
		body   string
		status int
	}{
		{`{` + q + `}`, 200},
		{`{` + q + `,"capacity":3000}`, 200},
		{`{` + q + `,"capacity":2000,"reserve":10}`, 200},
		{`{` + q + `,"capacity":1200}`, 422},
		{`{` + two + `}`, 422},
		{`{` + two + `,"short":true}`, 200},
		{`{` + two + `,"capacity":9000}`, 200},
		{`{` + q + `,"counter":"o200k_base"}`, 200},
		{`{` + q + `,"counter":"o200k_base","provider":"openai-chat"}`, 200},
		{`{` + q + `,"counter":"o200k_base","capacity":4000,"reserve":3000,"provider":"openai-chat"}`, 200},
		{`{` + q + `,"provider":"openai-chat"}`, 400},
		{`{` + q + `,"items":[{"type":"tool_output","source":"tool:order_lookup","text":"Order A-104: 2 nights."}],"promote":[{"item":0,"to":"evidence"}]}`, 200},
		{`{` + q + `,"items":[{"type":"instruction","source":"system","text":"Answer in French."}]}`, 422},
		{`{` + q + `,"dates":["2026-02-30"]}`, 400},
	}
	served := map[string][]byte{}
	for _, r := range requests {
		got := rn.post(t, "/v1/contract", r.body)
		if got.status != r.status {
			t.Fatalf("%s: %d %s, want %d", r.body, got.status, got.body, r.status)
		}
		served[got.header.Get(serve.DecisionHeader)] = got.body
	}
	snap := rn.srv.Snapshot()
	rn.shutdown()
	dl.Close()
	decisions := readDecisions(t, path)
	if len(decisions) != len(requests) {
		t.Fatalf("%d decision lines, want %d", len(decisions), len(requests))
	}
	for _, d := range decisions {
		if d.AnswerSHA256 != sha(served[d.ID]) {
			t.Errorf("%s: the line's answer is not the served bytes", d.ID)
		}
		if d.Status == http.StatusOK && d.ContractSHA256 != sha(bytes.TrimSuffix(served[d.ID], []byte("\n"))) {
			t.Errorf("%s: the line's contract is not the served one", d.ID)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := serve.Audit(t.Context(), f, serve.AuditConfig{Settings: en,
		Target: func(context.Context, *serve.Decision) (*contract.Builder, error) { return snap.Builder, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decisions != len(requests) || rep.Reproduced != len(requests) || len(rep.Unchecked) != 0 {
		t.Errorf("audit: %d decisions, %d reproduced, %d unchecked; want all %d reproduced", rep.Decisions, rep.Reproduced, len(rep.Unchecked), len(requests))
	}
	for _, f := range rep.Differ {
		t.Errorf("%s: %s (%s): logged %s, rebuilt %s", f.ID, f.Reason, f.Message, f.Logged, f.Rebuilt)
	}
}
