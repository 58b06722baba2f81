package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/serve"
)

// auditReport runs ka2 audit with args and decodes its JSON report.
func auditReport(t *testing.T, args ...string) (serve.AuditReport, int, string) {
	t.Helper()
	f, stdout, stderr := cli.TestFactory("")
	code := cli.Run(context.Background(), f, append([]string{"audit", "--format", "json"}, args...))
	var rep serve.AuditReport
	if code == 0 || code == 1 {
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("audit %v: exit %d, stdout %q: %v; stderr %s", args, code, stdout, err, stderr)
		}
	}
	return rep, code, stderr.String()
}

// TestServeDecisionLogAudit serves a corpus that is a git checkout with
// --decision-log, commits a change, rotates the log (rename, SIGHUP) and
// serves again, then audits both files: each decision against the commit
// it records reproduces; against the folder as it is now exactly the
// decisions made before the change are named, as corpus_changed; after an
// edit nobody committed, the decisions made from it name no revision.
func TestServeDecisionLogAudit(t *testing.T) {
	repo := t.TempDir()
	dir := filepath.Join(repo, "policies")
	policy := func(amount int) string {
		return fmt.Sprintf("---\nsource_id: travel-v2\nversion: v2\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\n---\nThe lodging limit is %d CNY per room-night.\n", amount)
	}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(750))
	testutil.WriteFile(t, filepath.Join(dir, "rail.md"), "---\nsource_id: rail-v1\nversion: v1\nsubjects: [rail]\nvalid_from: 2026-01-01\nlang: en\n---\nSecond class on trains under four hours.\n")
	testutil.Git(t, "-C", repo, "init", "-q")
	testutil.Git(t, "-C", repo, "add", ".")
	testutil.Git(t, "-C", repo, "commit", "-q", "-m", "first")
	logFile := filepath.Join(t.TempDir(), "decisions.log")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hup := make(chan os.Signal)
	f, _, _ := cli.TestFactory("")
	f.ErrOut = io.Discard
	f.Listen = func(string) (net.Listener, error) { return ln, nil }
	f.Hangup = func() (<-chan os.Signal, func()) { return hup, func() {} }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, f, []string{"serve", "--corpus", dir, "--watch=false", "--settle", "0", "--decision-log", logFile})
	}()
	url := "http://" + ln.Addr().String()
	ask := func(subject string) string {
		resp, err := http.Post(url+"/v1/contract", "application/json", strings.NewReader(fmt.Sprintf(`{"subject":%q,"dates":["2026-09-14"],"question":"What applies?"}`, subject)))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Header.Get(serve.DecisionHeader)
	}
	hangup := func() {
		// serve takes the next value only once it handled the one before.
		hup <- syscall.SIGHUP
		hup <- syscall.SIGHUP
	}
	before := []string{ask("lodging"), ask("rail"), ask("lodging")}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(780))
	testutil.Git(t, "-C", repo, "commit", "-q", "-a", "-m", "raise the limit")
	if err := os.Rename(logFile, logFile+".1"); err != nil {
		t.Fatal(err)
	}
	hangup()
	after := []string{ask("lodging"), ask("rail")}
	testutil.WriteFile(t, filepath.Join(dir, "travel.md"), policy(800)) // not committed
	hangup()
	uncommitted := ask("lodging")
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	if got := decisionIDs(t, logFile+".1"); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("the rotated log holds %v, want %v", got, before)
	}
	if got := decisionIDs(t, logFile); strings.Join(got, " ") != strings.Join(append(after, uncommitted), " ") {
		t.Errorf("the new log holds %v, want %v", got, append(after, uncommitted))
	}

	// Each against its own commit: the first file is clean.
	if rep, code, stderr := auditReport(t, logFile+".1", "--corpus", dir, "--each-revision"); code != 0 || rep.Reproduced != 3 {
		t.Errorf("--each-revision: exit %d, %+v %s", code, rep, stderr)
	}
	// The second file: the uncommitted edit's decision has no revision.
	rep, code, _ := auditReport(t, logFile, "--corpus", dir, "--each-revision")
	if code != 1 || rep.Reproduced != 2 || len(rep.Differ) != 1 || rep.Differ[0].ID != uncommitted || rep.Differ[0].Reason != serve.ReasonUnknownRevision {
		t.Errorf("--each-revision after an uncommitted edit: exit %d, %+v", code, rep)
	}
	// Against the commit of the change: the lodging answers from before
	// it differ, the rail one does not.
	rep, code, _ = auditReport(t, logFile+".1", "--corpus", dir, "--revision", "HEAD")
	if code != 1 || rep.Reproduced != 1 || len(rep.Differ) != 2 || rep.Differ[0].ID != before[0] || rep.Differ[1].ID != before[2] || rep.Differ[0].Reason != serve.ReasonCorpusChanged {
		t.Errorf("--revision HEAD: exit %d, %+v", code, rep)
	}
	// Against the folder now (800): every lodging answer differs.
	rep, code, _ = auditReport(t, logFile, "--corpus", dir)
	if code != 1 || rep.Reproduced != 2 || len(rep.Differ) != 1 || rep.Differ[0].ID != after[0] {
		t.Errorf("the folder now: exit %d, %+v", code, rep)
	}
	// Another server's settings: the same corpus, another answer.
	rep, code, _ = auditReport(t, logFile, "--corpus", dir, "--lang", "zh")
	if code != 1 || len(rep.Differ) != 3 || rep.Differ[2].Reason != serve.ReasonNotReproducible {
		t.Errorf("--lang zh: exit %d, %+v", code, rep)
	}
	// A revision git does not have is a usage error.
	if _, code, stderr := auditReport(t, logFile, "--corpus", dir, "--revision", "no-such-branch"); code != 2 || !strings.Contains(stderr, "no-such-branch") {
		t.Errorf("--revision no-such-branch: exit %d, %s", code, stderr)
	}
}

// decisionIDs lists the ids of a decision log's lines.
func decisionIDs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var d serve.Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		ids = append(ids, d.ID)
	}
	return ids
}

// TestAuditText prints each finding on a line with the log's name and
// line number, then a summary; a line that is not a decision is
// malformed.
func TestAuditText(t *testing.T) {
	log := filepath.Join(t.TempDir(), "d.log")
	testutil.WriteFile(t, log, `{"id":"x-1","endpoint":"contract","status":503,"outcome":"error","error_kind":"overloaded","answer_sha256":"00","corpus":{"digest":"ab","generation":1}}
{"time":"2026-09-14T09:00:00Z","dropped":4,"corpus":{"digest":"","generation":0},"id":"","endpoint":"","status":0,"outcome":"","answer_sha256":""}
{"id":"x-2","endpoint":"contra
`)
	f, stdout, _ := cli.TestFactory("")
	code := cli.Run(context.Background(), f, []string{"audit", log})
	want := fmt.Sprintf(`%[1]s:3: malformed: not a decision: unexpected end of JSON input
%[1]s:1: unchecked: x-1 contract: not_built: the answer (503 overloaded) did not come from a build
%[1]s: 1 decision: 0 reproduced, 1 differ, 1 unchecked, 4 dropped by the server
`, filepath.ToSlash(log))
	if code != 1 || stdout.String() != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, want)
	}
}

// TestServeDecisionLogStderr: --decision-log - writes the lines to
// standard error, beside the log records, each whole on its line.
func TestServeDecisionLogStderr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, _, stderr := cli.TestFactory("")
	f.Listen = func(string) (net.Listener, error) { return ln, nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, f, []string{"serve", "--log-format", "json", "--watch=false", "--decision-log", "-", "--decision-log-requests", "digest"})
	}()
	resp, err := http.Post("http://"+ln.Addr().String()+"/v1/contract", "application/json",
		strings.NewReader(`{"subject":"lodging","dates":["2026-09-14"],"question":"What is the limit?"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	// The server is done: stderr is no longer written.
	var lines []serve.Decision
	for line := range strings.SplitSeq(strings.TrimSpace(stderr.String()), "\n") {
		var d serve.Decision
		if json.Unmarshal([]byte(line), &d) == nil && d.ID != "" {
			lines = append(lines, d)
		}
	}
	if len(lines) != 1 || lines[0].ID != resp.Header.Get(serve.DecisionHeader) || lines[0].Request != nil || lines[0].RequestSHA256 == "" {
		t.Errorf("decision lines %+v on stderr:\n%s", lines, stderr)
	}
}
