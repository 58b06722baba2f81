package serve_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/serve"
)

// TestBodyLimit: a contract request body is held to MaxBodyBytes whether
// it declares its length or not (chunked), and a body at the limit is
// read whole.
func TestBodyLimit(t *testing.T) {
	limit := int64(len(lodging2026))
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}, MaxBodyBytes: limit, Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	over := lodging2026 + " "
	tests := []struct {
		name   string
		body   string
		length int64 // the declared Content-Length; -1 is none
		status int
	}{
		{name: "at the limit, declared", body: lodging2026, length: limit, status: http.StatusOK},
		{name: "at the limit, chunked", body: lodging2026, length: -1, status: http.StatusOK},
		{name: "over, declared", body: over, length: limit + 1, status: http.StatusBadRequest},
		{name: "over, chunked", body: over, length: -1, status: http.StatusBadRequest},
		// Only in process: net/http's server ends a body at its length.
		{name: "over, declared under", body: over, length: limit, status: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/v1/contract", nil)
			req.Body = io.NopCloser(strings.NewReader(tt.body))
			req.ContentLength = tt.length
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			if tt.status != http.StatusOK && !strings.Contains(errorBody(t, rec.Body.Bytes()).Message, "over the limit") {
				t.Errorf("message %s: want over the limit", rec.Body)
			}
		})
	}
}

// closeRecorder is a request body that records whether it was closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// TestBodyClosedOnceRead: a body read whole is closed by the handler, so
// that net/http does not read it again for a rest before it answers; one
// over the limit is left for net/http to deal with (closing it would read
// the rest).
func TestBodyClosedOnceRead(t *testing.T) {
	limit := int64(len(lodging2026))
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}, MaxBodyBytes: limit, Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		path, body string
		length     int64
		wantClosed bool
	}{
		{"contract, declared", "/v1/contract", lodging2026, limit, true},
		{"contract, chunked", "/v1/contract", lodging2026, -1, true},
		{"verify", "/v1/verify", "{}", 2, true},
		{"contract, over the limit", "/v1/contract", lodging2026 + " ", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &closeRecorder{Reader: strings.NewReader(tt.body)}
			req := httptest.NewRequest(http.MethodPost, tt.path, nil)
			req.Body, req.ContentLength = body, tt.length
			srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
			if body.closed != tt.wantClosed {
				t.Errorf("body closed = %v, want %v", body.closed, tt.wantClosed)
			}
		})
	}
}
