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
	"github.com/ka2/ka2/serve"
)

// discardWriter is a ResponseWriter that keeps the header map between
// requests and drops the body, so the benchmark counts the handler's own
// allocations rather than a recorder's.
type discardWriter struct {
	h    http.Header
	code int
	n    int
	last []byte
}

func (w *discardWriter) Header() http.Header  { return w.h }
func (w *discardWriter) WriteHeader(code int) { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code != http.StatusOK {
		w.last = append(w.last[:0], p...)
	}
	w.n += len(p)
	return len(p), nil
}

// BenchmarkHandlerContract is one POST /v1/contract on the embedded sample
// corpus through the server's handler, without a network: its allocs/op
// are the handler's per-request allocations (the figure the performance
// work reports before and after), deterministic where wall time is not.
func BenchmarkHandlerContract(b *testing.B) {
	var bodies [][]byte
	for _, d := range []string{"2025-09-14", "2026-09-14", "2026-01-01", "2025-12-31"} {
		bodies = append(bodies, fmt.Appendf(nil, `{"subject":"lodging","dates":[%q],"question":"What is the Beijing lodging limit?"}`, d))
	}
	benchmarkHandler(b, bodies)
}

// BenchmarkHandlerContractItems is BenchmarkHandlerContract for a
// request that brings a tool output and promotes it to evidence: a
// request contract.ParseRequestFile reads from its node tree.
func BenchmarkHandlerContractItems(b *testing.B) {
	benchmarkHandler(b, [][]byte{[]byte(`{"subject":"lodging","dates":["2026-09-14"],"question":"Is order A-104 within the Beijing lodging limit?",` +
		`"items":[{"type":"tool_output","source":"tool:order_lookup","text":"Order A-104: 720 CNY per night, Beijing, confirmed."}],` +
		`"promote":[{"item":0,"to":"evidence"}]}`)})
}

// benchmarkHandler posts the bodies in turn to /v1/contract on the
// embedded sample corpus.
func benchmarkHandler(b *testing.B, bodies [][]byte) {
	srv, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Embedded()}, Settings: contract.Settings{Lang: "en"}, Settle: -1})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	w := &discardWriter{h: http.Header{}}
	rd := new(bytes.Reader)
	req := httptest.NewRequest(http.MethodPost, "/v1/contract", nil)
	req.Header.Set("Content-Type", "application/json")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		body := bodies[i%len(bodies)]
		i++
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		req.ContentLength = int64(len(body))
		clear(w.h)
		w.code, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.code != http.StatusOK {
			b.Fatalf("status %d: %s", w.code, w.last)
		}
	}
	b.ReportMetric(float64(w.n), "bytes/answer")
}
