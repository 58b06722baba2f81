package serve_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/serve"
)

// TestMaxInFlight holds as many requests as the bound allows inside the
// handler, over a real loopback socket, with the queue turned off, and
// sends one more: it is answered 503 overloaded with Retry-After at once,
// while /readyz and /metrics still answer and count it; once the held
// ones finish, requests pass again.
func TestMaxInFlight(t *testing.T) {
	const bound = 3
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}, MaxInFlight: bound, QueueWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan string, bound)
	release := make(chan struct{})
	serve.SetHooks(srv, serve.Hooks{InHandler: func(route string) {
		entered <- route
		<-release
	}})
	r := serveOn(t, srv)

	var wg sync.WaitGroup
	held := make([]response, bound)
	for i := range bound {
		wg.Go(func() { held[i] = r.post(t, "/v1/contract", lodging2026) })
	}
	for range bound {
		select {
		case <-entered:
		case <-t.Context().Done():
			t.Fatal("the held requests did not reach the handler")
		}
	}

	for _, req := range []struct{ method, path, body string }{
		{"POST", "/v1/contract", lodging2026},
		{"GET", "/v1/select?subject=lodging&date=2026-09-14", ""},
	} {
		got := r.do(t, req.method, req.path, req.body)
		if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") != "1" {
			t.Fatalf("%s %s over the bound: %d, Retry-After %q; want 503 with Retry-After 1", req.method, req.path, got.status, got.header.Get("Retry-After"))
		}
		if e := errorBody(t, got.body); e.Kind != string(errkind.Overloaded) || !strings.Contains(e.Message, "3 requests are in flight") {
			t.Errorf("error = %+v", e)
		}
	}
	if got := r.get(t, "/readyz"); got.status != http.StatusOK {
		t.Errorf("/readyz under load: %d", got.status)
	}
	m := string(r.get(t, "/metrics").body)
	for _, want := range []string{
		"ka2_http_requests_in_flight 3",
		"ka2_http_requests_in_flight_max 3",
		`ka2_http_requests_rejected_total{reason="queue_full"} 2`,
		"ka2_http_requests_queued_max 0",
		`ka2_http_requests_total{code="503",route="contract"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	close(release)
	wg.Wait()
	for i, got := range held {
		if got.status != http.StatusOK {
			t.Errorf("held request %d: %d %s", i, got.status, got.body)
		}
	}
	if got := r.post(t, "/v1/contract", lodging2026); got.status != http.StatusOK {
		t.Errorf("after the held requests: %d %s", got.status, got.body)
	}
	if got := metric(t, srv, "ka2_http_requests_in_flight"); got != 0 {
		t.Errorf("ka2_http_requests_in_flight = %v when idle", got)
	}
}

// TestMetricNames lints every metric the server registers against the
// Prometheus naming conventions.
func TestMetricNames(t *testing.T) {
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}})
	if err != nil {
		t.Fatal(err)
	}
	answer(t, srv, lodging2026) // fill the labelled series
	mfs, err := srv.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "ka2_") {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
}
