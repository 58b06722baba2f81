package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveProcess is `ka2 serve` running as a child process.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string
	logs chan string // stderr lines after the "serving" line
}

// startProcess runs the real ka2 binary (testscript.Main puts it on PATH)
// as `ka2 serve --addr 127.0.0.1:0 --log-format json ARGS`.
func startProcess(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command("ka2", append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	p := &serveProcess{cmd: cmd, logs: make(chan string, 100)}
	sc := bufio.NewScanner(stderr)
	addr := make(chan string, 1)
	go func() {
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addr <- line.Addr
				continue
			}
			select {
			case p.logs <- sc.Text():
			default:
			}
		}
		close(p.logs)
	}()
	select {
	case p.addr = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("ka2 serve did not start")
	}
	return p
}

// wait waits for the process to exit and returns its exit code.
func (p *serveProcess) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatal("ka2 serve did not exit")
		return -1
	}
}

const request = `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`

// TestServeSIGTERM sends SIGTERM to a real `ka2 serve` with requests in
// flight: they are answered in full and the process exits 0.
func TestServeSIGTERM(t *testing.T) {
	p := startProcess(t, "--drain-timeout", "20s")
	var conns []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		half := len(request) / 2
		fmt.Fprintf(c, "POST /v1/contract HTTP/1.1\r\nHost: ka2\r\nContent-Length: %d\r\n\r\n%s", len(request), request[:half])
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	for i, c := range conns {
		if _, err := io.WriteString(c, request[len(request)/2:]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("request %d in flight: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"source_id":"travel-v2"`) {
			t.Errorf("request %d in flight: %d %s", i, resp.StatusCode, body)
		}
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
}

// TestServeSIGHUP changes the corpus and sends SIGHUP: the change is
// served, and /readyz names the trigger.
func TestServeSIGHUP(t *testing.T) {
	dir := t.TempDir()
	policy := func(amount int) string {
		return fmt.Sprintf("---\nsource_id: travel-v2\nversion: v2\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\n---\nThe lodging limit is %d CNY per room-night.\n", amount)
	}
	if err := os.WriteFile(filepath.Join(dir, "travel.md"), []byte(policy(750)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, "--corpus", dir, "--watch=false")
	post := func() string {
		resp, err := http.Post("http://"+p.addr+"/v1/contract", "application/json", strings.NewReader(request))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	if got := post(); !strings.Contains(got, "750 CNY") {
		t.Fatalf("before: %s", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "travel.md"), []byte(policy(780)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(post(), "780 CNY") {
		if time.Now().After(deadline) {
			t.Fatal("SIGHUP did not reload the corpus")
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get("http://" + p.addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"trigger":"sighup","outcome":"ok"`) {
		t.Errorf("readyz = %s", body)
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0", code)
	}
}
