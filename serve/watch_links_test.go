package serve_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/serve"
)

// watched is a server on a loopback port with Watch running, and the
// notifications the tests wait on instead of sleeping.
type watched struct {
	*running
	reloaded chan serve.ReloadStatus
	watching chan struct{}
}

// startWatched serves the corpus at path and watches it until the test
// ends; it returns once the watches are added. Each of opts may change
// the configuration or set more hooks before the server starts.
func startWatched(t *testing.T, path string, opts ...func(*serve.Config, *serve.Hooks)) *watched {
	t.Helper()
	cfg := serve.Config{Build: contract.Config{Corpus: corpus.Folder(path)}, Settings: contract.Settings{Lang: "en"},
		Debounce: 20 * time.Millisecond, Settle: testSettle}
	w := &watched{reloaded: make(chan serve.ReloadStatus, 64), watching: make(chan struct{}, 64)}
	// The hooks never block the server: a test that reads only some of
	// what they report still reads the latest soon enough.
	hooks := serve.Hooks{
		Reloaded: func(st serve.ReloadStatus) { trySend(w.reloaded, st) },
		Watching: func() { trySend(w.watching, struct{}{}) },
	}
	for _, o := range opts {
		o(&cfg, &hooks)
	}
	srv, err := serve.New(cfg)
	if err != nil {
		t.Fatalf("serve.New() = %v", err)
	}
	serve.SetHooks(srv, hooks)
	w.running = serveOn(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch() = %v", err)
		}
	})
	select {
	case <-w.watching:
	case err := <-done:
		t.Fatalf("Watch() = %v before watching", err)
	case <-t.Context().Done():
		t.Fatal("Watch() did not start")
	}
	return w
}

// trySend sends v on ch unless ch is full.
func trySend[T any](ch chan<- T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// waitServed waits, reload by reload, until the contract for lodging2026
// says want; the test's deadline bounds it.
func (w *watched) waitServed(t *testing.T, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		got := w.post(t, "/v1/contract", lodging2026)
		if strings.Contains(string(got.body), want) {
			return
		}
		select {
		case st := <-w.reloaded:
			t.Logf("reload: %s %s %s", st.Outcome, st.Digest, st.Error)
		case <-ctx.Done():
			t.Fatalf("%q is not served after the change; serving %s", want, got.body)
		}
	}
}

// copyTree copies the sample corpus into dir; flat puts every file at the
// top (en-travel-v2.md), as a ConfigMap holds them.
func copyTree(t *testing.T, dir string, flat bool, edit func(name, data string) string) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(corpus.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(corpus.Sample(), p)
		if err != nil {
			return err
		}
		name := p
		if flat {
			name = strings.ReplaceAll(p, "/", "-")
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		names = append(names, name)
		return os.WriteFile(target, []byte(edit(name, string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// limit sets the en travel-v2 lodging limit to amount.
func limit(amount string) func(name, data string) string {
	return func(name, data string) string {
		if strings.HasSuffix(name, "travel-v2.md") && strings.Contains(name, "en") {
			return strings.Replace(data, "750 CNY", amount+" CNY", 1)
		}
		return data
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestWatchCorpusLink: --corpus is a link to a folder; a change in the
// folder is served.
func TestWatchCorpusLink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "policies")
	copyTree(t, real, false, limit("750"))
	symlink(t, real, filepath.Join(base, "corpus"))
	w := startWatched(t, filepath.Join(base, "corpus"))
	w.waitServed(t, "750 CNY")

	writeFile(t, real, "en/travel-v2.md", travelV2(t, 810))
	w.waitServed(t, "810 CNY")
}

// TestWatchConfigMap: the corpus is a Kubernetes ConfigMap volume: each
// file a link into ..data, ..data a link to a timestamped folder. The
// update is the kubelet's: a new timestamped folder, a ..data_tmp link to
// it renamed over ..data, the old folder removed; then a second update,
// to see the new folder watched.
func TestWatchConfigMap(t *testing.T) {
	vol := t.TempDir()
	ts1 := "..2026_11_30_12_00_00.123"
	names := copyTree(t, filepath.Join(vol, ts1), true, limit("750"))
	symlink(t, ts1, filepath.Join(vol, "..data"))
	for _, n := range names {
		symlink(t, filepath.Join("..data", n), filepath.Join(vol, n))
	}
	w := startWatched(t, vol)
	w.waitServed(t, "750 CNY")

	update := func(ts, amount, old string) {
		copyTree(t, filepath.Join(vol, ts), true, limit(amount))
		symlink(t, ts, filepath.Join(vol, "..data_tmp"))
		rename(t, filepath.Join(vol, "..data_tmp"), filepath.Join(vol, "..data"))
		if err := os.RemoveAll(filepath.Join(vol, old)); err != nil {
			t.Fatal(err)
		}
	}
	update("..2026_11_30_12_05_00.456", "820", ts1)
	w.waitServed(t, "820 CNY")
	update("..2026_11_30_12_10_00.789", "830", "..2026_11_30_12_05_00.456")
	w.waitServed(t, "830 CNY")
}

// TestWatchConfigMapFolders: a ConfigMap volume whose items have paths in
// folders: the top holds folder links (en -> ..data/en), which the loader
// follows. The kubelet's update is served, and so is a change written into
// the timestamped folder itself.
func TestWatchConfigMapFolders(t *testing.T) {
	vol := t.TempDir()
	ts1 := "..2026_11_30_12_00_00.123"
	copyTree(t, filepath.Join(vol, ts1), false, limit("750"))
	symlink(t, ts1, filepath.Join(vol, "..data"))
	for _, n := range []string{"en", "zh", "notice-hostile.md"} {
		symlink(t, filepath.Join("..data", n), filepath.Join(vol, n))
	}
	w := startWatched(t, vol)
	w.waitServed(t, "750 CNY")

	ts2 := "..2026_11_30_12_05_00.456"
	copyTree(t, filepath.Join(vol, ts2), false, limit("820"))
	symlink(t, ts2, filepath.Join(vol, "..data_tmp"))
	rename(t, filepath.Join(vol, "..data_tmp"), filepath.Join(vol, "..data"))
	if err := os.RemoveAll(filepath.Join(vol, ts1)); err != nil {
		t.Fatal(err)
	}
	w.waitServed(t, "820 CNY")

	writeFile(t, filepath.Join(vol, ts2), "en/travel-v2.md", travelV2(t, 860))
	w.waitServed(t, "860 CNY")
}

// TestWatchCurrentSwap: --corpus is current -> v1, and a deploy renames a
// new link current -> v2 over it; then a change inside v2 is served too,
// so v2 is what is watched now.
func TestWatchCurrentSwap(t *testing.T) {
	base := t.TempDir()
	copyTree(t, filepath.Join(base, "v1"), false, limit("750"))
	symlink(t, "v1", filepath.Join(base, "current"))
	w := startWatched(t, filepath.Join(base, "current"))
	w.waitServed(t, "750 CNY")

	copyTree(t, filepath.Join(base, "v2"), false, limit("840"))
	symlink(t, "v2", filepath.Join(base, "current.tmp"))
	rename(t, filepath.Join(base, "current.tmp"), filepath.Join(base, "current"))
	w.waitServed(t, "840 CNY")

	writeFile(t, filepath.Join(base, "v2"), "en/travel-v2.md", travelV2(t, 850))
	w.waitServed(t, "850 CNY")
}
