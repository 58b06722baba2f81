package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/serve"
)

// syncBuffer is a buffer safe for the server's log writes and the test's
// reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startServe runs `ka2 serve --log-format json --watch=false FLAGS` in
// process until the test ends, on a listener the test opened, and returns
// its base URL: requests made before the server is up wait in the
// listener's queue, so there is nothing to wait for.
func startServe(t *testing.T, flags ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	f, _, _ := cli.TestFactory("")
	f.ErrOut = logs
	f.Listen = func(string) (net.Listener, error) { return ln, nil }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		code := cli.Run(ctx, f, append([]string{"serve", "--log-format", "json", "--watch=false"}, flags...))
		ln.Close() // a server that failed to start refuses the requests waiting
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("ka2 serve: exit %d\n%s", code, logs)
		}
	})
	return "http://" + ln.Addr().String()
}

// eventListener is a listener whose connections report, on waiting, when
// the server first reads past the first sent bytes of the request: it is
// then in the handler, reading a body not yet sent. It reports its closing
// (the drain's start) on closed. Tests wait for these instead of sleeping.
type eventListener struct {
	net.Listener
	sent    int
	waiting chan struct{}
	once    sync.Once
	closed  chan struct{}
}

func (l *eventListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &eventConn{Conn: c, sent: l.sent, waiting: l.waiting}, nil
}

func (l *eventListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// eventConn counts the bytes the server read; its reads come one at a
// time from the connection's goroutine.
type eventConn struct {
	net.Conn
	sent, got int
	waiting   chan<- struct{}
	reported  bool
}

func (c *eventConn) Read(p []byte) (int, error) {
	if c.got >= c.sent && !c.reported {
		c.reported = true
		c.waiting <- struct{}{}
	}
	n, err := c.Conn.Read(p)
	c.got += n
	return n, err
}

// TestServeDrainsOnInterrupt: when the command's context ends (Main cancels
// it on SIGTERM or SIGINT), serve stops accepting, answers the requests in
// flight in full and exits 0.
func TestServeDrainsOnInterrupt(t *testing.T) {
	const request = `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`
	half := len(request) / 2
	first := fmt.Sprintf("POST /v1/contract HTTP/1.1\r\nHost: ka2\r\nContent-Length: %d\r\n\r\n%s", len(request), request[:half])
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &eventListener{Listener: inner, sent: len(first), waiting: make(chan struct{}, 2), closed: make(chan struct{})}
	f, _, _ := cli.TestFactory("")
	logs := &syncBuffer{}
	f.ErrOut = logs
	f.Listen = func(string) (net.Listener, error) { return ln, nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- cli.Run(ctx, f, []string{"serve", "--watch=false", "--drain-timeout", "1m"}) }()

	var conns []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, first)
		conns = append(conns, c)
	}
	for range 2 {
		<-ln.waiting // both handlers wait for the rest of their bodies
	}
	cancel()
	<-ln.closed // the drain has begun: no new connections
	for i, c := range conns {
		if _, err := io.WriteString(c, request[half:]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("request %d in flight: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"source_id":"travel-v2"`) {
			t.Errorf("request %d in flight: %d %s", i, resp.StatusCode, body)
		}
	}
	if code := <-done; code != 0 {
		t.Errorf("exit %d after the interrupt, want 0\n%s", code, logs)
	}
}

// TestServeHangup changes the corpus and sends a reload request through
// the factory's hangup channel (SIGHUP in Main): the change is served,
// /readyz names the trigger, and the channel is released at exit.
func TestServeHangup(t *testing.T) {
	dir := t.TempDir()
	policy := func(amount int) string {
		return fmt.Sprintf("---\nsource_id: travel-v2\nversion: v2\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\n---\nThe lodging limit is %d CNY per room-night.\n", amount)
	}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(750))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hup := make(chan os.Signal) // unbuffered: see below
	stopped := make(chan struct{})
	f, _, _ := cli.TestFactory("")
	f.ErrOut = io.Discard
	f.Listen = func(string) (net.Listener, error) { return ln, nil }
	f.Hangup = func() (<-chan os.Signal, func()) { return hup, func() { close(stopped) } }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, f, []string{"serve", "--corpus", dir, "--watch=false", "--settle", "0"})
	}()
	url := "http://" + ln.Addr().String()
	post := func() string {
		const request = `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`
		return testutil.Post(t, url+"/v1/contract", request).Body
	}
	if got := post(); !strings.Contains(got, "750 CNY") {
		t.Fatalf("before: %s", got)
	}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(780))
	// serve takes the next request only after its reload of the first has
	// finished, so once the second send is taken the change is served.
	hup <- syscall.SIGHUP
	hup <- syscall.SIGHUP
	if got := post(); !strings.Contains(got, "780 CNY") {
		t.Fatalf("after the reload request: %s", got)
	}
	// One new corpus, from a reload request; the second request finds the
	// corpus unchanged, before or after this look.
	if body := testutil.Get(t, url+"/readyz").Body; !strings.Contains(body, `"generation":2,`) || !strings.Contains(body, `"trigger":"sighup"`) {
		t.Errorf("readyz = %s", body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	<-stopped // the hangup channel was released
}

// TestServeQueueFlags runs `ka2 serve` with the admission flags and reads
// the bounds the server took from its metrics: --queue-wait 0 turns the
// queue off, whatever --max-queue says.
func TestServeQueueFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"defaults", nil, []string{"ka2_http_requests_queued_max 1024", "ka2_http_request_queue_wait_bound_seconds 1"}},
		{"set", []string{"--max-in-flight", "3", "--max-queue", "7", "--queue-wait", "250ms"},
			[]string{"ka2_http_requests_in_flight_max 3", "ka2_http_requests_queued_max 7", "ka2_http_request_queue_wait_bound_seconds 0.25"}},
		{"no queue", []string{"--queue-wait", "0", "--max-queue", "7"},
			[]string{"ka2_http_requests_queued_max 0", "ka2_http_request_queue_wait_bound_seconds 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			f, _, stderr := cli.TestFactory("")
			f.Listen = func(string) (net.Listener, error) { return ln, nil }
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan int, 1)
			go func() {
				code := cli.Run(ctx, f, append([]string{"serve", "--watch=false"}, tt.args...))
				ln.Close() // a Get waiting on a run that ended fails
				done <- code
			}()
			resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
			if err != nil {
				t.Fatalf("GET /metrics: %v; serve: %s", err, stderr)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body := string(data)
			for _, want := range tt.want {
				if !strings.Contains(body, want+"\n") {
					t.Errorf("/metrics lacks %q", want)
				}
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("exit %d, want 0", code)
			}
		})
	}
}

// cliError is `ka2 --error-format json`'s stderr.
type cliError struct {
	Error struct {
		Kind    string          `json:"kind"`
		Message string          `json:"message"`
		Budget  json.RawMessage `json:"budget"`
		Fit     json.RawMessage `json:"fit"`
		Context json.RawMessage `json:"context"`
	} `json:"error"`
}

// withoutFit drops the wording of a budget error's fit, which each front
// end words for its user: the library's words on the CLI's JSON, the
// request field over HTTP. The fit itself is data, compared apart.
func withoutFit(msg string) string {
	// The service names the settings a hint asks to change as request
	// fields ("capacity"), the library's words as settings.
	msg = settingWords.Replace(msg)
	for _, hint := range []string{"; the short form fits with total ", `; or set "short": true in the request: `} {
		if i := strings.Index(msg, hint); i >= 0 {
			return msg[:i]
		}
	}
	return msg
}

var settingWords = strings.NewReplacer(`raise "capacity"`, "raise the capacity setting", `lower "reserve"`, "lower the reserve setting")

// TestServeMatchesBuild posts each request to `ka2 serve` and runs `ka2
// build --request` with the same flags: a contract must be the same bytes,
// an error the same kind (bad_input or usage ↔ bad_request), message (but
// for how each words a budget error's fit and the settings its hint names)
// and details.
func TestServeMatchesBuild(t *testing.T) {
	requests := map[string]string{
		"current":    `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`,
		"boundary":   `{"subject":"lodging","dates":["2026-01-01"],"question":"q","short":true}`,
		"comparison": `{"subject":"lodging","dates":["2025-09-14","2026-09-14"],"question":"How did the Beijing lodging limit change between 2025 and 2026?"}`,
		"zh":         `{"subject":"lodging","dates":["2026-09-14"],"question":"住宿标准是多少？","lang":"zh"}`,
		"rail":       `{"subjects":["rail","lodging"],"dates":["2026-09-14"],"question":"q"}`,
		"none":       `{"subject":"lodging","dates":["2024-06-01"],"question":"q"}`,
		"required":   `{"subject":"lodging","dates":["2024-06-01"],"question":"q","require_evidence":true}`,
		"hostile":    `{"subject":"lodging-notice","dates":["2026-09-14"],"question":"q"}`,
		"typed": `{"subject":"lodging","dates":["2026-09-14"],"question":"Is A-104 within the limit?","short":true,
 "items":[{"type":"memory","source":"memory:prefs","text":"Prefers hotels near the client office."},
  {"type":"tool_output","source":"tool:order_lookup","text":"Order A-104: 720 CNY per room-night, confirmed."}],
 "promote":[{"item":1,"to":"evidence"}]}`,
		// The operator may add an instruction; a remote caller may not.
		"operator instruction": `{"subject":"lodging","dates":["2026-09-14"],"question":"Is A-104 within the limit?","short":true,
 "items":[{"type":"instruction","source":"system","text":"Say whether the order is within the limit."}]}`,
		"refused":         `{"subject":"lodging","dates":["2026-09-14"],"question":"q","items":[{"type":"tool_output","source":"tool:order_lookup","text":"Status: failed."}],"promote":[{"item":0,"to":"evidence"}]}`,
		"unknown key":     "{\n \"subject\": \"lodging\",\n \"datez\": []\n}",
		"bad date":        `{"subject":"lodging","dates":["2026-02-30"],"question":"q"}`,
		"no question":     `{"subject":"lodging","dates":["2026-09-14"]}`,
		"unknown subject": `{"subject":"lodgin","dates":["2026-09-14"],"question":"q"}`,
	}
	flagSets := [][]string{
		nil,
		{"--short", "--lang", "zh"},
		{"--counter", "o200k_base"},
		{"--capacity", "1000", "--require-evidence"},
	}
	t.Chdir(t.TempDir())
	for _, flags := range flagSets {
		url := startServe(t, flags...)
		for name, body := range requests {
			t.Run(strings.Join(append([]string{name}, flags...), " "), func(t *testing.T) {
				testutil.WriteFile(t, "request", body)
				args := append([]string{"--error-format", "json", "build", "--request", "request"}, flags...)
				code, stdout, stderr := runKA2(t, "", args...)
				resp, err := http.Post(url+"/v1/contract", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if name == "operator instruction" {
					var se cliError
					if err := json.Unmarshal(got, &se); err != nil || resp.StatusCode != http.StatusUnprocessableEntity ||
						se.Error.Kind != "context_type" || !strings.Contains(string(se.Error.Context), `"code":"remote_not_allowed"`) {
						t.Errorf("ka2 serve answered %d %s; want 422 context_type remote_not_allowed", resp.StatusCode, got)
					}
					if strings.Contains(stderr, "context_type") || (code != 0 && code != 3) {
						t.Errorf("ka2 build --request: exit %d, stderr %s; want the operator's instruction built", code, stderr)
					}
					return
				}
				if code == 0 {
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("ka2 build printed a contract, ka2 serve answered %d %s", resp.StatusCode, got)
					}
					if diff := cmp.Diff(stdout, string(got)); diff != "" {
						t.Errorf("serve and build differ (-build +serve):\n%s", diff)
					}
					return
				}
				var ce cliError
				if err := json.Unmarshal([]byte(stderr), &ce); err != nil {
					t.Fatalf("ka2 build stderr: %v\n%s", err, stderr)
				}
				var se cliError
				if err := json.Unmarshal(got, &se); err != nil {
					t.Fatalf("ka2 serve answered %d %s: %v", resp.StatusCode, got, err)
				}
				wantKind := ce.Error.Kind
				if wantKind == "bad_input" || wantKind == "usage" {
					wantKind = "bad_request"
				}
				wantStatus := map[string]int{"bad_request": 400, "budget_exceeded": 422, "no_evidence": 422, "context_type": 422}[wantKind]
				if se.Error.Kind != wantKind || resp.StatusCode != wantStatus {
					t.Errorf("ka2 build: exit %d kind %s; ka2 serve: %d kind %s", code, ce.Error.Kind, resp.StatusCode, se.Error.Kind)
				}
				if !jsonEqual(ce.Error.Fit, se.Error.Fit) {
					t.Errorf("fits differ:\nbuild: %s\nserve: %s", ce.Error.Fit, se.Error.Fit)
				}
				if ce.Error.Kind != "usage" && withoutFit(se.Error.Message) != withoutFit(ce.Error.Message) {
					t.Errorf("messages differ:\nbuild: %s\nserve: %s", ce.Error.Message, se.Error.Message)
				}
				if string(ce.Error.Budget) != "" || string(se.Error.Budget) != "" {
					if !jsonEqual(ce.Error.Budget, se.Error.Budget) {
						t.Errorf("budget details differ:\nbuild: %s\nserve: %s", ce.Error.Budget, se.Error.Budget)
					}
				}
				if !jsonEqual(ce.Error.Context, se.Error.Context) {
					t.Errorf("refusal details differ:\nbuild: %s\nserve: %s", ce.Error.Context, se.Error.Context)
				}
			})
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

// TestServeFlags checks the options `ka2 serve` passes on, and its usage
// errors.
func TestServeFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		check    func(t *testing.T, o *cli.ServeOptions)
	}{
		{name: "defaults", args: nil, check: func(t *testing.T, o *cli.ServeOptions) {
			if o.Addr != "127.0.0.1:8080" || o.Lang != "en" || !o.Watch || o.Debounce != serve.DefaultDebounce || o.DrainTimeout != serve.DefaultDrainTimeout || o.RequestTimeout != serve.DefaultRequestTimeout || o.LogFormat != "text" ||
				o.ReloadTimeout != serve.DefaultReloadTimeout || o.Settle != serve.DefaultSettle || o.MaxInFlight != 0 ||
				o.QueueWait != serve.DefaultQueueWait || o.MaxQueue != serve.DefaultMaxQueue || o.PollInterval != serve.DefaultPollInterval ||
				o.DecisionLog != "" || o.DecisionLogRequests != serve.DecisionRequestFull || o.DecisionLogBuffer != serve.DefaultDecisionBuffer {
				t.Errorf("options = %+v", o)
			}
		}},
		{name: "reload and load flags", args: []string{"--reload-timeout", "30s", "--settle", "0", "--max-in-flight", "3", "--queue-wait", "250ms", "--max-queue", "10", "--poll-interval", "1m"},
			check: func(t *testing.T, o *cli.ServeOptions) {
				if o.ReloadTimeout != 30*time.Second || o.Settle != 0 || o.MaxInFlight != 3 || o.QueueWait != 250*time.Millisecond || o.MaxQueue != 10 ||
					o.PollInterval != time.Minute {
					t.Errorf("options = %+v", o)
				}
			}},
		{name: "decision log", args: []string{"--decision-log", "d.log", "--decision-log-requests", "digest", "--decision-log-buffer", "8"},
			check: func(t *testing.T, o *cli.ServeOptions) {
				if o.DecisionLog != "d.log" || o.DecisionLogRequests != serve.DecisionRequestDigest || o.DecisionLogBuffer != 8 {
					t.Errorf("options = %+v", o)
				}
			}},
		{name: "flags", args: []string{"--addr", "127.0.0.1:9", "--lang", "zh", "--short", "--watch=false", "--debounce", "1s", "--drain-timeout", "3s", "--request-timeout", "2s", "--log-format", "json"},
			check: func(t *testing.T, o *cli.ServeOptions) {
				if o.Addr != "127.0.0.1:9" || o.Lang != "zh" || !o.Short || o.Watch || o.Debounce != time.Second || o.DrainTimeout != 3*time.Second || o.RequestTimeout != 2*time.Second || o.LogFormat != "json" {
					t.Errorf("options = %+v", o)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(cli.NewCmdServe, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
		})
	}
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--log-format", "xml"}, "--log-format"},
		{[]string{"serve", "--counter", "nope"}, "--counter"},
		{[]string{"serve", "--request-timeout", "0s"}, "--request-timeout"},
		{[]string{"serve", "--request-timeout", "-1s"}, "--request-timeout"},
		{[]string{"serve", "--request-timeout", "1h"}, "--request-timeout"},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "--addr"},
		{[]string{"serve", "--corpus", "no-such-folder"}, "open corpus"},
		{[]string{"serve", "--reload-timeout", "0s"}, "--reload-timeout"},
		{[]string{"serve", "--settle", "-1s"}, "--settle"},
		{[]string{"serve", "--settle", "3m"}, "shorter than --reload-timeout"},
		{[]string{"serve", "--max-in-flight", "-1"}, "--max-in-flight -1: use 1 to"},
		{[]string{"serve", "--max-in-flight", "99999999"}, "--max-in-flight"},
		{[]string{"serve", "--max-queue", "0"}, "--max-queue 0: use 1 to"},
		{[]string{"serve", "--poll-interval", "0s"}, "--poll-interval must be positive"},
		{[]string{"serve", "--queue-wait", "-1s"}, "--queue-wait -1s: use 0"},
		{[]string{"serve", "--queue-wait", "10s"}, "--queue-wait 10s: use 0"},
		{[]string{"serve", "--request-timeout", "30s"}, "--request-timeout 30s and --queue-wait 1s add up"},
		{[]string{"serve", "--request-timeout", "25s", "--queue-wait", "6s"}, "add up to more than the write timeout"},
		{[]string{"serve", "--decision-log-buffer", "0"}, "--decision-log-buffer 0: use 1 to"},
		{[]string{"serve", "--decision-log-requests", "some"}, "--decision-log-requests"},
		{[]string{"serve", "--decision-log", filepath.Join(t.TempDir(), "no-such-folder", "d.log")}, "--decision-log"},
		{[]string{"audit", "d.log", "--corpus", "policies", "--revision", "HEAD", "--each-revision"}, "give one"},
		{[]string{"audit", "d.log", "--each-revision"}, "name the folder with --corpus"},
		{[]string{"audit", "d.log", "--corpus", "policies", "--revision", "--all"}, "cannot start with '-'"},
		{[]string{"audit", "no-such.log"}, "read decision log"},
	}
	for _, u := range usage {
		code, _, stderr := runKA2(t, "", u.args...)
		if code != cli.ExitInput || !strings.Contains(stderr, u.want) {
			t.Errorf("ka2 %v: exit %d, stderr %q; want exit 2 naming %s", u.args, code, stderr, u.want)
		}
	}
}
