package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/serve"
)

// metric returns the value of the gauge or counter name (without labels)
// in the server's registry.
func metric(t testing.TB, srv *serve.Server, name string) float64 {
	t.Helper()
	mfs, err := srv.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		m := mf.GetMetric()[0]
		if g := m.GetGauge(); g != nil {
			return g.GetValue()
		}
		return m.GetCounter().GetValue()
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// readyzOf answers GET /readyz in process.
func readyzOf(t testing.TB, srv *serve.Server) serve.Readiness {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var ready serve.Readiness
	if err := json.Unmarshal(rec.Body.Bytes(), &ready); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("readyz: %d %s (%v)", rec.Code, rec.Body, err)
	}
	return ready
}

// TestReloadDeadline: a reload whose load blocks for good (as reading a
// FIFO does) is abandoned at the deadline and reported in its status,
// /readyz, the log-facing error and the metrics, while the old corpus
// serves; a reload started behind it goes ahead once the deadline passes,
// and the abandoned load's late result is never swapped in.
func TestReloadDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := sampleDir(t)
		const timeout = time.Minute
		srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: contract.Settings{Lang: "en"},
			ReloadTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		late := make(chan uint64, 1)
		serve.SetHooks(srv, serve.Hooks{
			BeforeLoad: func(_ context.Context, attempt uint64) {
				if attempt == 1 || attempt == 3 {
					<-release // blocked, deaf to the context, as a read of a FIFO is
				}
			},
			LateResult: func(attempt uint64) { late <- attempt },
		})
		start := srv.Snapshot()

		writeFile(t, dir, "en/travel-v2.md", travelV2(t, 800))
		stuck := make(chan serve.ReloadStatus, 1)
		t0 := time.Now()
		go func() {
			st, _ := srv.Reload(t.Context(), "stuck")
			stuck <- st
		}()
		synctest.Wait() // the first reload is blocked in its load

		// A reload started behind the stuck one goes ahead at its deadline.
		st, err := srv.Reload(t.Context(), "next")
		if err != nil || st.Outcome != serve.ReloadOK || st.Attempt != 2 {
			t.Fatalf("Reload() behind a stuck one = %+v, %v; want ok, attempt 2", st, err)
		}
		// Time in the bubble is synctest's fake clock, which moves only
		// when every goroutine waits: the wait is exact, the stuck
		// reload's deadline and then the settle of the files the second
		// reads, not a bound on how fast this machine is.
		if waited, want := time.Since(t0), timeout+serve.DefaultSettle; waited != want {
			t.Errorf("the second reload waited %s behind the stuck one, want %s: its deadline %s, then the settle %s", waited, want, timeout, serve.DefaultSettle)
		}
		first := <-stuck
		if first.Outcome != serve.ReloadTimedOut || first.Attempt != 1 || !strings.Contains(first.Error, "did not finish within 1m0s") {
			t.Errorf("the stuck reload's status = %+v; want timeout", first)
		}
		served := srv.Snapshot()
		if served.Generation != start.Generation+1 {
			t.Fatalf("generation %d, want %d", served.Generation, start.Generation+1)
		}
		if got := metric(t, srv, "ka2_corpus_abandoned_loads"); got != 1 {
			t.Errorf("ka2_corpus_abandoned_loads = %v, want 1", got)
		}

		// Another stuck reload: reported everywhere, old corpus serving.
		st, err = srv.Reload(t.Context(), "test")
		if !errors.Is(err, serve.ErrReloadTimeout) || st.Outcome != serve.ReloadTimedOut {
			t.Fatalf("Reload() stuck = %+v, %v; want ErrReloadTimeout", st, err)
		}
		ready := readyzOf(t, srv)
		if !ready.Ready || !ready.Degraded || ready.LastReload.Outcome != serve.ReloadTimedOut || ready.LastReload.Error == "" ||
			!ready.LastReload.At.Equal(st.At) || ready.Corpus.Digest != served.Digest() {
			t.Errorf("readyz after a stuck reload = %+v", ready)
		}
		if got := metric(t, srv, "ka2_corpus_last_reload_ok"); got != 0 {
			t.Errorf("ka2_corpus_last_reload_ok = %v after a stuck reload, want 0", got)
		}
		if n := reloads(t, srv, serve.ReloadTimedOut); n != 2 {
			t.Errorf("reloads{outcome=timeout} = %d, want 2", n)
		}

		// The stuck loads end, now reading a corpus no reload took: their
		// results are dropped.
		writeFile(t, dir, "en/travel-v2.md", travelV2(t, 900))
		close(release)
		for range 2 {
			<-late
		}
		synctest.Wait()
		if got := srv.Snapshot(); got != served {
			t.Errorf("a late result was swapped in: generation %d, digest %s", got.Generation, got.Digest())
		}
		if got := metric(t, srv, "ka2_corpus_abandoned_loads"); got != 0 {
			t.Errorf("ka2_corpus_abandoned_loads = %v once they ended, want 0", got)
		}
		st, err = srv.Reload(t.Context(), "test")
		if err != nil || st.Outcome != serve.ReloadOK {
			t.Fatalf("Reload() after the stuck ones = %+v, %v", st, err)
		}
		if ready := readyzOf(t, srv); ready.Degraded {
			t.Errorf("readyz after a good reload = %+v, want not degraded", ready)
		}
	})
}

// TestSettle writes a policy in two pieces with a pause between them, as
// a slow copy does: a reload started after the first piece takes the file
// only once it stopped changing, never the half.
func TestSettle(t *testing.T) {
	for _, delta := range []bool{false, true} {
		name := "walk"
		if delta {
			name = "changed paths"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := sampleDir(t)
				srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: contract.Settings{Lang: "en"}})
				if err != nil {
					t.Fatal(err)
				}
				full := travelV2(t, 750)
				cut := strings.Index(full, "750 CNY") + 1 // "…The lodging limit is 7"
				p := filepath.Join(dir, "en", "travel-v2.md")
				if err := os.WriteFile(p, []byte(full[:cut]), 0o644); err != nil {
					t.Fatal(err)
				}
				go func() {
					time.Sleep(1200 * time.Millisecond) // the writer's pause, on the bubble's clock
					f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Error(err)
						return
					}
					f.WriteString(full[cut:])
					f.Close()
				}()
				var st serve.ReloadStatus
				if delta {
					st, err = srv.ReloadChanged(t.Context(), "test", []string{"en/travel-v2.md"})
				} else {
					st, err = srv.ReloadAll(t.Context(), "test")
				}
				if err != nil {
					t.Fatalf("reload = %+v, %v", st, err)
				}
				got := answer(t, srv, lodging2026)
				if !strings.Contains(got, "The lodging limit is 750 CNY per room-night.") {
					t.Errorf("served the half-written file:\n%s", got)
				}
			})
		})
	}
}

// TestSettleRecheck: a file that changes while the reload reads it is
// caught by the check right before the swap, and the reload waits and
// reads it again.
func TestSettleRecheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := sampleDir(t)
		srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: contract.Settings{Lang: "en"}})
		if err != nil {
			t.Fatal(err)
		}
		var loads atomic.Int32
		serve.SetHooks(srv, serve.Hooks{AfterLoad: func(uint64) {
			if loads.Add(1) == 1 {
				writeFile(t, dir, "en/travel-v2.md", travelV2(t, 820)) // after the read, before the swap
			}
		}})
		writeFile(t, dir, "en/travel-v2.md", travelV2(t, 810))
		st, err := srv.ReloadChanged(t.Context(), "test", []string{"en/travel-v2.md"})
		if err != nil || st.Outcome != serve.ReloadOK {
			t.Fatalf("ReloadChanged() = %+v, %v", st, err)
		}
		if n := loads.Load(); n != 2 {
			t.Errorf("%d loads, want 2: the change during the first should make it read again", n)
		}
		if got := answer(t, srv, lodging2026); !strings.Contains(got, "820 CNY") {
			t.Errorf("served a file that changed before the swap:\n%s", got)
		}
	})
}

// TestSettleNeverSettles: a file that never stops changing ends the
// reload at its deadline, naming the file.
func TestSettleNeverSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := sampleDir(t)
		srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: contract.Settings{Lang: "en"},
			ReloadTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(t.Context())
		p := filepath.Join(dir, "en", "growing.md")
		writing := make(chan struct{})
		go func() {
			defer close(writing)
			body := "---\nsource_id: growing\nversion: v1\nsubjects: [notes]\nvalid_from: 2026-01-01\n---\n"
			for ctx.Err() == nil {
				body += "more\n"
				os.WriteFile(p, []byte(body), 0o644)
				time.Sleep(time.Second)
			}
		}()
		st, err := srv.Reload(t.Context(), "test")
		if !errors.Is(err, serve.ErrReloadTimeout) || !strings.Contains(st.Error, "files still changing: en/growing.md") {
			t.Errorf("Reload() = %+v, %v; want a timeout naming en/growing.md", st, err)
		}
		stop()
		<-writing
	})
}

// answer posts body to /v1/contract in process and returns the answer.
func answer(t testing.TB, srv *serve.Server, body string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/contract", strings.NewReader(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /v1/contract: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}
