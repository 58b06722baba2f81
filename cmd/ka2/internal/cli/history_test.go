package cli_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/internal/gennights"
	"github.com/ka2/ka2/internal/testutil"
)

// writeSeries writes the nights of spec into dir as NIGHT.json.
func writeSeries(t *testing.T, dir string, spec gennights.Spec) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for n := range spec.Nights {
		var b bytes.Buffer
		if err := spec.Night(n).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(dir, fmt.Sprintf("%s.json", spec.Start.AddDate(0, 0, n).Format("2006-01-02"))), b.String())
	}
}

// TestReportHistory runs report history on a folder of 31 nights with a
// broken and a foreign file among them: both are named and skipped, the
// history is written, and the exit status is 2.
func TestReportHistory(t *testing.T) {
	t.Chdir(t.TempDir())
	spec := gennights.Spec{Nights: 31, Cases: 120, PerFile: 40, Start: time.Date(2026, 5, 1, 1, 30, 0, 0, time.UTC),
		Breaks: map[int]int{3: 12, 77: 29}, Flaky: map[int][]int{50: {20, 21}}}
	writeSeries(t, "nightly", spec)
	testutil.WriteFile(t, "nightly/2026-06-09.json", `{"format":"ka2-regress-report-v1","files":[`)
	testutil.WriteFile(t, "nightly/package.json", `{"name":"not-a-report","version":"1.0.0"}`)
	code, stdout, stderr := runKA2(t, "", "report", "history", "--html", "history.html", "nightly")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"skipped 2 of 33 files", "nightly/2026-06-09.json: not a ka2 regress JSON report: unexpected end of JSON input",
		`nightly/package.json: not a ka2 regress JSON report: its format is ""`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{
		"ka2 report history: 31 nights, 2026-05-01T01:30:00.000Z to 2026-05-31T01:30:00.000Z, 120 cases\n",
		"  2026-05-13T01:30:00.000Z  119/120 passed (99.17%); failing: case-00003\n",
		"  cases/suite-000.yaml case-00003: first failed 2026-05-13T01:30:00.000Z (last passed 2026-05-12T01:30:00.000Z); changed: corpus policies",
		"  cases/suite-001.yaml case-00077: first failed 2026-05-30T01:30:00.000Z",
		"flaky: failed between passes with unchanged inputs (1):\n  cases/suite-001.yaml case-00050: failed 2026-05-21T01:30:00.000Z\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	page, err := os.ReadFile("history.html")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte("<script")) || !bytes.Contains(page, []byte("<svg")) {
		t.Error("the history page has a script or no SVG chart")
	}
	// Well-formed enough for an XML reader, chart and all.
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict, dec.AutoClose, dec.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Errorf("history page: %v", err)
			}
			break
		}
	}

	// Only good files: exit 0; --html - puts the page on stdout instead.
	os.Remove("nightly/2026-06-09.json")
	os.Remove("nightly/package.json")
	code, stdout, stderr = runKA2(t, "", "report", "history", "--html", "-", "nightly")
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") || stderr != "" {
		t.Errorf("--html -: exit %d, stdout %.40q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runKA2(t, "", "report", "history", "missing")
	if code != 2 || !strings.Contains(stderr, "missing: ") {
		t.Errorf("a missing path: exit %d, %s", code, stderr)
	}
}

// TestReportHistoryCommits runs report history inside the repository the
// nights ran on: under a first failure it lists the commits between the
// last pass and the failure, newest first; run elsewhere, it lists none.
func TestReportHistoryCommits(t *testing.T) {
	t.Chdir(t.TempDir())
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-c", "user.name=Night", "-c", "user.email=night@example.com", "-c", "commit.gpgsign=false"}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "repo")
	t.Chdir("repo")
	var commits []string
	for _, msg := range []string{"policies: first import", "policies: lodging limit 750 CNY", "cases: a parking case"} {
		git("commit", "-q", "--allow-empty", "-m", msg)
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	spec := gennights.Spec{Nights: 10, Cases: 20, Start: time.Date(2026, 7, 1, 2, 0, 0, 0, time.UTC), Breaks: map[int]int{3: 5}}
	if err := os.MkdirAll("nightly", 0o755); err != nil {
		t.Fatal(err)
	}
	for n := range spec.Nights {
		r := spec.Night(n)
		r.Run.Repository.Commit = commits[0]
		if n >= 5 {
			r.Run.Repository.Commit = commits[2]
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, fmt.Sprintf("nightly/%02d.json", n), b.String())
	}
	code, stdout, stderr := runKA2(t, "", "report", "history", "--html", "h.html", "nightly")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "; failing on the last night\n    commit " + commits[2][:7] + " cases: a parking case\n    commit " + commits[1][:7] + " policies: lodging limit 750 CNY\nflaky"
	if !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks the commits %q:\n%s", want, stdout)
	}
	if page, _ := os.ReadFile("h.html"); !bytes.Contains(page, []byte("<li>"+commits[1][:7]+" policies: lodging limit 750 CNY</li>")) {
		t.Error("the page does not list the commits")
	}
	t.Chdir("..")
	_, stdout, _ = runKA2(t, "", "report", "history", "repo/nightly")
	if strings.Contains(stdout, "    commit ") {
		t.Errorf("outside the repository the history still lists commits:\n%s", stdout)
	}
}
