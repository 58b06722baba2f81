package serve_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ka2/ka2/serve"
)

// The tests here move, swap and remove the folders of a watched corpus,
// over a real file system with the system's own file events, and wait,
// reload by reload, for the change to be served (see waitServed): a
// change the watcher never sees fails the test at the guard.

// wantWatching fails the test unless /readyz says the corpus is watched
// whole and the last reload went well.
func (w *watched) wantWatching(t *testing.T) {
	t.Helper()
	ready := readiness(t, w.running)
	if ready.Degraded || ready.Watch == nil || ready.Watch.State != serve.WatchWatching || ready.Watch.Error != "" ||
		ready.LastReload.Outcome == serve.ReloadFailed {
		t.Errorf("readyz = %+v, watch %+v; want watching, not degraded", ready, ready.Watch)
	}
}

// awaitReadiness waits, reload by reload and plan by plan, until /readyz
// meets cond.
func (w *watched) awaitReadiness(t *testing.T, what string, cond func(serve.Readiness) bool) serve.Readiness {
	t.Helper()
	deadline := time.After(guard)
	for {
		if ready := readiness(t, w.running); cond(ready) {
			return ready
		}
		select {
		case <-w.reloaded:
		case <-w.watching:
		case <-deadline:
			ready := readiness(t, w.running)
			t.Fatalf("/readyz never said %s: %+v, watch %+v", what, ready, ready.Watch)
		}
	}
}

// TestWatchFolderSwap: the corpus folder is swapped for another (mv pol
// pol.old; mv new pol); the new folder is served, and so are later edits
// in it, twice over.
func TestWatchFolderSwap(t *testing.T) {
	base := t.TempDir()
	pol := filepath.Join(base, "pol")
	copyTree(t, pol, false, limit("750"))
	w := startWatched(t, pol)
	w.waitServed(t, "750 CNY")

	for i, amount := range []string{"810", "830"} {
		copyTree(t, filepath.Join(base, "new"), false, limit(amount))
		rename(t, pol, filepath.Join(base, "pol.old"+amount))
		rename(t, filepath.Join(base, "new"), pol)
		w.waitServed(t, amount+" CNY")
		writeFile(t, pol, "en/travel-v2.md", travelV2(t, 900+i))
		w.waitServed(t, travelV2Limit(900+i))
		writeFile(t, pol, "en/travel-v2.md", travelV2(t, 950+i))
		w.waitServed(t, travelV2Limit(950+i))
	}
	w.wantWatching(t)
}

// travelV2Limit is what the contract quotes of travelV2(amount).
func travelV2Limit(amount int) string { return strconv.Itoa(amount) + " CNY" }

// TestWatchAfterSIGHUP: the folder above the corpus's is swapped, which no
// file event of the watched folders tells (base/g is not watched, and
// base/g/p, which is, did not move itself). An edit in the new tree is
// served on SIGHUP, and the reload that SIGHUP started leaves the new tree
// watched: the next edits are served without another.
func TestWatchAfterSIGHUP(t *testing.T) {
	base := t.TempDir()
	pol := filepath.Join(base, "g", "p", "pol")
	copyTree(t, pol, false, limit("750"))
	w := startWatched(t, pol, func(c *serve.Config, _ *serve.Hooks) { c.PollInterval = time.Hour })
	w.waitServed(t, "750 CNY")

	copyTree(t, filepath.Join(base, "new", "p", "pol"), false, limit("760"))
	rename(t, filepath.Join(base, "g"), filepath.Join(base, "g.old"))
	rename(t, filepath.Join(base, "new"), filepath.Join(base, "g"))
	writeFile(t, pol, "en/travel-v2.md", travelV2(t, 770))
	if st, err := w.srv.ReloadAll(t.Context(), "sighup"); err != nil || st.Outcome != serve.ReloadOK {
		t.Fatalf("ReloadAll() = %+v, %v", st, err)
	}
	w.waitServed(t, "770 CNY")
	for _, amount := range []int{780, 790} {
		writeFile(t, pol, "en/travel-v2.md", travelV2(t, amount))
		w.waitServed(t, travelV2Limit(amount))
	}
	w.wantWatching(t)
}

// TestWatchPeriodicCheck: the same unseen swap of the folder above, with
// no SIGHUP: the periodic check finds the watched names holding other
// folders, and the edits in the new tree are served.
func TestWatchPeriodicCheck(t *testing.T) {
	base := t.TempDir()
	pol := filepath.Join(base, "g", "p", "pol")
	copyTree(t, pol, false, limit("750"))
	w := startWatched(t, pol, func(c *serve.Config, _ *serve.Hooks) { c.PollInterval = 20 * time.Millisecond })
	w.waitServed(t, "750 CNY")

	copyTree(t, filepath.Join(base, "new", "p", "pol"), false, limit("760"))
	rename(t, filepath.Join(base, "g"), filepath.Join(base, "g.old"))
	rename(t, filepath.Join(base, "new"), filepath.Join(base, "g"))
	w.waitServed(t, "760 CNY")
	writeFile(t, pol, "en/travel-v2.md", travelV2(t, 770))
	w.waitServed(t, "770 CNY")
	w.wantWatching(t)
}

// TestWatchSubfolderRename: a folder of the corpus is renamed, moved into
// another, moved out of the corpus and back; each time the edits under
// its new name are served, and while it is out its sources are not.
func TestWatchSubfolderRename(t *testing.T) {
	base := t.TempDir()
	pol := filepath.Join(base, "pol")
	copyTree(t, pol, false, limit("750"))
	w := startWatched(t, pol)
	w.waitServed(t, "750 CNY")

	// A rename in place: en -> english.
	rename(t, filepath.Join(pol, "en"), filepath.Join(pol, "english"))
	writeFile(t, pol, "english/travel-v2.md", travelV2(t, 760))
	w.waitServed(t, "760 CNY")

	// Into a new folder, two levels down: english -> lang/en/current.
	if err := os.MkdirAll(filepath.Join(pol, "lang", "en"), 0o755); err != nil {
		t.Fatal(err)
	}
	rename(t, filepath.Join(pol, "english"), filepath.Join(pol, "lang", "en", "current"))
	writeFile(t, pol, "lang/en/current/travel-v2.md", travelV2(t, 770))
	w.waitServed(t, "770 CNY")

	// Out of the corpus: the English sources go; back in under another
	// name, and an edit there, are served.
	before := readiness(t, w.running).Corpus.Sources
	rename(t, filepath.Join(pol, "lang"), filepath.Join(base, "lang-out"))
	w.awaitReadiness(t, "fewer sources", func(r serve.Readiness) bool { return r.Corpus.Sources < before })
	rename(t, filepath.Join(base, "lang-out", "en", "current"), filepath.Join(pol, "en"))
	writeFile(t, pol, "en/travel-v2.md", travelV2(t, 780))
	w.waitServed(t, "780 CNY")
	if got := readiness(t, w.running).Corpus.Sources; got != before {
		t.Errorf("%d sources served after the folder came back, want %d", got, before)
	}
	w.wantWatching(t)
}

// TestWatchRemoveRecreate: the corpus folder is removed (rm -rf): the old
// corpus keeps serving, and /readyz says degraded, with the reload's error
// and the watcher's. Once the folder is made again, its corpus is served,
// /readyz is no longer degraded, and later edits are served. Then the
// same for the folder that holds it.
func TestWatchRemoveRecreate(t *testing.T) {
	base := t.TempDir()
	pol := filepath.Join(base, "p", "pol")
	copyTree(t, pol, false, limit("750"))
	w := startWatched(t, pol)
	w.waitServed(t, "750 CNY")

	for i, gone := range []string{pol, filepath.Dir(pol)} {
		if err := os.RemoveAll(gone); err != nil {
			t.Fatal(err)
		}
		ready := w.awaitReadiness(t, "degraded", func(r serve.Readiness) bool {
			return r.Degraded && r.LastReload.Outcome == serve.ReloadFailed && r.Watch != nil && r.Watch.State == serve.WatchPolling
		})
		if !strings.Contains(ready.Watch.Error, "cannot watch the corpus folder") || ready.LastReload.Error == "" {
			t.Errorf("readyz = %+v, watch %+v", ready, ready.Watch)
		}
		if got := w.post(t, "/v1/contract", lodging2026); got.status != 200 {
			t.Errorf("with the folder gone: %d %s", got.status, got.body)
		}

		amount := 860 + 10*i
		copyTree(t, pol, false, limit(strconv.Itoa(amount)))
		w.waitServed(t, travelV2Limit(amount))
		w.awaitReadiness(t, "watching again", func(r serve.Readiness) bool {
			return !r.Degraded && r.Watch != nil && r.Watch.State == serve.WatchWatching
		})
		writeFile(t, pol, "en/travel-v2.md", travelV2(t, amount+5))
		w.waitServed(t, travelV2Limit(amount+5))
	}
	w.wantWatching(t)
}

// TestWatchCannotWatch: the system refuses to watch one folder (its
// watches ran out): /readyz says degraded, polling, and why; an edit in
// that folder is served by the periodic reload; once the folder can be
// watched again, the watcher says so and is no longer degraded.
func TestWatchCannotWatch(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "pol")
	copyTree(t, pol, false, limit("750"))
	var refuse atomic.Bool
	refuse.Store(true)
	w := startWatched(t, pol, func(c *serve.Config, h *serve.Hooks) {
		c.PollInterval = 20 * time.Millisecond
		h.AddWatch = func(path string) error {
			if refuse.Load() && filepath.Base(path) == "en" {
				return syscall.ENOSPC
			}
			return nil
		}
	})
	ready := readiness(t, w.running)
	if !ready.Degraded || ready.Watch == nil || ready.Watch.State != serve.WatchPolling ||
		!strings.Contains(ready.Watch.Error, filepath.Join(pol, "en")) || !strings.Contains(ready.Watch.Error, syscall.ENOSPC.Error()) {
		t.Errorf("readyz = %+v, watch %+v; want degraded, polling, naming the folder and the error", ready, ready.Watch)
	}
	if got := metric(t, w.srv, "ka2_corpus_watch_ok"); got != 0 {
		t.Errorf("ka2_corpus_watch_ok = %v while polling", got)
	}
	writeFile(t, pol, "en/travel-v2.md", travelV2(t, 760))
	w.waitServed(t, "760 CNY")

	refuse.Store(false)
	w.awaitReadiness(t, "watching", func(r serve.Readiness) bool { return !r.Degraded && r.Watch.State == serve.WatchWatching })
	if got := metric(t, w.srv, "ka2_corpus_watch_ok"); got != 1 {
		t.Errorf("ka2_corpus_watch_ok = %v while watching", got)
	}
	writeFile(t, pol, "en/travel-v2.md", travelV2(t, 770))
	w.waitServed(t, "770 CNY")
}
