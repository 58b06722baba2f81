package serve_test

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/serve"
)

// TestHierarchicalSubjects: a subject with '/' reaches the selector whole
// from a query string (as written or percent-encoded) and from a JSON
// body; it never routes the request elsewhere. A parent names the
// subjects under it; a supplement is no conflict on the timeline.
func TestHierarchicalSubjects(t *testing.T) {
	file := func(id, subjects, extra string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nsource_id: " + id + "\nversion: v1\nsubjects: [" + subjects + "]\nvalid_from: 2026-01-01\nlang: en\n" + extra +
			"---\nScope: lodging in one city, from 2026-01-01.\nThe limit is 700 CNY per room-night.\n")}
	}
	fsys := fstest.MapFS{
		"bj.md":     file("lodging-bj", "travel/lodging/beijing", ""),
		"sh.md":     file("lodging-sh", "travel/lodging/shanghai", ""),
		"shared.md": file("receipts", "travel/lodging/beijing, travel/lodging/shanghai", "role: supplement\n"),
	}
	now := func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }
	r := start(t, serve.Config{Build: contract.Config{Corpus: corpus.Location{FS: fsys, Name: "policies"}}, Now: now})
	for _, path := range []string{
		"/v1/select?subject=travel/lodging/beijing&date=2026-09-14",
		"/v1/select?subject=travel%2Flodging%2Fbeijing&date=2026-09-14",
	} {
		got := r.get(t, path)
		if body := string(got.body); got.status != 200 || !strings.Contains(body, `"subjects":["travel/lodging/beijing"],"dates":["2026-09-14"]`) ||
			!strings.Contains(body, `"source_id":"lodging-bj","lang":"en","version":"v1","path":"bj.md","subjects":["travel/lodging/beijing"],"valid_from":"2026-01-01","selected":true`) ||
			!strings.Contains(body, `"source_id":"lodging-sh","lang":"en","version":"v1","path":"sh.md","subjects":["travel/lodging/shanghai"],"valid_from":"2026-01-01","selected":false`) {
			t.Errorf("GET %s = %d %s, want lodging-bj selected", path, got.status, got.body)
		}
		if !strings.Contains(string(got.body), `"conflicts":[]`) {
			t.Errorf("GET %s: the supplement is reported as a conflict: %s", path, got.body)
		}
	}
	got := r.post(t, "/v1/contract", `{"subject":"travel/lodging/shanghai","dates":["2026-09-14"],"question":"What is the Shanghai limit?","lang":"en"}`)
	if got.status != 200 || !strings.Contains(string(got.body), `"scope":{"subjects":["travel/lodging/shanghai"]`) {
		t.Errorf("POST /v1/contract = %d %s", got.status, got.body)
	}
	got = r.get(t, "/v1/select?subject=travel/lodging&date=2026-09-14")
	if e := errorBody(t, got.body); got.status != 400 || e.Message != `unknown subject "travel/lodging"; did you mean travel/lodging/beijing or travel/lodging/shanghai?` {
		t.Errorf("GET select of a parent = %d %+v", got.status, e)
	}
	got = r.get(t, "/v1/timeline?format=json&subject=travel%2Flodging%2Fbeijing")
	body := string(got.body)
	if got.status != 200 || !strings.Contains(body, `"subject":"travel/lodging/beijing"`) || strings.Contains(body, `"conflict":true`) ||
		!strings.Contains(body, `"source_id":"receipts","version":"v1","lang":"en","valid_from":"2026-01-01","selected":false,"conflict":false,"supplement":true`) {
		t.Errorf("GET timeline json = %d %s", got.status, body)
	}
	got = r.get(t, "/v1/timeline?subject=travel/lodging/beijing")
	if body := string(got.body); got.status != 200 || !strings.Contains(body, `data-subject="travel/lodging/beijing"`) || strings.Contains(body, "conflict\"") {
		t.Errorf("GET timeline svg = %d %s", got.status, body)
	}
}
