package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ka2/ka2/internal/testutil"
)

// serveProcess is `ka2 serve` running as a child process.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string
	logs chan string // stderr lines after the "serving" line; closed at exit
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
		close(addr)
		close(p.logs)
	}()
	// The test's time-out is the bound: no clock here.
	a, ok := <-addr
	if !ok {
		t.Fatal("ka2 serve exited without serving")
	}
	p.addr = a
	return p
}

// wait waits for the process to exit and returns its exit code.
func (p *serveProcess) wait(t *testing.T) int {
	t.Helper()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

const request = `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`

// TestServeSIGTERM sends SIGTERM to a real `ka2 serve`: Main's signal
// handler cancels the command's context, serve drains and exits 0. (The
// drain itself, with requests in flight, is tested in process in the cli
// package.)
func TestServeSIGTERM(t *testing.T) {
	p := startProcess(t, "--drain-timeout", "20s")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLog(t, "drained")
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
}

// waitLog reads the log until a line with the message msg, and returns it.
func (p *serveProcess) waitLog(t *testing.T, msg string) string {
	t.Helper()
	for line := range p.logs {
		var l struct{ Msg string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == msg {
			return line
		}
	}
	t.Fatalf("ka2 serve exited without logging %q", msg)
	return ""
}

// TestServeSIGHUP changes the corpus and sends SIGHUP: the change is
// served, and /readyz names the trigger.
func TestServeSIGHUP(t *testing.T) {
	dir := t.TempDir()
	policy := func(amount int) string {
		return fmt.Sprintf("---\nsource_id: travel-v2\nversion: v2\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\n---\nThe lodging limit is %d CNY per room-night.\n", amount)
	}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(750))
	p := startProcess(t, "--corpus", dir, "--watch=false", "--settle", "0")
	post := func() string { return testutil.Post(t, "http://"+p.addr+"/v1/contract", request).Body }
	if got := post(); !strings.Contains(got, "750 CNY") {
		t.Fatalf("before: %s", got)
	}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(780))
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if line := p.waitLog(t, "corpus reloaded"); !strings.Contains(line, `"trigger":"sighup"`) {
		t.Errorf("reload log line %s does not name the trigger", line)
	}
	if got := post(); !strings.Contains(got, "780 CNY") {
		t.Fatalf("after SIGHUP: %s", got)
	}
	if body := testutil.Get(t, "http://"+p.addr+"/readyz").Body; !strings.Contains(body, `"trigger":"sighup","outcome":"ok"`) {
		t.Errorf("readyz = %s", body)
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0", code)
	}
}
