package serve_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/serve"
)

// BenchmarkHandlerSubjects is one POST /v1/contract on a generated corpus
// of 100k sources (1000 subjects), asking about a subject it has (ok) and
// about ones it has not (unknown: a typo of one, and a name like none):
// the "did you mean" of the error path beside the ok path.
func BenchmarkHandlerSubjects(b *testing.B) {
	capacity := 6400 // the generated bodies are longer than the sample's, as ka2perf's
	srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.FromFS("gen", gencorpus.FS(100_000)), Capacity: &capacity},
		Settings: contract.Settings{Lang: "en"}, Settle: -1})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	for _, c := range []struct {
		name    string
		subject string
		status  int
	}{
		{"ok", gencorpus.Subject(42_000), http.StatusOK},
		{"typo", "subjetc-00421", http.StatusBadRequest},
		{"unlike", "zq7-unknown-topic-name", http.StatusBadRequest},
	} {
		b.Run(c.name, func(b *testing.B) {
			body := fmt.Appendf(nil, `{"subject":%q,"dates":["2027-01-01"],"question":"What is the limit?"}`, c.subject)
			w := &discardWriter{h: http.Header{}}
			rd := new(bytes.Reader)
			req := httptest.NewRequest(http.MethodPost, "/v1/contract", nil)
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				req.ContentLength = int64(len(body))
				clear(w.h)
				w.code = 0
				h.ServeHTTP(w, req)
				if w.code != c.status {
					b.Fatalf("status %d, want %d: %s", w.code, c.status, w.last)
				}
			}
		})
	}
}
