package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/serve"
)

// clientPage is the page that holds the HTTP API's Python client example.
const clientPage = "docs/serve.md"

// readmeBlock returns the text of clientPage's first fenced block whose
// info string is info.
func readmeBlock(t *testing.T, info string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", filepath.FromSlash(clientPage)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && line == "```"+info:
			in = true
		case in && line == "```":
			return b.String()
		case in:
			b.WriteString(line + "\n")
		}
	}
	t.Fatalf("%s has no ```%s block", clientPage, info)
	return ""
}

// TestREADMEPythonClient runs the Python client of docs/serve.md (the HTTP API
// section) against a server of the sample corpus and compares what it
// prints with the output the page shows.
func TestREADMEPythonClient(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is needed for the serve page's client example")
		}
		t.Skip("no python3")
	}
	script := filepath.Join(t.TempDir(), "client.py")
	if err := os.WriteFile(script, []byte(readmeBlock(t, "python http-test")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := start(t, serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}})
	// The client talks to the server through a proxy that checks every
	// answer against the OpenAPI document, as running.do does.
	target, err := url.Parse(r.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	transport := &http.Transport{}
	proxy.Transport = transport
	var mu sync.Mutex
	checked := 0
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		mu.Lock()
		defer mu.Unlock()
		checkDocumented(t, resp.Request.Method, resp.Request.URL.RequestURI(), resp.StatusCode, resp.Header, body)
		checked++
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ps := &http.Server{Handler: proxy}
	go ps.Serve(ln)
	t.Cleanup(func() {
		// Before the server stops (cleanups run last first): an idle
		// connection would hold its shutdown.
		ps.Close()
		transport.CloseIdleConnections()
	})
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(context.Background(), python, script, "http://"+ln.Addr().String())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 client.py: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff(readmeBlock(t, "text http-output"), stdout.String()); diff != "" {
		t.Errorf("the serve page's client printed otherwise (-page +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if checked != 5 {
		t.Errorf("the proxy checked %d answers, want the client's 5", checked)
	}
}
