package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/serve"
)

// testSettle is the settle interval of tests whose writes are atomic
// (writeFile renames): short, so that a reload does not wait long on them.
const testSettle = time.Millisecond

// travelV2 is the sample's travel-v2 policy with the limit set to amount.
func travelV2(t testing.TB, amount int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "corpus", "sample", "en", "travel-v2.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, "750 CNY") {
		t.Fatal("the sample's travel-v2 no longer says 750 CNY; update the test")
	}
	return strings.Replace(s, "750 CNY", strconv.Itoa(amount)+" CNY", 1)
}

func readiness(t testing.TB, r *running) serve.Readiness {
	t.Helper()
	got := r.get(t, "/readyz")
	var ready serve.Readiness
	if err := json.Unmarshal(got.body, &ready); err != nil || got.status != http.StatusOK {
		t.Fatalf("readyz: %d %s (%v)", got.status, got.body, err)
	}
	return ready
}

// reloads counts the reloads with this outcome in the server's metrics.
func reloads(t testing.TB, srv *serve.Server, outcome serve.ReloadOutcome) int {
	t.Helper()
	mfs, err := srv.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "ka2_corpus_reloads_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == string(outcome) {
					return int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return 0
}

// TestReloadUnderLoad sends requests from several goroutines while the
// corpus changes and reloads over and over. Every response must be exactly
// the contract of the corpus whose digest it reports: never a mix, never
// an error.
func TestReloadUnderLoad(t *testing.T) {
	dir := sampleDir(t)
	settings := contract.Settings{Lang: "en"}
	amounts := []int{750, 760, 770}
	want := map[string][]byte{} // digest → contract
	for _, a := range amounts {
		writeFile(t, dir, "en/travel-v2.md", travelV2(t, a))
		b, digest := expected(t, corpus.Folder(dir), settings, lodging2026)
		want[digest] = b
	}
	if len(want) != len(amounts) {
		t.Fatalf("%d digests for %d corpora", len(want), len(amounts))
	}
	r := start(t, serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: settings, Settle: testSettle})

	const workers = 4
	stop := make(chan struct{})
	served := make(chan struct{}, 1) // a response was checked
	var wg sync.WaitGroup
	seen := make([]map[string]int, workers)
	for w := range workers {
		seen[w] = map[string]int{}
		wg.Go(func() {
			lastGen := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				got := r.post(t, "/v1/contract", lodging2026)
				digest := got.header.Get(serve.DigestHeader)
				if got.status != http.StatusOK {
					t.Errorf("status %d during reloads: %s", got.status, got.body)
					return
				}
				exp, ok := want[digest]
				if !ok {
					t.Errorf("response reports digest %s, which is none of the corpora written", digest)
					return
				}
				if string(exp) != string(got.body) {
					t.Errorf("response for digest %s is not that corpus's contract:\n%s", digest, got.body)
					return
				}
				gen, _ := strconv.Atoi(got.header.Get(serve.GenerationHeader))
				if gen < lastGen {
					t.Errorf("generation went back from %d to %d", lastGen, gen)
				}
				lastGen = gen
				seen[w][digest]++
				select {
				case served <- struct{}{}:
				default:
				}
			}
		})
	}
	const rounds = 30
	for i := range rounds {
		writeFile(t, dir, "en/travel-v2.md", travelV2(t, amounts[(i+1)%len(amounts)]))
		st, err := r.srv.Reload(t.Context(), "test")
		if err != nil || st.Outcome != serve.ReloadOK {
			t.Fatalf("Reload() = %+v, %v", st, err)
		}
		// Let the workers answer from this corpus before the next swap:
		// one response checked since the reload.
		select {
		case <-served:
		default:
		}
		await(t, served, "a response after the reload")
	}
	close(stop)
	wg.Wait()
	total := map[string]int{}
	for _, m := range seen {
		for d, n := range m {
			total[d] += n
		}
	}
	if len(total) < 2 {
		t.Errorf("responses came from %d corpora (%v); the reloads were not seen", len(total), total)
	}
	if got := r.srv.Snapshot().Generation; got != rounds+1 {
		t.Errorf("generation %d after %d reloads, want %d", got, rounds, rounds+1)
	}
}

// TestBrokenFileKeepsServing writes a broken file into the corpus: the old
// corpus keeps serving, /readyz and the metrics say why, and the next good
// change is picked up.
func TestBrokenFileKeepsServing(t *testing.T) {
	dir := sampleDir(t)
	settings := contract.Settings{Lang: "en"}
	before, digest := expected(t, corpus.Folder(dir), settings, lodging2026)
	r := start(t, serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: settings, Settle: testSettle})

	writeFile(t, dir, "en/broken.md", "---\nsource_id: broken\nvalid_untill: 2026-01-01\n---\nbody\n")
	st, err := r.srv.Reload(t.Context(), "test")
	if err == nil || st.Outcome != serve.ReloadFailed {
		t.Fatalf("Reload() with a broken file = %+v, %v; want a failure", st, err)
	}
	got := r.post(t, "/v1/contract", lodging2026)
	if got.status != http.StatusOK || string(got.body) != string(before) || got.header.Get(serve.DigestHeader) != digest {
		t.Errorf("after a failed reload: %d %s (digest %s), want the old corpus's contract", got.status, got.body, got.header.Get(serve.DigestHeader))
	}
	ready := readiness(t, r)
	if !ready.Ready || ready.Corpus.Digest != digest || ready.LastReload.Outcome != serve.ReloadFailed ||
		!strings.Contains(ready.LastReload.Error, "broken.md:3:1: unknown key \"valid_untill\"; did you mean valid_until?") {
		t.Errorf("readyz after a failed reload = %+v", ready)
	}
	if n := reloads(t, r.srv, serve.ReloadFailed); n != 1 {
		t.Errorf("reloads{outcome=error} = %d, want 1", n)
	}

	// Removing the file gives back the serving corpus: unchanged.
	if err := os.Remove(filepath.Join(dir, "en", "broken.md")); err != nil {
		t.Fatal(err)
	}
	if st, err := r.srv.Reload(t.Context(), "test"); err != nil || st.Outcome != serve.ReloadUnchanged {
		t.Errorf("Reload() after the fix = %+v, %v; want unchanged", st, err)
	}
	writeFile(t, dir, "en/travel-v2.md", travelV2(t, 790))
	if st, err := r.srv.Reload(t.Context(), "test"); err != nil || st.Outcome != serve.ReloadOK {
		t.Errorf("Reload() after a good change = %+v, %v", st, err)
	}
	if got := r.post(t, "/v1/contract", lodging2026); !strings.Contains(string(got.body), "790 CNY") {
		t.Errorf("the good change is not served: %s", got.body)
	}
}

// TestWatch changes files under the corpus while Watch runs: a burst of
// writes is one reload, a broken file is reported and not served, and the
// fix is picked up.
func TestWatch(t *testing.T) {
	dir := sampleDir(t)
	settings := contract.Settings{Lang: "en"}
	_, digest := expected(t, corpus.Folder(dir), settings, lodging2026)
	srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: settings, Debounce: 100 * time.Millisecond, Settle: testSettle})
	if err != nil {
		t.Fatal(err)
	}
	watching := make(chan struct{}, 8)
	reloaded := make(chan serve.ReloadStatus, 64)
	serve.SetHooks(srv, serve.Hooks{Watching: func() { trySend(watching, struct{}{}) }, Reloaded: func(st serve.ReloadStatus) { trySend(reloaded, st) }})
	r := serveOn(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	watchDone := make(chan error, 1)
	go func() { watchDone <- r.srv.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watchDone; err != nil {
			t.Errorf("Watch() = %v", err)
		}
	})
	<-watching // the watches are added

	// A burst of writes in a new folder: one reload.
	if err := os.Mkdir(filepath.Join(dir, "extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		writeFile(t, dir, fmt.Sprintf("extra/note-%d.md", i),
			fmt.Sprintf("---\nsource_id: note-%d\nversion: v1\nsubjects: [notes]\nvalid_from: 2026-01-01\n---\nNote %d.\n", i, i))
	}
	awaitReload(t, reloaded, "the burst", func(serve.ReloadStatus) bool {
		return readiness(t, r).Corpus.Sources == 17
	})
	if n := reloads(t, r.srv, serve.ReloadOK); n > 3 {
		t.Errorf("%d reloads for one burst of writes, want at most 3", n)
	}
	afterBurst := r.srv.Snapshot().Digest()
	if afterBurst == digest {
		t.Fatal("the digest did not change")
	}

	// A broken file in the new folder: reported, not served.
	writeFile(t, dir, "extra/broken.md", "---\nsource_id: Broken!\n---\n")
	awaitReload(t, reloaded, "the broken file's report", func(st serve.ReloadStatus) bool {
		return st.Outcome == serve.ReloadFailed
	})
	ready := readiness(t, r)
	if ready.Corpus.Digest != afterBurst || !strings.Contains(ready.LastReload.Error, "extra/broken.md") || ready.LastReload.Trigger != "watch" {
		t.Errorf("readyz = %+v", ready)
	}
	if got := r.post(t, "/v1/contract", lodging2026); got.status != http.StatusOK || got.header.Get(serve.DigestHeader) != afterBurst {
		t.Errorf("after the broken file: %d, digest %s", got.status, got.header.Get(serve.DigestHeader))
	}

	// The fix, and a change to a served policy, are picked up.
	if err := os.Remove(filepath.Join(dir, "extra", "broken.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "en/travel-v2.md", travelV2(t, 800))
	awaitReload(t, reloaded, "the fixed corpus", func(serve.ReloadStatus) bool {
		got := r.post(t, "/v1/contract", lodging2026)
		return strings.Contains(string(got.body), "800 CNY")
	})
	if ready := readiness(t, r); ready.LastReload.Outcome != serve.ReloadOK || ready.LastReload.Error != "" {
		t.Errorf("readyz after the fix = %+v", ready.LastReload)
	}
}

// startRaw serves srv on a free loopback port without the cleanup of
// serveOn, for tests that stop it themselves. closed is closed when the
// server closes its listener.
func startRaw(t *testing.T, srv *serve.Server) (addr string, stop context.CancelFunc, done chan error, closed <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &closeNotifier{Listener: l, closed: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(cancel)
	return l.Addr().String(), cancel, done, ln.closed
}

// inHandlerHook returns a hook that reports each API request the server
// has taken in hand, before it reads the body.
func inHandlerHook(srv *serve.Server) <-chan string {
	entered := make(chan string, 16)
	serve.SetHooks(srv, serve.Hooks{InHandler: func(route string) { entered <- route }})
	return entered
}

// inFlight sends the headers and the first half of a contract request and
// returns the connection, the rest of the body and a reader for the
// answer.
func inFlight(t *testing.T, addr, body string) (net.Conn, string, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	half := len(body) / 2
	fmt.Fprintf(conn, "POST /v1/contract HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body[:half])
	return conn, body[half:], bufio.NewReader(conn)
}

// TestDrain stops the server while requests are in flight: they are
// answered in full, new connections are refused, and Serve returns nil.
func TestDrain(t *testing.T) {
	settings := contract.Settings{Lang: "en"}
	srv, err := serve.New(serve.Config{Build: sample, Settings: settings, DrainTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := expected(t, corpus.Embedded(), settings, lodging2026)
	entered := inHandlerHook(srv)
	addr, stop, done, closed := startRaw(t, srv)
	var conns []net.Conn
	var rests []string
	var readers []*bufio.Reader
	for range 3 {
		c, rest, rd := inFlight(t, addr, lodging2026)
		conns, rests, readers = append(conns, c), append(rests, rest), append(readers, rd)
	}
	for range 3 {
		await(t, entered, "a request in the handler") // the server has read the headers
	}
	stop() // as SIGTERM does
	await(t, closed, "the listener to close")
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("a new connection was accepted while draining")
	}
	select {
	case err := <-done:
		t.Fatalf("Serve() returned %v with requests in flight", err)
	default:
	}
	for i, c := range conns {
		if _, err := io.WriteString(c, rests[i]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			t.Fatalf("request %d in flight: %v", i, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(got) != string(want) {
			t.Errorf("request %d in flight: %d %s", i, resp.StatusCode, got)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve() = %v, want nil after the drain", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve() did not return after the requests in flight were answered")
	}
}

// TestDrainDeadline: a request that never completes is cut at the drain
// deadline, and Serve says so. The request is held in the handler until
// the end, so any deadline passes with it in flight: a short one keeps the
// test from waiting.
func TestDrainDeadline(t *testing.T) {
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}, DrainTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	entered := inHandlerHook(srv)
	addr, stop, done, _ := startRaw(t, srv)
	inFlight(t, addr, lodging2026)
	await(t, entered, "the request in the handler")
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, serve.ErrDrainTimeout) {
			t.Errorf("Serve() = %v, want ErrDrainTimeout", err)
		}
		// The hint names the setting; the CLI words it --drain-timeout.
		if got := diag.Settings(err); len(got) != 1 || got[0] != "drain-timeout" || strings.Contains(err.Error(), "--") {
			t.Errorf("Serve() = %v, hint settings %v, want [drain-timeout] and no flag", err, got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve() did not return after the drain deadline")
	}
}

// TestReloadChanged: a reload told the changed paths gives the corpus a
// full load gives; a broken file it reads keeps the old corpus serving,
// and stays broken for the next delta until a change to it fixes it.
func TestReloadChanged(t *testing.T) {
	dir := sampleDir(t)
	settings := contract.Settings{Lang: "en"}
	r := start(t, serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: settings, Settle: testSettle})
	_, digest := expected(t, corpus.Folder(dir), settings, lodging2026)

	writeFile(t, dir, "en/broken.md", "---\nsource_id: broken\nvalid_untill: 2026-01-01\n---\nbody\n")
	st, err := r.srv.ReloadChanged(t.Context(), "test", []string{"en/broken.md"})
	if err == nil || st.Outcome != serve.ReloadFailed || !strings.Contains(st.Error, "broken.md:3:1: unknown key \"valid_untill\"") {
		t.Fatalf("ReloadChanged() with a broken file = %+v, %v; want the failure", st, err)
	}
	if got := r.srv.Snapshot().Digest(); got != digest {
		t.Fatalf("after a failed reload the digest is %s, want the old %s", got, digest)
	}
	// Another change: the broken file, not named again, still fails it.
	writeFile(t, dir, "en/travel-v2.md", travelV2(t, 790))
	if st, err := r.srv.ReloadChanged(t.Context(), "test", []string{"en/travel-v2.md"}); err == nil || st.Outcome != serve.ReloadFailed {
		t.Fatalf("ReloadChanged() while a file is still broken = %+v, %v; want a failure", st, err)
	}
	if err := os.Remove(filepath.Join(dir, "en", "broken.md")); err != nil {
		t.Fatal(err)
	}
	st, err = r.srv.ReloadChanged(t.Context(), "test", []string{"en/broken.md"})
	if err != nil || st.Outcome != serve.ReloadOK {
		t.Fatalf("ReloadChanged() after the fix = %+v, %v", st, err)
	}
	if _, want := expected(t, corpus.Folder(dir), settings, lodging2026); st.Digest != want {
		t.Errorf("ReloadChanged() digest %s, a full load gives %s", st.Digest, want)
	}
	if got := r.post(t, "/v1/contract", lodging2026); !strings.Contains(string(got.body), "790 CNY") {
		t.Errorf("the good change is not served: %s", got.body)
	}
}
