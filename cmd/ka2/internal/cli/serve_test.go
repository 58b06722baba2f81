package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
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

// startServe runs `ka2 serve --addr 127.0.0.1:0 --log-format json FLAGS`
// in process until the test ends and returns its base URL.
func startServe(t *testing.T, flags ...string) string {
	t.Helper()
	logs := &syncBuffer{}
	f := &cli.Factory{In: strings.NewReader(""), Out: io.Discard, ErrOut: logs, Now: time.Now}
	root := cli.NewCmdRoot(f)
	root.SetArgs(append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json", "--watch=false"}, flags...))
	root.SetOut(io.Discard)
	root.SetErr(logs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ka2 serve: %v\n%s", err, logs)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				return "http://" + line.Addr
			}
		}
		select {
		case err := <-done:
			t.Fatalf("ka2 serve exited: %v\n%s", err, logs)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("ka2 serve did not start:\n%s", logs)
	return ""
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
	for _, hint := range []string{"; the short form fits with total ", `; or set "short": true in the request: `} {
		if i := strings.Index(msg, hint); i >= 0 {
			return msg[:i]
		}
	}
	return msg
}

// TestServeMatchesBuild posts each request to `ka2 serve` and runs `ka2
// build --request` with the same flags: a contract must be the same bytes,
// an error the same kind (bad_input or usage ↔ bad_request), message (but
// for how each words a budget error's fit) and details.
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
				if err := os.WriteFile("request", []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
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
				o.ReloadTimeout != serve.DefaultReloadTimeout || o.Settle != serve.DefaultSettle || o.MaxInFlight != 0 {
				t.Errorf("options = %+v", o)
			}
		}},
		{name: "reload and load flags", args: []string{"--reload-timeout", "30s", "--settle", "0", "--max-in-flight", "3"},
			check: func(t *testing.T, o *cli.ServeOptions) {
				if o.ReloadTimeout != 30*time.Second || o.Settle != 0 || o.MaxInFlight != 3 {
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
			f := &cli.Factory{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard, Now: time.Now}
			var got *cli.ServeOptions
			cmd := cli.NewCmdServe(f, func(o *cli.ServeOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			if err := cmd.Execute(); err != nil {
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
	}
	for _, u := range usage {
		code, _, stderr := runKA2(t, "", u.args...)
		if code != cli.ExitInput || !strings.Contains(stderr, u.want) {
			t.Errorf("ka2 %v: exit %d, stderr %q; want exit 2 naming %s", u.args, code, stderr, u.want)
		}
	}
}
