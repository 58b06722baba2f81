package serve_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/serve"
)

// running is a server answering on a free loopback port.
type running struct {
	srv    *serve.Server
	url    string
	client *http.Client
	stop   context.CancelFunc
	done   chan error // Serve's result
}

// start makes a server from cfg and serves it on 127.0.0.1 on a free
// port until the test ends.
func start(t testing.TB, cfg serve.Config) *running {
	t.Helper()
	srv, err := serve.New(cfg)
	if err != nil {
		t.Fatalf("serve.New() = %v", err)
	}
	return serveOn(t, srv)
}

func serveOn(t testing.TB, srv *serve.Server) *running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{srv: srv, url: "http://" + ln.Addr().String(), stop: cancel, done: make(chan error, 1),
		client: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	go func() { r.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		// Idle client connections first: the server counts a connection
		// that never sent a request as busy for five seconds, and the
		// transport may have dialed one that lost the race to a reused one.
		r.client.CloseIdleConnections()
		cancel()
		select {
		case err := <-r.done:
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("Serve() = %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve() did not return after the context was cancelled")
		}
	})
	return r
}

// response is one answer, read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *running) do(t testing.TB, method, path, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, r.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	checkDocumented(t, method, path, resp.StatusCode, resp.Header, data)
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

func (r *running) post(t testing.TB, path, body string) response {
	t.Helper()
	return r.do(t, http.MethodPost, path, body)
}

func (r *running) get(t testing.TB, path string) response {
	t.Helper()
	return r.do(t, http.MethodGet, path, "")
}

// errorBody decodes an error response. Every error body a test reads
// is also checked to name no CLI flag: a client cannot pass one, so a
// message that says "--capacity" or "--lang" gives it advice it cannot
// follow (the service words hints as query parameters and request fields).
func errorBody(t testing.TB, data []byte) errkind.Detail {
	t.Helper()
	e, err := errkind.ParseBody(data)
	if err != nil {
		t.Fatalf("error body %q: %v", data, err)
	}
	if cliFlag.MatchString(e.Error.Message) {
		t.Errorf("the %s message names a CLI flag: %s", e.Error.Kind, e.Error.Message)
	}
	return e.Error
}

// cliFlag matches a CLI flag such as --capacity.
var cliFlag = regexp.MustCompile(`(^|[^-\w])--[a-z]`)

// sampleDir copies the embedded sample corpus into a new folder.
func sampleDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	testutil.CopyFS(t, corpus.Sample(), dir)
	return dir
}

// writeFile writes data to dir/name atomically (a rename), as editors
// and deploy tools do, so a reload never reads half a file.
func writeFile(t testing.TB, dir, name, data string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// expected builds the contract bytes for a request in process, from the
// corpus src, as `ka2 build --request` would print them.
func expected(t testing.TB, src corpus.Location, settings contract.Settings, body string) ([]byte, string) {
	t.Helper()
	b, err := contract.Config{Corpus: src}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	rf, err := contract.ParseRequestFile("request", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req, err := settings.Apply(rf).Request(rf)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), req)
	if err != nil {
		t.Fatalf("Build() = %v", err)
	}
	var buf bytes.Buffer
	res.WriteTo(&buf)
	return buf.Bytes(), b.Index.Corpus().Digest
}

// guard bounds a wait for an event that is due: past it the test fails
// rather than hangs. It is not a wait; nothing sleeps for it to pass.
const guard = 30 * time.Second

// awaitReload receives reload statuses (see Hooks.Reloaded) until cond
// holds after one of them.
func awaitReload(t testing.TB, statuses <-chan serve.ReloadStatus, what string, cond func(serve.ReloadStatus) bool) {
	t.Helper()
	for {
		select {
		case st := <-statuses:
			if cond(st) {
				return
			}
		case <-time.After(guard):
			t.Fatalf("no reload brought %s", what)
		}
	}
}

// await receives from ch, or fails the test once guard passes.
func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("waited in vain for %s", what)
		panic("unreachable")
	}
}

// closeNotifier is a listener that says when it is closed, as the HTTP
// server's Shutdown does first.
type closeNotifier struct {
	net.Listener
	once   sync.Once
	closed chan struct{}
}

func (l *closeNotifier) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// sample builds from the embedded sample corpus, named explicitly: a
// Config that names no corpus is an error.
var sample = contract.Config{Corpus: corpus.Embedded()}
