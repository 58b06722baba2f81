package serve_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/serve"
)

func TestPreviewPage(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }
	tests := []struct {
		name       string
		ui         bool
		path       string
		wantStatus int
		wantType   string
		wantBody   string
	}{
		{"page", true, "/", 200, "text/html; charset=utf-8", `<script src="/ui/app.js" defer></script>`},
		{"script", true, "/ui/app.js", 200, "text/javascript; charset=utf-8", `fetch("/v1/contract"`},
		{"style", true, "/ui/app.css", 200, "text/css; charset=utf-8", "#timeline"},
		{"off", false, "/", 404, "application/json", `"kind":"not_found"`},
		{"timeline svg", false, "/v1/timeline?subject=lodging&lang=en&date=2026-09-14", 200, "image/svg+xml; charset=utf-8",
			`<g class="bar open selected" data-source="travel-v2" data-lang="en">`},
		{"timeline json", false, "/v1/timeline?format=json&subject=rail", 200, "application/json", `"today":"2026-09-14","lanes":[{"subject":"rail","lang":"en"`},
		{"timeline unknown subject", false, "/v1/timeline?subject=lodgin", 400, "application/json", `unknown subject \"lodgin\"; did you mean lodging?`},
		{"timeline bad lang", false, "/v1/timeline?lang=fr", 400, "application/json", `name one of the corpus's languages with ?lang=: en, zh`},
		{"timeline bad date", false, "/v1/timeline?date=2026-02-30", 400, "application/json", `date \"2026-02-30\": not a calendar date`},
		{"timeline bad width", false, "/v1/timeline?width=10", 400, "application/json", `width \"10\": want 400..20000 pixels`},
		{"timeline bad format", false, "/v1/timeline?format=png", 400, "application/json", `format \"png\": want svg or json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := serve.New(serve.Config{Build: sample, UI: tt.ui, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tt.wantStatus || rec.Header().Get("Content-Type") != tt.wantType || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("GET %s = %d %s\n%s\nwant %d %s containing %s", tt.path, rec.Code, rec.Header().Get("Content-Type"), body, tt.wantStatus, tt.wantType, tt.wantBody)
			}
			if tt.wantStatus == 200 && !strings.HasPrefix(tt.wantType, "application/json") {
				if got := rec.Header().Get("Content-Security-Policy"); got != serve.ContentSecurityPolicy {
					t.Errorf("Content-Security-Policy = %q", got)
				}
			}
		})
	}
	// The page is read-only: it answers only GET (and HEAD).
	s, _ := serve.New(serve.Config{Build: sample, UI: true, Now: now})
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x")))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", rec.Code)
	}
}

// TestPreviewPageHasNoInlineCode checks what the Content-Security-Policy
// would refuse: inline scripts, inline styles and external references.
func TestPreviewPageHasNoInlineCode(t *testing.T) {
	s, _ := serve.New(serve.Config{Build: sample, UI: true})
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	page := rec.Body.String()
	for _, bad := range []string{"<style", "style=", "onclick", "onload", "javascript:", "http://", "https://", "<script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}
