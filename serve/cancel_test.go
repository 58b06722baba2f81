package serve_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/serve"
)

// TestContractStopped: a build whose client goes away mid-build, or whose
// request timeout passes, stops with the context's error; the first is
// recorded as 499 (not a server error) and logged, the second answers
// 503 with kind timeout.
func TestContractStopped(t *testing.T) {
	tests := []struct {
		name       string
		timeout    time.Duration
		stop       func(cancel context.CancelFunc, ctx context.Context) // run by the hook
		wantStatus int
		wantKind   string
		wantLog    string
	}{
		{name: "client gone", timeout: time.Hour,
			stop:       func(cancel context.CancelFunc, _ context.Context) { cancel() },
			wantStatus: errkind.StatusClientClosedRequest, wantKind: string(errkind.Canceled), wantLog: "the client went away"},
		{name: "deadline", timeout: time.Millisecond,
			stop:       func(_ context.CancelFunc, ctx context.Context) { <-ctx.Done() },
			wantStatus: http.StatusServiceUnavailable, wantKind: string(errkind.Timeout), wantLog: "the request timeout passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}, RequestTimeout: tt.timeout,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var seen error
			serve.SetBuildHook(srv, func(bctx context.Context) {
				tt.stop(cancel, bctx)
				seen = bctx.Err()
			})
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/v1/contract", strings.NewReader(lodging2026)).WithContext(ctx)
			srv.Handler().ServeHTTP(rec, req)
			if seen == nil {
				t.Fatal("the build's context was not done when the hook returned")
			}
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, body %s; want %d", rec.Code, rec.Body, tt.wantStatus)
			}
			if d := errorBody(t, rec.Body.Bytes()); d.Kind != tt.wantKind {
				t.Errorf("kind %q, want %q (%s)", d.Kind, tt.wantKind, d.Message)
			}
			if !strings.Contains(logs.String(), tt.wantLog) || strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("log %q: want %q at no ERROR level", logs.String(), tt.wantLog)
			}
			m := httptest.NewRecorder()
			srv.Handler().ServeHTTP(m, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			want := `ka2_http_requests_total{code="` + strconv.Itoa(tt.wantStatus) + `",route="contract"} 1`
			if !strings.Contains(m.Body.String(), want) || strings.Contains(m.Body.String(), `code="500"`) {
				t.Errorf("/metrics lacks %q or counts a 500", want)
			}
		})
	}
}

// TestContractClientGoneLoopback: over a real connection, a client that
// gives up mid-build cancels the build's context.
func TestContractClientGoneLoopback(t *testing.T) {
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan error, 1)
	serve.SetBuildHook(srv, func(bctx context.Context) {
		cancel() // the client gives up while the server builds
		select {
		case <-bctx.Done():
		case <-time.After(20 * time.Second): // a guard, not a wait: Done comes at once
		}
		seen <- bctx.Err()
	})
	r := serveOn(t, srv)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url+"/v1/contract", strings.NewReader(lodging2026))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := r.client.Do(req); !errors.Is(err, context.Canceled) {
		if err == nil {
			resp.Body.Close()
		}
		t.Fatalf("Do() = %v, want context.Canceled", err)
	}
	if err := <-seen; !errors.Is(err, context.Canceled) {
		t.Fatalf("the build's context: %v, want context.Canceled", err)
	}
}
