package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/serve"
)

// FuzzHandler sends arbitrary methods, paths, queries and bodies to the
// handler. It must never panic (a recovered panic shows as a 500), every
// answer carries the corpus digest, every error is a JSON error of a
// known kind with the status of its kind, and a contract is answered the
// same twice.
func FuzzHandler(f *testing.F) {
	srv, err := serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	seeds := []string{
		lodging2026,
		`{"subject":"lodging","dates":["2025-09-14","2026-09-14"],"question":"q","short":true}`,
		`{"subject":"lodging","dates":["2026-09-14"],"question":"q","items":[{"type":"tool_output","source":"tool:x","text":"ok"}],"promote":[{"item":0,"to":"evidence"}]}`,
		`{"subjects":["lodging","rail"],"dates":["2026-01-01"],"question":"住宿？","lang":"zh"}`,
		`{"items":[{"type":"instruction","source":"system","text":"x"}],"promote":[{"item":5,"to":"memory"}]}`,
		`{"dates":["2026-02-30"]}`, `[]`, `null`, `{"short":"yes"}`, "\xff", ``,
	}
	for i, s := range seeds {
		f.Add(uint8(0), "/v1/contract", s)
		if i == 0 {
			f.Add(uint8(1), "/v1/select?subject=lodging&date=2026-09-14&lang=en", "")
			f.Add(uint8(1), "/v1/show?address=travel-v2:1-3&lang=en", "")
			f.Add(uint8(0), "/v1/verify", s)
			f.Add(uint8(1), "/readyz", "")
			f.Add(uint8(2), "/v1/contract", s)
		}
	}
	methods := []string{http.MethodPost, http.MethodGet, http.MethodPut, http.MethodHead}
	statusOf := map[string]int{
		string(errkind.BadRequest): 400, string(errkind.NotFound): 404, string(errkind.MethodNotAllowed): 405,
		string(errkind.BudgetExceeded): 422, string(errkind.NoEvidence): 422, string(errkind.ContextType): 422, string(errkind.Overloaded): 503,
	}
	f.Fuzz(func(t *testing.T, m uint8, target, body string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t#") || len(target) > 4096 {
			return
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			return // not a request a client can send
		}
		if strings.HasPrefix(target, "/metrics") || strings.HasPrefix(target, "/readyz") {
			return // timestamps and counters: answered differently every time
		}
		method := methods[int(m)%len(methods)]
		do := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(method, "http://ka2.test"+target, strings.NewReader(body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		rec := do()
		if rec.Header().Get(serve.DigestHeader) == "" {
			t.Errorf("%s %s: no %s header", method, target, serve.DigestHeader)
		}
		if rec.Code == http.StatusOK {
			if method == http.MethodPost && strings.HasPrefix(target, "/v1/contract") {
				again := do()
				if !bytes.Equal(rec.Body.Bytes(), again.Body.Bytes()) {
					t.Errorf("the same request gave two answers:\n%s\n%s", rec.Body, again.Body)
				}
				if !bytes.HasSuffix(rec.Body.Bytes(), []byte("}\n")) || !json.Valid(rec.Body.Bytes()) {
					t.Errorf("contract is not one JSON object and a newline: %q", rec.Body)
				}
			}
			return
		}
		if method == http.MethodHead {
			return
		}
		var e errkind.Body
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
			t.Fatalf("%s %s: status %d with a body that is not a JSON error: %q", method, target, rec.Code, rec.Body)
		}
		want, ok := statusOf[e.Error.Kind]
		if !ok || want != rec.Code {
			t.Errorf("%s %s (%q): status %d, kind %q; kinds and statuses are %v", method, target, body, rec.Code, e.Error.Kind, statusOf)
		}
		if e.Error.Message == "" {
			t.Error("error without a message")
		}
		if e.Error.Kind == string(errkind.MethodNotAllowed) && !slices.Contains([]string{"GET, HEAD", "POST"}, rec.Header().Get("Allow")) {
			t.Errorf("405 without an Allow header")
		}
	})
}
