package loadgen_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ka2/ka2/internal/loadgen"
)

// TestRun drives a small server on loopback: every request is answered
// and checked, and the run stops at its request bound.
func TestRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Ka2-Corpus-Digest", "d1")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	var checked atomic.Int64
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Addr: ln.Addr().String(), Path: "/echo", Bodies: [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)},
		Connections: 3, Duration: 10 * time.Second, MaxRequests: 300, DigestHeader: "Ka2-Corpus-Digest",
		Check: func(digest string, body []byte) error {
			checked.Add(1) // workers call Check concurrently
			if digest != "d1" || (string(body) != `{"a":1}` && string(body) != `{"b":2}`) {
				return errors.New("unexpected answer")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 300 || res.Failed != 0 || res.Statuses[200] != 300 || res.Digests["d1"] != 300 {
		t.Errorf("Run() = %+v", res)
	}
	if checked.Load() != 300 {
		t.Errorf("Check called %d times, want 300", checked.Load())
	}
	if res.P50 <= 0 || res.P99 < res.P50 || res.Max < res.P99 {
		t.Errorf("percentiles out of order: %v", res)
	}
}

// TestLoopbackOnly: no address off this machine is ever a target.
func TestLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"10.0.0.1:80", "192.168.1.1:8080", "8.8.8.8:53", "example.com:80"} {
		_, err := loadgen.Run(context.Background(), loadgen.Config{Addr: addr, Path: "/", Bodies: [][]byte{nil},
			Connections: 1, Duration: time.Second, MaxRequests: 1})
		if !errors.Is(err, loadgen.ErrNotLoopback) {
			t.Errorf("Run(%s) = %v, want ErrNotLoopback", addr, err)
		}
	}
}

// TestRunHugeMaxRequests: MaxRequests is only a bound; a run whose bound
// is far beyond what its duration allows ends with the duration (it once
// filled a channel with MaxRequests tokens first, which for math.MaxInt
// could not even be made).
func TestRunHugeMaxRequests(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2")
		w.Write([]byte("{}"))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Addr: ln.Addr().String(), Path: "/", Bodies: [][]byte{[]byte(`{}`)},
		Connections: 2, Duration: 200 * time.Millisecond, MaxRequests: math.MaxInt,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Failed != 0 {
		t.Errorf("Run() = %v", res)
	}
}
