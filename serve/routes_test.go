package serve_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ka2/ka2/serve"
)

// endpoints are the server's routes with the preview page on, each with
// its one method, as a client reads them in the OpenAPI document.
var endpoints = []struct{ method, path string }{
	{"POST", "/v1/contract"}, {"GET", "/v1/select"}, {"GET", "/v1/show"}, {"POST", "/v1/verify"},
	{"POST", "/v1/grade"}, {"POST", "/v1/render"}, {"GET", "/openapi.json"}, {"GET", "/healthz"},
	{"GET", "/readyz"}, {"GET", "/metrics"}, {"GET", "/v1/timeline"},
	{"GET", "/"}, {"GET", "/ui/app.css"}, {"GET", "/ui/app.js"},
}

// TestEveryRouteRefusesOtherMethods: each route answers its method (a GET
// route HEAD too) and refuses every other with ka2's 405 body, its Allow
// header naming what it answers, and the route's metric label.
func TestEveryRouteRefusesOtherMethods(t *testing.T) {
	r := start(t, serve.Config{Build: sample, Settings: en, UI: true})
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	refused := 0
	for _, ep := range endpoints {
		allow := "POST"
		if ep.method == "GET" {
			allow = "GET, HEAD"
		}
		for _, m := range methods {
			got := r.do(t, m, ep.path, "")
			if strings.Contains(allow, m) {
				if got.status == http.StatusMethodNotAllowed || got.status == http.StatusNotFound {
					t.Errorf("%s %s: %d %s; the route answers %s", m, ep.path, got.status, got.body, allow)
				}
				continue
			}
			refused++
			if got.status != http.StatusMethodNotAllowed || got.header.Get("Allow") != allow {
				t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q", m, ep.path, got.status, got.header.Get("Allow"), allow)
				continue
			}
			if got.header.Get(serve.DigestHeader) == "" {
				t.Errorf("%s %s: 405 without %s", m, ep.path, serve.DigestHeader)
			}
			if m == "HEAD" {
				continue // no body
			}
			e := errorBody(t, got.body)
			want := m + " " + ep.path + ": use " + strings.ReplaceAll(allow, ", ", " or ")
			if e.Kind != "method_not_allowed" || e.Message != want {
				t.Errorf("%s %s: error %+v, want method_not_allowed %q", m, ep.path, e, want)
			}
		}
	}
	// Each refusal is counted under its route, none under "other".
	m := string(r.get(t, "/metrics").body)
	if !strings.Contains(m, `ka2_http_requests_total{code="405",route="contract"} 6`) ||
		!strings.Contains(m, `ka2_http_requests_total{code="405",route="select"} 5`) ||
		strings.Contains(m, `code="405",route="other"`) {
		t.Errorf("the 405s of %d refusals are not counted by route:\n%s", refused, grepLines(m, `code="405"`))
	}
}

// TestUnknownPath: a path no route takes is a 404 in ka2's body, which
// lists every endpoint, whatever the method.
func TestUnknownPath(t *testing.T) {
	r := start(t, serve.Config{Build: sample, Settings: en, UI: true})
	for _, tt := range []struct{ method, path string }{
		{"GET", "/v2/contract"}, {"POST", "/v1"}, {"DELETE", "/v1/"}, {"GET", "/ui/"}, {"GET", "/index.html"},
		{"POST", "/v1/contractx"}, {"GET", "/V1/select"},
	} {
		got := r.do(t, tt.method, tt.path, "")
		if got.status != http.StatusNotFound || got.header.Get("Allow") != "" {
			t.Errorf("%s %s: %d, Allow %q; want 404 and no Allow", tt.method, tt.path, got.status, got.header.Get("Allow"))
			continue
		}
		e := errorBody(t, got.body)
		if e.Kind != "not_found" || !strings.HasPrefix(e.Message, "no endpoint "+tt.path+"; the endpoints are ") {
			t.Errorf("%s %s: error %+v", tt.method, tt.path, e)
		}
		for _, ep := range endpoints {
			if !strings.Contains(e.Message, ep.method+" "+ep.path+",") && !strings.HasSuffix(e.Message, ep.method+" "+ep.path) {
				t.Errorf("%s %s: the message does not list %s %s: %s", tt.method, tt.path, ep.method, ep.path, e.Message)
			}
		}
	}
}

// TestPathsAsWritten: the mux would redirect a path it cleans to the
// cleaned one, outside the route; ka2 answers each path as written,
// a 404 that names the path to use, without reaching admission, the
// build or the decision log. A trailing slash is another path.
func TestPathsAsWritten(t *testing.T) {
	dl, logPath := openLog(t, serve.DecisionLogConfig{})
	srv, err := serve.New(serve.Config{Build: sample, Settings: en, DecisionLog: dl})
	if err != nil {
		t.Fatal(err)
	}
	var entered, queued atomic.Int64
	serve.SetHooks(srv, serve.Hooks{InHandler: func(string) { entered.Add(1) }, Queued: func() { queued.Add(1) }})
	r := serveOn(t, srv)
	tests := []struct{ method, path, use string }{
		{"POST", "//v1/contract", "/v1/contract"},
		{"POST", "/v1//contract", "/v1/contract"},
		{"POST", "/v1/./contract", "/v1/contract"},
		{"POST", "/v1/x/../contract", "/v1/contract"},
		{"POST", "/v1/verify/.", "/v1/verify"},
		{"GET", "//v1/select?subject=lodging&date=2026-09-14", "/v1/select"},
		{"GET", "/v1/contract/..", ""}, // cleaned to /v1/, no endpoint
		{"POST", "/v1/contract/", ""},
		{"GET", "/healthz/", ""},
	}
	for _, tt := range tests {
		got := r.do(t, tt.method, tt.path, lodging2026)
		if got.status != http.StatusNotFound || got.header.Get("Location") != "" || got.header.Get(serve.DecisionHeader) != "" {
			t.Errorf("%s %s: %d, Location %q, decision %q; want a 404 of no decision", tt.method, tt.path,
				got.status, got.header.Get("Location"), got.header.Get(serve.DecisionHeader))
			continue
		}
		e := errorBody(t, got.body)
		want := "; the endpoints are "
		if tt.use != "" {
			want = ": paths are matched as written; use " + tt.use
		}
		if e.Kind != "not_found" || !strings.Contains(e.Message, want) {
			t.Errorf("%s %s: error %+v, want a message containing %q", tt.method, tt.path, e, want)
		}
	}
	if n, q := entered.Load(), queued.Load(); n != 0 || q != 0 {
		t.Errorf("%d requests entered a handler, %d queued; want none", n, q)
	}
	m := string(r.get(t, "/metrics").body)
	if want := `ka2_http_requests_total{code="404",route="other"} 9`; !strings.Contains(m, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grepLines(m, "ka2_http_requests_total"))
	}
	// The path as written works, admitted and logged.
	if got := r.post(t, "/v1/contract", lodging2026); got.status != http.StatusOK || entered.Load() != 1 {
		t.Fatalf("POST /v1/contract: %d, %d handler entries", got.status, entered.Load())
	}
	r.shutdown()
	dl.Close()
	if got := readDecisions(t, logPath); len(got) != 1 || got[0].Endpoint != "contract" {
		t.Errorf("decision log: %+v; want the one contract", got)
	}
}

// grepLines returns the lines of text holding s.
func grepLines(text, s string) string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// TestPanicInARoute: a panic inside a route is a 500 in ka2's body,
// counted and logged under the route, and its admission slot is given
// back: with one slot, the next request is answered.
func TestPanicInARoute(t *testing.T) {
	dl, logPath := openLog(t, serve.DecisionLogConfig{})
	srv, err := serve.New(serve.Config{Build: sample, Settings: en, DecisionLog: dl, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	var panicked atomic.Bool
	serve.SetBuildHook(srv, func(context.Context) {
		if !panicked.Swap(true) {
			panic("a bug")
		}
	})
	r := serveOn(t, srv)
	got := r.post(t, "/v1/contract", lodging2026)
	if e := errorBody(t, got.body); got.status != http.StatusInternalServerError || e.Kind != "internal" {
		t.Fatalf("a panicking build: %d %+v, want 500 internal", got.status, e)
	}
	if got := r.post(t, "/v1/contract", lodging2026); got.status != http.StatusOK {
		t.Fatalf("the request after the panic: %d %s", got.status, got.body)
	}
	m := string(r.get(t, "/metrics").body)
	for _, want := range []string{`ka2_http_requests_total{code="500",route="contract"} 1`, `ka2_http_requests_in_flight 0`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	r.shutdown()
	dl.Close()
	if got := readDecisions(t, logPath); len(got) != 2 || got[0].Status != 500 || got[0].ErrorKind != "internal" || got[1].Status != 200 {
		t.Errorf("decision log: %+v; want the 500 and the 200", got)
	}
}
