package cli_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
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
