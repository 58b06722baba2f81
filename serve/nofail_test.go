package serve_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/serve"
)

// TestNoServerError throws malformed and hostile bodies and queries at
// every endpoint of a server whose corpus has a source with an empty body
// (where the corpus loader still takes one; the sample corpus where it
// does not): each answer is a documented
// kind with its status, never a 500.
func TestNoServerError(t *testing.T) {
	dir := sampleDir(t)
	if err := os.WriteFile(filepath.Join(dir, "en", "empty.md"),
		[]byte("---\nsource_id: empty\nversion: v1\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(dir)}, Settings: contract.Settings{Lang: "en"}})
	emptyLoaded := err == nil
	if !emptyLoaded {
		// Refused at load, so no request meets it: the rest still holds
		// for the sample corpus.
		t.Logf("the corpus with an empty body is refused at load: %v", err)
		if srv, err = serve.New(serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}}); err != nil {
			t.Fatal(err)
		}
	}
	r := serveOn(t, srv)
	statusOf := map[string]int{
		string(errkind.BadRequest): 400, string(errkind.NotFound): 404, string(errkind.MethodNotAllowed): 405,
		string(errkind.BudgetExceeded): 422, string(errkind.NoEvidence): 422, string(errkind.ContextType): 422, string(errkind.Overloaded): 503,
	}
	tests := []struct{ method, path, body string }{
		{"POST", "/v1/contract", lodging2026}, // meets the empty body
		{"POST", "/v1/contract", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","short":true}`},
		{"POST", "/v1/contract", ``},
		{"POST", "/v1/contract", `{}`},
		{"POST", "/v1/contract", `null`},
		{"POST", "/v1/contract", `[`},
		{"POST", "/v1/contract", "\xff\xfe"},
		{"POST", "/v1/contract", `{"subject":"lodging","dates":["9999-12-31","0001-01-01"],"question":"q"}`},
		{"POST", "/v1/contract", `{"subject":"","dates":[""],"question":""}`},
		{"POST", "/v1/contract", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","items":[{}],"promote":[{"item":-1}]}`},
		{"POST", "/v1/contract", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","items":[{"type":"memory","source":"memory:x","text":""}]}`},
		{"POST", "/v1/contract", `{"subject":"lodging","dates":["2026-09-14"],"question":"\ud800"}`},
		{"GET", "/v1/select?subject=lodging&date=2026-09-14", ""},
		{"GET", "/v1/select?subject=&date=", ""},
		{"GET", "/v1/select?subject=lodging&date=2026-09-14&lang=xx", ""},
		{"GET", "/v1/select?subject=%00&date=2026-02-29", ""},
		{"GET", "/v1/show?address=empty", ""},
		{"GET", "/v1/show?address=empty:1", ""},
		{"GET", "/v1/show?address=empty:1-1&lang=en", ""},
		{"GET", "/v1/show?address=travel-v2:0-99999999999999999999", ""},
		{"GET", "/v1/show?address=%5B%5D", ""},
		{"GET", "/v1/show?address=a&address=b", ""},
		{"POST", "/v1/verify", ``},
		{"POST", "/v1/verify", `{}`},
		{"POST", "/v1/verify", `{"evidence":[{"source_id":"empty","line_start":1,"line_end":1,"quote":""}]}`},
		{"POST", "/v1/verify?lang=xx", `not json`},
		{"DELETE", "/v1/contract", ``},
		{"GET", "/v1/nothing", ``},
	}
	for _, tt := range tests {
		got := r.do(t, tt.method, tt.path, tt.body)
		if got.status == http.StatusOK {
			continue
		}
		e := errorBody(t, got.body)
		if want, ok := statusOf[e.Kind]; !ok || want != got.status {
			t.Errorf("%s %s %q: %d %s, want a documented kind with its status", tt.method, tt.path, tt.body, got.status, got.body)
		}
		if emptyLoaded && tt.body == lodging2026 && !strings.Contains(e.Message, "empty body") {
			t.Errorf("the empty body's error does not say so: %s", e.Message)
		}
	}
}
