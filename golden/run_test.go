package golden_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/testutil"
)

// inSampleCopy copies the sample case set to a temporary folder "cases"
// and makes that folder's parent the working directory, so report paths
// are short and the same on every machine.
func inSampleCopy(t *testing.T) {
	t.Helper()
	src, err := filepath.Abs(sampleCases)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testutil.CopyDir(t, src, filepath.Join(dir, "cases"))
	t.Chdir(dir)
	// The explicit-contract case names the repository's definition by a
	// path relative to the sample set; point it at a copy.
	def, _ := os.ReadFile(filepath.Join(src, "..", "..", "..", "ka2-context-contract-v1.json"))
	content, _ := os.ReadFile(filepath.Join(src, "..", "..", "..", "ka2-context-content-v1.yaml"))
	testutil.WriteFile(t, "ka2-context-contract-v1.json", string(def))
	testutil.WriteFile(t, "ka2-context-content-v1.yaml", string(content))
	edit(t, "cases/trust.yaml", "contract: ../../../ka2-context-contract-v1.json", "contract: ../ka2-context-contract-v1.json")
}

func edit(t testing.TB, name, old, new string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	if err := os.WriteFile(name, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func load(t testing.TB, paths ...string) *golden.Suite {
	t.Helper()
	s, err := golden.Load(context.Background(), paths, golden.LoadOptions{})
	if err != nil {
		t.Fatalf("Load(%v): %v", paths, err)
	}
	return s
}

func run(t testing.TB, s *golden.Suite, opts golden.Options) *golden.Report {
	t.Helper()
	rep, err := golden.Run(context.Background(), s, opts)
	if err != nil {
		t.Fatalf("Run(): %v", err)
	}
	return rep
}

func jsonOf(t testing.TB, r *golden.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// breakSome makes three cases fail in three ways: a golden edited by hand,
// a missing golden, and a failed expectation.
func breakSome(t *testing.T) {
	t.Helper()
	edit(t, "cases/testdata/golden/boundaries/mid-2026.golden", "750 CNY", "700 CNY")
	if err := os.Remove("cases/testdata/golden/boundaries/mid-2025.golden"); err != nil {
		t.Fatal(err)
	}
	edit(t, "cases/trust.yaml", "sources: [rail-faq-v1]", "sources: [rail-faq-v2]")
}

func TestRunReportsAreTheSameForAnyJobs(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	s := load(t, "cases")
	want := jsonOf(t, run(t, s, golden.Options{Jobs: 1}))
	for _, jobs := range []int{2, 8, 0} {
		if diff := cmp.Diff(want, jsonOf(t, run(t, s, golden.Options{Jobs: jobs}))); diff != "" {
			t.Errorf("Run(Jobs: %d) report differs from Jobs: 1 (-want +got):\n%s", jobs, diff)
		}
	}
}

// MaxFailures stops the run: with one job, exactly the cases up to the
// limit-th failure run, and the report counts the rest as not run.
func TestRunMaxFailures(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	s := load(t, "cases")
	all := run(t, s, golden.Options{Jobs: 1})
	if all.Summary.Failed != 3 || all.Stopped != nil {
		t.Fatalf("without a limit: %d failed, stopped %v; want 3, nil", all.Summary.Failed, all.Stopped)
	}
	for _, limit := range []int{1, 2} {
		rep := run(t, s, golden.Options{Jobs: 1, MaxFailures: limit})
		// The cases before the limit-th failure, in suite order.
		ran, failed := 0, 0
		for _, f := range all.Files {
			for _, c := range f.Cases {
				if failed < limit {
					ran++
					if c.Status == golden.StatusFail {
						failed++
					}
				}
			}
		}
		want := &golden.Stopped{MaxFailures: limit, NotRun: all.Summary.Cases - ran}
		if diff := cmp.Diff(want, rep.Stopped); diff != "" {
			t.Errorf("MaxFailures %d: Stopped mismatch (-want +got):\n%s", limit, diff)
		}
		if rep.Summary.Cases != ran || rep.Summary.Failed != limit || rep.OK() {
			t.Errorf("MaxFailures %d: %d cases, %d failed, OK %v; want %d, %d, false", limit, rep.Summary.Cases, rep.Summary.Failed, rep.OK(), ran, limit)
		}
		if line := rep.SummaryLine(); !strings.Contains(line, fmt.Sprintf("; stopped at the limit of %s, %d cases not run: FAIL", map[int]string{1: "1 failure", 2: "2 failures"}[limit], want.NotRun)) {
			t.Errorf("MaxFailures %d: SummaryLine() = %q", limit, line)
		}
	}
	// A limit the run does not reach changes nothing.
	if diff := cmp.Diff(jsonOf(t, all), jsonOf(t, run(t, s, golden.Options{Jobs: 4, MaxFailures: 4}))); diff != "" {
		t.Errorf("MaxFailures 4 with 3 failures differs from no limit (-want +got):\n%s", diff)
	}
}

func TestRunUpdate(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	s := load(t, "cases")
	rep := run(t, s, golden.Options{Update: true})
	if rep.OK() {
		t.Fatal("the run passed although an expectation fails")
	}
	got := map[string]golden.State{}
	for _, f := range rep.Files {
		for _, c := range f.Cases {
			if c.State != golden.StateMatch {
				got[c.Name] = c.State
			}
		}
	}
	want := map[string]golden.State{
		"mid-2026": golden.StateUpdated,
		"mid-2025": golden.StateCreated,
		// rail-question-selects-rail-faq keeps a matching golden; only its
		// expectation fails.
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("golden states mismatch (-want +got):\n%s", diff)
	}
	// The rewritten goldens now match; the failed expectation still fails.
	rep = run(t, s, golden.Options{})
	if rep.Summary.Failed != 1 || rep.Summary.ExpectationsFailed != 1 {
		t.Errorf("after --update: %s; want exactly the failed expectation", rep.SummaryLine())
	}
	// No temporary files are left beside the goldens.
	leftovers, _ := filepath.Glob("cases/testdata/golden/*/.*")
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestRunRemovesStaleTemporaries: a writing run removes the temporary
// files a run killed mid-write (kill -9) left beside the goldens, and says
// so; a run that writes nothing leaves them.
func TestRunRemovesStaleTemporaries(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("processes cannot be looked up; nothing is removed")
	}
	inSampleCopy(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("cases/testdata/golden/boundaries/.mid-2026.golden.tmp-%d-4242", cmd.Process.Pid)
	testutil.WriteFile(t, stale, "half a golden")
	live := fmt.Sprintf("cases/testdata/golden/boundaries/.mid-2025.golden.tmp-%d-4243", os.Getpid())
	testutil.WriteFile(t, live, "a write in progress")
	s := load(t, "cases")

	rep := run(t, s, golden.Options{})
	if _, err := os.Stat(stale); err != nil || rep.StaleRemoved != nil {
		t.Fatalf("a run that writes nothing removed %v: %v", rep.StaleRemoved, err)
	}
	for _, opts := range []golden.Options{{Update: true}, {Pending: true}} {
		testutil.WriteFile(t, stale, "half a golden")
		rep = run(t, s, opts)
		if diff := cmp.Diff([]string{stale}, rep.StaleRemoved); diff != "" {
			t.Errorf("%+v: StaleRemoved mismatch (-want +got):\n%s", opts, diff)
		}
		if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%+v: the stale file is still there: %v", opts, err)
		}
		if _, err := os.Stat(live); err != nil {
			t.Errorf("%+v: the file of a live writer was removed: %v", opts, err)
		}
		var b bytes.Buffer
		if err := rep.WriteText(&b, nil); err != nil {
			t.Fatal(err)
		}
		if want := "removed stale temporary file " + stale + " (left by a run stopped while writing)\n"; !strings.Contains(b.String(), want) {
			t.Errorf("%+v: the text report does not say %q:\n%s", opts, want, b.String())
		}
	}
}

func TestRunUpdateNeverWritesAFailedExpectation(t *testing.T) {
	inSampleCopy(t)
	edit(t, "cases/trust.yaml", "sources: [rail-faq-v1]", "sources: [rail-faq-v2]")
	// The golden differs too, so --update would otherwise rewrite it.
	edit(t, "cases/testdata/golden/trust/rail-question-selects-rail-faq.golden", "Second-class", "First-class")
	before, _ := os.ReadFile("cases/testdata/golden/trust/rail-question-selects-rail-faq.golden")
	rep := run(t, load(t, "cases"), golden.Options{Update: true})
	after, _ := os.ReadFile("cases/testdata/golden/trust/rail-question-selects-rail-faq.golden")
	if !bytes.Equal(before, after) {
		t.Error("--update rewrote the golden of a case whose expectation fails")
	}
	c := findCase(t, rep, "rail-question-selects-rail-faq")
	want := golden.CaseReport{Name: c.Name, Line: c.Line, Status: golden.StatusFail, Golden: c.Golden, State: golden.StateDiffers,
		Outcome: "contract", Summary: "evidence ~rail-faq-v1:1-4 (quote line 3); budget total 1046 → 1047 (+1) of 1400", Diff: c.Diff,
		Expectations: []string{"expected sources [rail-faq-v2], selected [rail-faq-v1]"},
		Note:         "not updated: a failed expectation is never written into a golden",
		Records:      c.Records, Budget: c.Budget}
	if len(c.Records) != 1 || c.Records[0].Change != golden.RecordChanged || !slices.Equal(c.Records[0].Fields, []string{"quote"}) {
		t.Errorf("records = %+v, want one changed in its quote", c.Records)
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("case report mismatch (-want +got):\n%s", diff)
	}
}

func findCase(t *testing.T, rep *golden.Report, name string) golden.CaseReport {
	t.Helper()
	for _, f := range rep.Files {
		for _, c := range f.Cases {
			if c.Name == name {
				return c
			}
		}
	}
	t.Fatalf("no case %s in the report", name)
	return golden.CaseReport{}
}

func TestRunRefusals(t *testing.T) {
	inSampleCopy(t)
	s := load(t, "cases")
	tests := []struct {
		name    string
		opts    golden.Options
		wantErr error
		// The settings the hint names, which the CLI words as flags; the
		// message itself names none.
		wantSettings []string
	}{
		{"update on CI", golden.Options{Update: true, CI: true}, golden.ErrRefusedOnCI, []string{"update", "prune", "pending", "force"}},
		{"prune on CI", golden.Options{Prune: true, CI: true}, golden.ErrRefusedOnCI, []string{"update", "prune", "pending", "force"}},
		{"update and pending", golden.Options{Update: true, Pending: true}, golden.ErrBadOptions, []string{"update", "pending"}},
		{"update on CI with force", golden.Options{Update: true, CI: true, Force: true}, nil, nil},
		{"pending on CI", golden.Options{Pending: true, CI: true}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := golden.Run(context.Background(), s, tt.opts)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Run() error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil && rep != nil {
				t.Error("a refused run returned a report")
			}
			if diff := cmp.Diff(tt.wantSettings, diag.Settings(err)); diff != "" {
				t.Errorf("hint settings mismatch (-want +got):\n%s", diff)
			}
			if err != nil && strings.Contains(err.Error(), "--") {
				t.Errorf("Run() error %q names a flag", err)
			}
		})
	}
}

func TestRunUnreferencedAndPrune(t *testing.T) {
	inSampleCopy(t)
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/renamed-long-ago.golden", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/gone/whole-file-removed.golden.new", "{}\n")
	// A case's own pending golden is referenced; the name of another
	// folder's case is not, nor a golden's pending file with no case;
	// files that are neither goldens nor pending goldens, and folders,
	// are no goldens at all.
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/mid-2025.golden.new", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/budget/mid-2025.golden", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/budget/mid-2026.golden.new", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/notes.new", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/mid-2025.golden.new.new", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/mid-2025.goldens", "{}\n")
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/old.golden/x", "{}\n")
	s := load(t, "cases")
	want := []string{"cases/testdata/golden/boundaries/renamed-long-ago.golden",
		"cases/testdata/golden/budget/mid-2025.golden", "cases/testdata/golden/budget/mid-2026.golden.new",
		"cases/testdata/golden/gone/whole-file-removed.golden.new"}
	if diff := cmp.Diff(want, s.Unreferenced); diff != "" {
		t.Fatalf("Unreferenced mismatch (-want +got):\n%s", diff)
	}
	if rep := run(t, s, golden.Options{}); !rep.OK() || rep.Summary.Unreferenced != len(want) {
		t.Errorf("reported, not rejected: %s", rep.SummaryLine())
	}
	if rep := run(t, s, golden.Options{RejectUnreferenced: true}); rep.OK() {
		t.Errorf("--unreferenced=reject passed: %s", rep.SummaryLine())
	}
	rep := run(t, s, golden.Options{Prune: true, RejectUnreferenced: true})
	if !rep.OK() || rep.Summary.Pruned != len(want) {
		t.Errorf("--prune: %s", rep.SummaryLine())
	}
	for _, p := range want {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still exists after --prune", p)
		}
	}
	if s := load(t, "cases"); len(s.Unreferenced) != 0 {
		t.Errorf("after --prune: unreferenced %v", s.Unreferenced)
	}
}

func TestPendingAndReview(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	edit(t, "cases/trust.yaml", "sources: [rail-faq-v2]", "sources: [rail-faq-v1]")
	s := load(t, "cases")
	rep := run(t, s, golden.Options{Pending: true})
	if rep.Summary.Pending != 2 || rep.OK() {
		t.Fatalf("--pending: %s", rep.SummaryLine())
	}
	pending, err := s.Pending()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pending {
		names = append(names, p.Case.Name)
	}
	if diff := cmp.Diff([]string{"mid-2025", "mid-2026"}, names); diff != "" {
		t.Fatalf("Pending() mismatch (-want +got):\n%s", diff)
	}
	if pending[0].Old != nil || pending[1].Old == nil {
		t.Error("Old should be nil only for the missing golden")
	}
	if got := pending[1].Summary(); got != "evidence ~travel-v2:1-5 (quote line 3)" {
		t.Errorf("Summary() = %q", got)
	}
	if err := pending[0].Accept(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := pending[1].Reject(); err != nil {
		t.Fatal(err)
	}
	rep = run(t, s, golden.Options{})
	if rep.Summary.Failed != 1 || findCase(t, rep, "mid-2026").State != golden.StateDiffers {
		t.Errorf("after accepting one and rejecting one: %s", rep.SummaryLine())
	}
	if left, _ := s.Pending(); len(left) != 0 {
		t.Errorf("%d pending goldens left", len(left))
	}
}

// TestShards checks that shards cover every case exactly once, merge back
// to the unsharded report, and that adding a case moves no other case.
func TestShards(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	s := load(t, "cases")
	whole := run(t, s, golden.Options{})
	for n := 1; n <= 5; n++ {
		var reports []*golden.Report
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			r := run(t, s, golden.Options{Shard: golden.Shard{Index: k, Count: n}})
			// Round-trip through JSON, as shards hand their reports over.
			back, err := golden.ReadReport(strings.NewReader(jsonOf(t, r)))
			if err != nil {
				t.Fatal(err)
			}
			reports = append(reports, back)
			for _, f := range r.Files {
				for _, c := range f.Cases {
					seen[f.Path+" "+c.Name]++
				}
			}
		}
		for k, v := range seen {
			if v != 1 {
				t.Errorf("%d shards: case %s ran %d times", n, k, v)
			}
		}
		if len(seen) != whole.Summary.Cases {
			t.Errorf("%d shards ran %d cases, want %d", n, len(seen), whole.Summary.Cases)
		}
		slices.Reverse(reports) // the order of the files given does not matter
		merged, err := golden.Merge(reports)
		if err != nil {
			t.Fatalf("%d shards: Merge(): %v", n, err)
		}
		if diff := cmp.Diff(jsonOf(t, whole), jsonOf(t, merged)); diff != "" {
			t.Errorf("%d shards: merged report differs from the unsharded one (-want +got):\n%s", n, diff)
		}
	}

	shardOf := func(s *golden.Suite) map[string]int {
		out := map[string]int{}
		for _, c := range s.Cases {
			for k := 1; k <= 4; k++ {
				if (golden.Shard{Index: k, Count: 4}).Contains(c) {
					out[c.File+" "+c.Name] = k
				}
			}
		}
		return out
	}
	before := shardOf(s)
	f, _ := os.OpenFile("cases/boundaries.yaml", os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n  - name: added-later\n    question: One more?\n    dates: [2026-02-02]\n")
	f.Close()
	after := shardOf(load(t, "cases"))
	delete(after, "cases/boundaries.yaml added-later")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("adding a case moved others between shards (-before +after):\n%s", diff)
	}
}

// TestReadReportRefusesInvalidText checks that a report whose text
// encoding/json would turn into U+FFFD is refused, not merged changed.
func TestReadReportRefusesInvalidText(t *testing.T) {
	for _, data := range []string{`{"format": "ka2-regress-report-v1", "cases": [{"name": "\ud800"}]}`, "{\"format\": \"\xff\"}"} {
		_, err := golden.ReadReport(strings.NewReader(data))
		if err == nil || !strings.Contains(err.Error(), "invalid text in the report at 1:") {
			t.Errorf("ReadReport(%q) = %v, want an invalid-text error", data, err)
		}
	}
}

// TestReadReportRefusesRepeatedKeys: a shard whose object repeats a key is
// refused, not merged as its last value.
func TestReadReportRefusesRepeatedKeys(t *testing.T) {
	data := `{"format": "ka2-regress-report-v1", "format": "ka2-regress-report-v1", "cases": []}`
	_, err := golden.ReadReport(strings.NewReader(data))
	if err == nil || !strings.Contains(err.Error(), `the report at 1:37: a key: key "format" repeats the one at 1:2`) {
		t.Errorf("ReadReport(%q) = %v, want the repeated key", data, err)
	}
	data = `{"format": "ka2-regress-report-v1", "Format": "ka2-regress-report-v9", "cases": []}`
	if _, err := golden.ReadReport(strings.NewReader(data)); err == nil || !strings.Contains(err.Error(), `key "Format" differs only in case from "format" at 1:2`) {
		t.Errorf("ReadReport(%q) = %v, want the case-variant key", data, err)
	}
}

func TestMergeRefuses(t *testing.T) {
	inSampleCopy(t)
	s := load(t, "cases")
	shard := func(k, n int) *golden.Report {
		return run(t, s, golden.Options{Shard: golden.Shard{Index: k, Count: n}})
	}
	tests := []struct {
		name    string
		reports []*golden.Report
		want    string
	}{
		{"missing shard", []*golden.Report{shard(1, 3), shard(3, 3)}, "cannot merge reports: shard 2/3 missing: its cases would be left out of the summary"},
		{"repeated shard", []*golden.Report{shard(1, 2), shard(1, 2)}, "cannot merge reports: shard 1/2 is given twice"},
		{"different runs", []*golden.Report{shard(1, 2), shard(2, 3)}, "cannot merge reports: shard 1/2 of a 32-case suite and shard 2/3 of a 32-case suite are from different runs"},
		{"whole and shard", []*golden.Report{run(t, s, golden.Options{}), shard(1, 2)}, "cannot merge reports: an unsharded report covers the whole run; merge the reports of the runs sharded with the shard setting"},
		{"stopped shard", []*golden.Report{shard(1, 2), {Format: golden.ReportFormat, Shard: shard(2, 2).Shard, Stopped: &golden.Stopped{MaxFailures: 1, NotRun: 3}}}, "cannot merge reports: a report stopped at its limit of 1 failure with 3 cases not run, so the merged report would not hold every case; run the shards without a failure limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := golden.Merge(tt.reports)
			if !errors.Is(err, golden.ErrMerge) || err.Error() != tt.want {
				t.Errorf("Merge() error = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestReportFormats pins the text, JSON and JUnit reports of a run with a
// differing golden, a missing golden, a failed expectation and an
// unreferenced golden.
func TestReportFormats(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	testutil.WriteFile(t, "cases/testdata/golden/boundaries/renamed-long-ago.golden", "{}\n")
	rep := run(t, load(t, "cases"), golden.Options{RejectUnreferenced: true,
		Clock: stepClock(time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC), 2250*time.Millisecond),
		Info:  golden.RunInfo{Tool: golden.Tool{Version: "v1.2.3", Revision: "0123456789abcdef0123", Go: "go1.26.0"}, Host: "ci-runner-7"}})
	// The CLI's wording, as `ka2 regress` prints it.
	flag := func(setting string) string { return "--" + setting }
	var text, js, junit bytes.Buffer
	if err := rep.WriteText(&text, flag); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&junit, flag); err != nil {
		t.Fatal(err)
	}
	fixtures := goldie.New(t, goldie.WithFixtureDir(fixtureDir))
	fixtures.Assert(t, "report/text", text.Bytes())
	fixtures.Assert(t, "report/json", js.Bytes())
	fixtures.Assert(t, "report/junit", junit.Bytes())

	// The JUnit file loads as XML: one testsuite per case file (plus the
	// rejected unreferenced goldens), one testcase per case, and the diff
	// in the failure body.
	var parsed struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &parsed); err != nil {
		t.Fatalf("the JUnit report is not XML: %v", err)
	}
	var suites []string
	for _, s := range parsed.Suites {
		suites = append(suites, s.Name)
		if s.Tests != len(s.Cases) {
			t.Errorf("testsuite %s: tests=%d but %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			if c.Name == "mid-2026" && (c.Failure == nil || !strings.Contains(c.Failure.Body, "\n-                The lodging limit is 700 CNY per room-night.\\n\n+                The lodging limit is 750 CNY per room-night.\\n\n")) {
				t.Errorf("mid-2026: the failure body does not hold the diff: %+v", c.Failure)
			}
		}
	}
	wantSuites := []string{"cases/boundaries.yaml", "cases/budget.yaml", "cases/languages.yaml", "cases/overlap.yaml", "cases/trust.yaml", "unreferenced goldens"}
	if diff := cmp.Diff(wantSuites, suites); diff != "" {
		t.Errorf("testsuites mismatch (-want +got):\n%s", diff)
	}
	if parsed.Tests != 33 || parsed.Failures != 4 {
		t.Errorf("testsuites: tests=%d failures=%d, want 33 and 4", parsed.Tests, parsed.Failures)
	}
}

// fixtureDir is goldie's folder, as an absolute path, since the tests that
// use it change the working directory.
var fixtureDir = func() string {
	d, err := filepath.Abs("testdata/golden")
	if err != nil {
		panic(err)
	}
	return d
}()

// TestBuildOutcomeMatchesConfig checks that a case's build is the build
// contract.Config makes from the same settings, the road `ka2 build`
// takes (the CLI tests compare with ka2 build itself).
func TestBuildOutcomeMatchesConfig(t *testing.T) {
	s := load(t, sampleCases)
	for _, c := range s.Cases {
		b, err := c.Config.Builder()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if got, want := golden.BuildOutcome(b, c.Request()).Bytes, c.Build().Bytes; !bytes.Equal(got, want) {
			t.Errorf("%s: Config.Builder() builds other bytes:\n%s", c, golden.Diff("case", want, "config", got))
		}
	}
}

// TestExpectedErrorMismatch: a case that expects an error but gets a
// contract or another error says so, with the kind errkind's classifier
// names.
func TestExpectedErrorMismatch(t *testing.T) {
	inSampleCopy(t)
	edit(t, "cases/boundaries.yaml", "    dates: [2025-12-31]\n    expect:\n      sources: [travel-v1]",
		"    dates: [2025-12-31]\n    expect:\n      error: no_evidence")
	edit(t, "cases/boundaries.yaml", "    dates: [2026-01-01]\n    expect:\n      sources: [travel-v2]",
		"    dates: [2026-01-01]\n    capacity: 300\n    expect:\n      error: no_evidence")
	rep := run(t, load(t, "cases"), golden.Options{})
	if got := findCase(t, rep, "last-day-of-v1").Expectations; len(got) != 1 || got[0] != "expected error no_evidence, got a contract" {
		t.Errorf("last-day-of-v1 expectations = %q", got)
	}
	if got := findCase(t, rep, "first-day-of-v2").Expectations; len(got) != 1 || !strings.HasPrefix(got[0], "expected error no_evidence, got error budget_exceeded: over budget") {
		t.Errorf("first-day-of-v2 expectations = %q", got)
	}
}

func TestSuiteOnly(t *testing.T) {
	s := load(t, sampleCases)
	tests := []struct {
		name    string
		names   []string
		want    []string
		wantErr string
	}{
		{name: "one", names: []string{"mid-2026"}, want: []string{"mid-2026"}},
		{name: "in suite order", names: []string{"mid-2026", "mid-2025"}, want: []string{"mid-2025", "mid-2026"}},
		{name: "a typo", names: []string{"mid-2062"}, wantErr: `no such case: no case is named "mid-2062"; did you mean "mid-2026"?`},
		{name: "nothing close", names: []string{"zzzzzzzz"}, wantErr: `no such case: no case is named "zzzzzzzz" in these case files`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Only(tt.names)
			if tt.wantErr != "" {
				if !errors.Is(err, golden.ErrNoSuchCase) || err.Error() != tt.wantErr {
					t.Fatalf("Only() error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range got.Cases {
				names = append(names, c.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("Only() mismatch (-want +got):\n%s", diff)
			}
			if len(s.Cases) < 30 || !slices.Equal(got.Unreferenced, s.Unreferenced) {
				t.Error("Only() changed the suite it was called on, or its unreferenced goldens")
			}
		})
	}
}

// A run reads a golden in any form ka2 has written as it always did: an
// older form (compact, or indented with each text one string) matches, and
// --update rewrites it in the stored form; a golden one byte off anywhere
// (a quote, a number, white space inside a string, a line of a text) is a
// mismatch whose diff is that of what the golden pins against the build.
func TestRunGoldenForms(t *testing.T) {
	inSampleCopy(t)
	const name = "cases/testdata/golden/boundaries/mid-2026.golden"
	stored, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, golden.Pins(stored, nil)); err != nil {
		t.Fatal(err)
	}
	compact.WriteByte('\n')
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	s := string(stored)
	tests := []struct {
		name, golden string
		match        bool
	}{
		{"the stored form", s, true},
		{"compact, as ka2 build prints it", compact.String(), true},
		{"indented, each text one string", indented.String(), true},
		{"indented with tabs", strings.ReplaceAll(s, "  ", "\t"), true},
		{"a quote's word changed", strings.Replace(s, "750 CNY", "751 CNY", 1), false},
		{"a number changed", strings.Replace(s, `"line_end": 5`, `"line_end": 6`, 1), false},
		{"a number spelled otherwise", strings.Replace(s, `"line_end": 5`, `"line_end": 5.0`, 1), false},
		{"a space inside a string", strings.Replace(s, "Scope: lodging", "Scope:  lodging", 1), false},
		{"a quote mark escaped otherwise", strings.Replace(s, `"unit": "CNY`, `"unit": "\u0043NY`, 1), false},
		{"two lines of a quote joined", strings.Replace(s, "travel-v1.\",\n        \"The", "travel-v1.\\nThe", 1), true},
		{"two lines of a quote joined without the break", strings.Replace(s, "travel-v1.\",\n        \"The", "travel-v1. The", 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.golden == s && tt.name != "the stored form" {
				t.Fatal("the variant is the stored form")
			}
			if err := os.WriteFile(name, []byte(tt.golden), 0o644); err != nil {
				t.Fatal(err)
			}
			st := load(t, "cases")
			c := findCase(t, run(t, st, golden.Options{}), "mid-2026")
			if !tt.match {
				built := st.Cases[slices.IndexFunc(st.Cases, func(c *golden.Case) bool { return c.Name == "mid-2026" })].Build().Bytes
				pinned := golden.Pins([]byte(tt.golden), nil)
				if c.State != golden.StateDiffers || c.Diff != golden.Diff(c.Golden, pinned, "ka2 build", built) || c.Diff == "" {
					t.Errorf("state %s, diff:\n%s\nwant a mismatch with the diff of what the golden pins", c.State, c.Diff)
				}
				return
			}
			if c.State != golden.StateMatch {
				t.Fatalf("state %s, want a match; diff:\n%s", c.State, c.Diff)
			}
			c = findCase(t, run(t, st, golden.Options{Update: true}), "mid-2026")
			got, _ := os.ReadFile(name)
			want := golden.StateUpdated
			if tt.golden == s {
				want = golden.StateMatch
			}
			if c.State != want {
				t.Errorf("--update: state %s, want %s", c.State, want)
			}
			if !bytes.Equal(got, stored) {
				t.Errorf("--update left the golden as\n%s\nwant the stored form", got)
			}
		})
	}
}
