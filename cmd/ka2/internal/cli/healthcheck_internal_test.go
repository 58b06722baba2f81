package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantErrOut string
	}{
		{name: "healthy", args: []string{srv.URL + "/healthz"}, wantCode: ExitOK, wantOut: "healthy: " + srv.URL + "/healthz answered 200 OK\n"},
		{name: "not ready", args: []string{srv.URL + "/readyz"}, wantCode: ExitProblems, wantErrOut: "ka2: unhealthy: " + srv.URL + "/readyz answered 503 Service Unavailable\n"},
		{name: "nothing listening", args: []string{closedURL + "/healthz"}, wantCode: ExitProblems, wantErrOut: "ka2: unhealthy: "},
		{name: "not a URL", args: []string{"127.0.0.1:8080"}, wantCode: ExitInput, wantErrOut: "want http://HOST:PORT/PATH"},
		{name: "bad timeout", args: []string{"--timeout", "0s", srv.URL + "/healthz"}, wantCode: ExitInput, wantErrOut: "--timeout must be positive"},
		{name: "two URLs", args: []string{srv.URL, srv.URL}, wantCode: ExitInput, wantErrOut: "accepts at most 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(t.Context(), &Factory{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, append([]string{"healthcheck"}, tt.args...))
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut.String())
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantOut)
			}
			if !strings.Contains(errOut.String(), tt.wantErrOut) || (tt.wantErrOut == "") != (errOut.Len() == 0) {
				t.Errorf("stderr = %q, want it to contain %q", errOut.String(), tt.wantErrOut)
			}
		})
	}
}
