// Package loadgen decides how hard ka2 serve is pushed in a load test: a
// small closed-loop HTTP/1.1 load generator that keeps one connection per
// worker alive, sends POST requests from a fixed set of bodies, checks
// every answer and reports throughput and latency percentiles. It talks
// only to loopback addresses, and every run is bounded in time and in
// requests.
package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one load run.
type Config struct {
	// Addr is host:port of the server; the host must be a loopback
	// address (127.0.0.0/8 or ::1).
	Addr string
	// Path is the request target, e.g. /v1/contract.
	Path string
	// Bodies are posted in turn; each worker starts at another one.
	Bodies [][]byte
	// Connections is the number of workers, each with one keep-alive
	// connection and one request in flight at a time.
	Connections int
	// Duration and MaxRequests bound the run; the first reached ends it.
	// Both must be positive.
	Duration    time.Duration
	MaxRequests int
	// Check, if set, is called for every 200 answer with the value of
	// the digest header (DigestHeader) and the body; an error counts the
	// answer as failed.
	Check func(digest string, body []byte) error
	// DigestHeader names the response header Check receives.
	DigestHeader string
}

// Result is what a run measured.
type Result struct {
	Requests int         // answers received
	Failed   int         // answers that were not 200 or failed Check, and transport errors
	Statuses map[int]int // answers by status code
	// Digests counts the 200 answers by the digest header's value.
	Digests map[string]int
	// FirstError describes the first failure, if any.
	FirstError string
	Elapsed    time.Duration
	// Latency percentiles over every answer, from writing the request to
	// reading the last byte of the body.
	P50, P90, P99, P999, Max time.Duration
}

// Throughput is answers per second.
func (r Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// String formats the result on one line.
func (r Result) String() string {
	return fmt.Sprintf("%d requests in %.2fs: %.0f/s, %d failed; latency p50 %s p90 %s p99 %s p99.9 %s max %s",
		r.Requests, r.Elapsed.Seconds(), r.Throughput(), r.Failed, r.P50, r.P90, r.P99, r.P999, r.Max)
}

// ErrNotLoopback refuses a target that is not on this machine.
var ErrNotLoopback = errors.New("the load generator only sends to loopback addresses (127.0.0.0/8, ::1)")

// CheckLoopback accepts addr only if its host is a literal loopback
// address or localhost, so a server meant for load runs listens on this
// machine only.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("%s: %w", addr, ErrNotLoopback)
	}
	return nil
}

// Run sends requests until the duration or the request count is reached,
// or ctx is done.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := CheckLoopback(cfg.Addr); err != nil {
		return Result{}, err
	}
	if cfg.Connections <= 0 || cfg.Duration <= 0 || cfg.MaxRequests <= 0 || len(cfg.Bodies) == 0 {
		return Result{}, errors.New("loadgen: Connections, Duration, MaxRequests and Bodies must be set")
	}
	reqs := make([][]byte, len(cfg.Bodies))
	for i, b := range cfg.Bodies {
		reqs[i] = fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			cfg.Path, cfg.Addr, len(b), b)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var (
		mu       sync.Mutex
		res      = Result{Statuses: map[int]int{}, Digests: map[string]int{}}
		lat      []time.Duration
		budget   atomic.Int64 // requests left to send
		wg       sync.WaitGroup
		startAll = time.Now()
	)
	// A counter, not a channel filled with MaxRequests tokens: filling
	// one of millions took longer than a short run.
	budget.Store(int64(cfg.MaxRequests))
	for w := range cfg.Connections {
		wg.Go(func() {
			st := worker{cfg: &cfg, reqs: reqs, next: w % len(reqs), statuses: map[int]int{}, digests: map[string]int{}}
			st.run(ctx, &budget)
			mu.Lock()
			defer mu.Unlock()
			res.Requests += st.n
			res.Failed += st.failed
			for k, v := range st.statuses {
				res.Statuses[k] += v
			}
			for k, v := range st.digests {
				res.Digests[k] += v
			}
			if res.FirstError == "" {
				res.FirstError = st.firstErr
			}
			lat = append(lat, st.lat...)
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(startAll)
	if len(lat) > 0 {
		slices.Sort(lat)
		at := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
		res.P50, res.P90, res.P99, res.P999, res.Max = at(.5), at(.9), at(.99), at(.999), lat[len(lat)-1]
	}
	return res, nil
}

type worker struct {
	cfg      *Config
	reqs     [][]byte
	next     int
	conn     net.Conn
	rd       *bufio.Reader
	body     []byte
	n        int
	failed   int
	firstErr string
	statuses map[int]int
	digests  map[string]int
	lat      []time.Duration
}

func (w *worker) fail(format string, args ...any) {
	w.failed++
	if w.firstErr == "" {
		w.firstErr = fmt.Sprintf(format, args...)
	}
}

func (w *worker) run(ctx context.Context, budget *atomic.Int64) {
	defer func() {
		if w.conn != nil {
			w.conn.Close()
		}
	}()
	for {
		if ctx.Err() != nil || budget.Add(-1) < 0 {
			return
		}
		if w.conn == nil {
			c, err := net.DialTimeout("tcp", w.cfg.Addr, 5*time.Second)
			if err != nil {
				w.fail("dial: %v", err)
				if ctx.Err() != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			w.conn, w.rd = c, bufio.NewReaderSize(c, 16<<10)
		}
		req := w.reqs[w.next]
		w.next = (w.next + 1) % len(w.reqs)
		t0 := time.Now()
		w.conn.SetDeadline(t0.Add(10 * time.Second))
		status, digest, closeAfter, err := w.roundTrip(req)
		d := time.Since(t0)
		if err != nil {
			w.fail("request: %v", err)
			w.conn.Close()
			w.conn = nil
			continue
		}
		w.n++
		w.lat = append(w.lat, d)
		w.statuses[status]++
		switch {
		case status != 200:
			w.fail("status %d: %.200s", status, w.body)
		case w.cfg.Check != nil:
			if err := w.cfg.Check(digest, w.body); err != nil {
				w.fail("check: %v", err)
			} else {
				w.digests[digest]++
			}
		default:
			w.digests[digest]++
		}
		if closeAfter {
			w.conn.Close()
			w.conn = nil
		}
	}
}

// roundTrip writes one request and reads the answer: the status line,
// the headers it needs (Content-Length, Connection, the digest) and the
// body, which must have a Content-Length.
func (w *worker) roundTrip(req []byte) (status int, digest string, closeAfter bool, err error) {
	if _, err := w.conn.Write(req); err != nil {
		return 0, "", false, err
	}
	line, err := w.rd.ReadSlice('\n')
	if err != nil {
		return 0, "", false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, "", false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, "", false, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		h, err := w.rd.ReadSlice('\n')
		if err != nil {
			return 0, "", false, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return 0, "", false, fmt.Errorf("bad header %q", h)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, err = strconv.Atoi(string(value))
			if err != nil {
				return 0, "", false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Connection")):
			closeAfter = bytes.EqualFold(value, []byte("close"))
		case w.cfg.DigestHeader != "" && bytes.EqualFold(name, []byte(w.cfg.DigestHeader)):
			digest = string(value)
		}
	}
	if length < 0 {
		return 0, "", false, errors.New("answer without Content-Length")
	}
	if cap(w.body) < length {
		w.body = make([]byte, length)
	}
	w.body = w.body[:length]
	if _, err := io.ReadFull(w.rd, w.body); err != nil {
		return 0, "", false, err
	}
	return status, digest, closeAfter, nil
}
