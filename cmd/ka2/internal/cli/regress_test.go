package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/testutil"
)

// regressResult is one ka2 invocation.
type regressResult struct {
	stdout, stderr string
	code           int
}

// regressCLI runs one command line through cli.Run with in as standard input.
func regressCLI(t *testing.T, in string, args ...string) regressResult {
	t.Helper()
	code, stdout, stderr := runKA2(t, in, args...)
	return regressResult{stdout, stderr, code}
}

// want checks the exit code, printing the streams when it differs.
func (r regressResult) want(t *testing.T, code int) regressResult {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	return r
}

// lastLine is the summary line of a report.
func (r regressResult) lastLine() string {
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	return lines[len(lines)-1]
}

// setupRegressFixture writes the regress fixture into a temporary working directory,
// clears CI, and writes the goldens.
func setupRegressFixture(t *testing.T) {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/regress.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		testutil.WriteFile(t, filepath.Join(dir, f.Name), string(f.Data))
	}
	t.Chdir(dir)
	t.Setenv("CI", "")
	r := regressCLI(t, "", "regress", "--update", "cases").want(t, 0)
	if got, want := r.lastLine(), "ka2 regress: 7 cases, 7 passed, 0 failed; 0 goldens updated, 7 created: ok"; got != want {
		t.Fatalf("first --update: %s, want %s", got, want)
	}
}

const firstFreeDay = "cases/testdata/golden/parking/parking-first-free-day.golden"

func TestRegressFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    cli.RegressOptions
		wantErr string
	}{
		{"defaults", []string{"cases"}, cli.RegressOptions{Paths: []string{"cases"}, Unreferenced: "report", Format: "text", Color: "auto"}, ""},
		{"everything", []string{"--jobs", "3", "--pending", "--unreferenced=reject", "--format", "junit", "--report", "r.xml", "--shard", "2/4", "--max-failures", "5", "--quiet", "--color", "never", "a", "b.yaml"},
			cli.RegressOptions{Paths: []string{"a", "b.yaml"}, Jobs: 3, Pending: true, Unreferenced: "reject", Format: "junit", Reports: []string{"r.xml"}, Shard: "2/4", MaxFailures: 5, Quiet: true, Color: "never"}, ""},
		{"update with force and prune", []string{"--update", "--force", "--prune", "-q", "cases"},
			cli.RegressOptions{Paths: []string{"cases"}, Update: true, Force: true, Prune: true, Unreferenced: "report", Format: "text", Quiet: true, Color: "auto"}, ""},
		{"no folder", nil, cli.RegressOptions{}, "name the case files or folders, e.g. ka2 regress cases, or set cases: in ka2.yaml"},
		{"bad format", []string{"--format", "xml", "c"}, cli.RegressOptions{}, `invalid argument "xml" for "--format" flag: invalid value "xml" for --format: want one of text, json, junit, html`},
		{"bad unreferenced", []string{"--unreferenced", "ignore", "c"}, cli.RegressOptions{}, `invalid argument "ignore" for "--unreferenced" flag: invalid value "ignore" for --unreferenced: want one of report, reject`},
		{"update and pending", []string{"--update", "--pending", "c"}, cli.RegressOptions{}, "--update and --pending: choose one (--update writes goldens, --pending writes NAME.golden.new for review)"},
		{"force alone", []string{"--force", "c"}, cli.RegressOptions{}, "--force only applies with --update or --prune"},
		{"bad shard", []string{"--shard", "5/4", "c"}, cli.RegressOptions{}, `--shard: shard "5/4": write K/N with 1 ≤ K ≤ N, e.g. 2/4 for the second of four`},
		{"negative jobs", []string{"--jobs", "-1", "c"}, cli.RegressOptions{}, "--jobs -1: must not be negative (0 means all cores)"},
		{"negative max failures", []string{"--max-failures", "-1", "c"}, cli.RegressOptions{}, "--max-failures -1: must not be negative (0 means no limit)"},
		{"bad color", []string{"--color", "yes", "c"}, cli.RegressOptions{}, `invalid argument "yes" for "--color" flag: invalid value "yes" for --color: want one of auto, always, never`},
		{"several reports", []string{"--report", "junit=j.xml", "--report", "html=out/r.html", "--report", "plain.json", "--no-host", "c"},
			cli.RegressOptions{Paths: []string{"c"}, Unreferenced: "report", Format: "text", Reports: []string{"junit=j.xml", "html=out/r.html", "plain.json"}, NoHost: true, Color: "auto"}, ""},
		{"report format without a file", []string{"--report", "junit=", "c"}, cli.RegressOptions{}, `--report "junit=": name a file, e.g. --report junit=ka2.xml (- for standard output)`},
		{"two reports on stdout", []string{"--report", "json=-", "--report", "-", "c"}, cli.RegressOptions{}, "--report: only one report can go to standard output (-)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(cli.NewCmdRegress, tt.args)
			if flagsFailed(t, err, tt.wantErr, false) {
				return
			}
			if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreUnexported(cli.RegressOptions{})); diff != "" {
				t.Errorf("RegressOptions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegressAllPass(t *testing.T) {
	setupRegressFixture(t)
	r := regressCLI(t, "", "regress", "cases").want(t, 0)
	if r.stdout != "ka2 regress: 7 cases, 7 passed, 0 failed: ok\n" || r.stderr != "" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
}

func TestRegressEditedGoldenThenUpdate(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	r := regressCLI(t, "", "regress", "cases").want(t, 1)
	for _, want := range []string{
		"FAIL cases/parking.yaml:18 parking-first-free-day (golden differs)\n",
		"    evidence ~parking-v2:1-3 (quote line 2); budget total 994 → 991 (-3) of 1400\n",
		"    --- cases/testdata/golden/parking/parking-first-free-day.golden\n    +++ ka2 build\n",
		// The quote diffed by the lines it quotes: only the changed one.
		"           \"quote\": \"Scope: parking at the Shanghai office.\\n\n" +
			"    -                Parking in the basement is free for everyone from 2026.\\n\n" +
			"    +                Parking in the basement is free for staff from 2026.\\n\n" +
			"                     Visitors pay 10 CNY per day.\"\n",
		"ka2 regress: 7 cases, 6 passed, 1 failed (1 differ, 0 missing, 0 with failed expectations): FAIL\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	r = regressCLI(t, "", "regress", "--update", "cases").want(t, 0)
	if !strings.Contains(r.stdout, "UPDATED cases/parking.yaml:18 parking-first-free-day\n    evidence ~parking-v2:1-3 (quote line 2)") ||
		!strings.Contains(r.stdout, "    wrote "+firstFreeDay+"\n") {
		t.Errorf("--update does not say what it changed:\n%s", r.stdout)
	}
	regressCLI(t, "", "regress", "cases").want(t, 0)
}

func TestRegressMissingGolden(t *testing.T) {
	setupRegressFixture(t)
	os.Remove(firstFreeDay)
	r := regressCLI(t, "", "regress", "cases").want(t, 1)
	want := "FAIL cases/parking.yaml:18 parking-first-free-day (golden missing)\n" +
		"    no golden yet; the build gives a contract with evidence [parking-v2:1-3], total 991 of 1400\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
}

func TestRegressStaleGolden(t *testing.T) {
	setupRegressFixture(t)
	// The case is renamed: its old golden is left behind.
	testutil.ReplaceInFile(t, "cases/parking.yaml", "name: parking-compare", "name: parking-2025-vs-2026")
	r := regressCLI(t, "", "regress", "cases").want(t, 1) // the renamed case has no golden yet
	if !strings.Contains(r.stdout, "unreferenced golden cases/testdata/golden/parking/parking-compare.golden\n") {
		t.Errorf("the stale golden is not reported:\n%s", r.stdout)
	}
	regressCLI(t, "", "regress", "--update", "cases").want(t, 0)
	r = regressCLI(t, "", "regress", "--unreferenced=reject", "cases").want(t, 1)
	if !strings.Contains(r.stdout, "FAIL unreferenced golden cases/testdata/golden/parking/parking-compare.golden\n") {
		t.Errorf("reject does not name the stale golden:\n%s", r.stdout)
	}
	regressCLI(t, "", "regress", "cases").want(t, 0) // reported, not rejected
	r = regressCLI(t, "", "regress", "--prune", "--unreferenced=reject", "cases").want(t, 0)
	if !strings.Contains(r.stdout, "pruned cases/testdata/golden/parking/parking-compare.golden\n") {
		t.Errorf("--prune does not say what it deleted:\n%s", r.stdout)
	}
	if _, err := os.Stat("cases/testdata/golden/parking/parking-compare.golden"); err == nil {
		t.Error("--prune left the stale golden")
	}
	regressCLI(t, "", "regress", "--unreferenced=reject", "cases").want(t, 0)
}

func TestRegressUpdateKeepsFailedExpectation(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, "cases/parking.yaml", "sources: [parking-v2]\n", "sources: [parking-v1]\n")
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for nobody")
	before, _ := os.ReadFile(firstFreeDay)
	r := regressCLI(t, "", "regress", "--update", "cases").want(t, 1)
	for _, want := range []string{
		"FAIL cases/parking.yaml:18 parking-first-free-day (golden differs)\n",
		"    expectation failed: expected sources [parking-v1], selected [parking-v2]\n",
		"    not updated: a failed expectation is never written into a golden\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if after, _ := os.ReadFile(firstFreeDay); !bytes.Equal(before, after) {
		t.Error("--update wrote the golden of a case whose expectation fails")
	}
	r = regressCLI(t, "", "regress", "cases").want(t, 1)
	if !strings.Contains(r.stdout, "expectation failed") {
		t.Errorf("the failed expectation disappeared:\n%s", r.stdout)
	}
}

func TestRegressJobsGiveIdenticalReports(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	os.Remove("cases/equipment/testdata/golden/laptops/laptop-now.golden")
	for _, format := range []string{"text", "json", "junit"} {
		one := regressCLI(t, "", "regress", "--jobs", "1", "--format", format, "cases").want(t, 1)
		eight := regressCLI(t, "", "regress", "--jobs", "8", "--format", format, "cases").want(t, 1)
		if diff := cmp.Diff(one.stdout, eight.stdout); diff != "" {
			t.Errorf("--format %s: --jobs 1 and --jobs 8 differ (-1 +8):\n%s", format, diff)
		}
	}
}

func TestRegressShardsMergeToTheUnshardedReport(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	whole := regressCLI(t, "", "regress", "--format", "json", "cases").want(t, 1)
	const n = 3
	var files []string
	seen := map[string]int{}
	for k := 1; k <= n; k++ {
		name := "shard-" + strconv.Itoa(k) + ".json"
		r := regressCLI(t, "", "regress", "--shard", strconv.Itoa(k)+"/"+strconv.Itoa(n), "--format", "json", "--report", name, "cases")
		if r.code != 0 && r.code != 1 {
			r.want(t, 1)
		}
		if !strings.Contains(r.lastLine(), "shard "+strconv.Itoa(k)+"/3 of 7 cases") {
			t.Errorf("shard %d console summary: %s", k, r.lastLine())
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := golden.ReadReport(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Files {
			for _, c := range f.Cases {
				seen[f.Path+" "+c.Name]++
			}
		}
		files = append(files, name)
	}
	if len(seen) != 7 {
		t.Errorf("the shards ran %d distinct cases, want 7: %v", len(seen), seen)
	}
	for c, times := range seen {
		if times != 1 {
			t.Errorf("case %s ran in %d shards", c, times)
		}
	}
	merged := regressCLI(t, "", append([]string{"report", "merge", "--format", "json", "--junit", "merged.xml"}, files...)...).want(t, 1)
	if diff := cmp.Diff(whole.stdout, merged.stdout); diff != "" {
		t.Errorf("merged shards differ from the unsharded report (-whole +merged):\n%s", diff)
	}
	data, err := os.ReadFile("merged.xml")
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &junit); err != nil {
		t.Fatalf("merged JUnit is not XML: %v", err)
	}
	if junit.Tests != 7 || junit.Failures != 1 || len(junit.Suites) != 2 {
		t.Errorf("merged JUnit: %+v", junit)
	}
	// --report as regress has it: the file in --format, text on the
	// console; the same JUnit as the older --junit.
	viaReport := regressCLI(t, "", append([]string{"report", "merge", "--format", "junit", "--report", "merged2.xml"}, files...)...).want(t, 1)
	if data2, err := os.ReadFile("merged2.xml"); err != nil || !bytes.Equal(data, data2) {
		t.Errorf("report merge --report merged2.xml wrote %q, %v; want the --junit file", data2, err)
	}
	if got := viaReport.lastLine(); !strings.HasPrefix(got, "ka2 regress: 7 cases") {
		t.Errorf("report merge --report: console shows %q, want the text report", got)
	}
	text := regressCLI(t, "", append([]string{"report", "merge"}, files...)...).want(t, 1)
	if got := text.lastLine(); got != "ka2 regress: 7 cases, 6 passed, 1 failed (1 differ, 0 missing, 0 with failed expectations): FAIL" {
		t.Errorf("merged summary: %s", got)
	}
	r := regressCLI(t, "", "report", "merge", files[0], files[2]).want(t, 2)
	if r.stderr != "ka2: cannot merge reports: shard 2/3 missing: its cases would be left out of the summary\n" {
		t.Errorf("missing shard: %q", r.stderr)
	}
}

func TestRegressReportFile(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	r := regressCLI(t, "", "regress", "--format", "junit", "--report", "out/junit.xml", "cases")
	if r.code != 2 || !strings.Contains(r.stderr, "--report: write out/junit.xml") {
		t.Errorf("a report into a missing folder: exit %d, stderr %q", r.code, r.stderr)
	}
	r = regressCLI(t, "", "regress", "--format", "junit", "--report", "junit.xml", "cases").want(t, 1)
	if !strings.HasPrefix(r.stdout, "FAIL cases/parking.yaml:18") {
		t.Errorf("the console should show text beside --report:\n%s", r.stdout)
	}
	data, err := os.ReadFile("junit.xml")
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &junit); err != nil {
		t.Fatalf("junit.xml is not XML: %v", err)
	}
	var names []string
	for _, s := range junit.Suites {
		names = append(names, s.Name)
		for _, c := range s.Cases {
			if c.Name == "parking-first-free-day" && (c.Failure == nil || !strings.Contains(c.Failure.Body, "+++ ka2 build")) {
				t.Errorf("the failure body lacks the diff: %+v", c.Failure)
			}
		}
	}
	if diff := cmp.Diff([]string{"cases/equipment/laptops.yaml", "cases/parking.yaml"}, names); diff != "" {
		t.Errorf("testsuites mismatch (-want +got):\n%s", diff)
	}
}

func TestRegressOnCI(t *testing.T) {
	setupRegressFixture(t)
	t.Setenv("CI", "true")
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	r := regressCLI(t, "", "regress", "--update", "cases").want(t, 2)
	// The library's hint names settings; the CLI words them as its flags.
	if !strings.HasPrefix(r.stderr, "ka2: refusing to write goldens on CI: ") ||
		!strings.Contains(r.stderr, "; run --update (or --prune) locally and commit the goldens, use --pending to keep the new output for review, or pass --force if") {
		t.Errorf("stderr %q", r.stderr)
	}
	// Without --update, a differing case may leave a pending golden.
	r = regressCLI(t, "", "regress", "--pending", "cases").want(t, 1)
	if !strings.Contains(r.stdout, "    pending "+firstFreeDay+".new (accept with ka2 review)\n") {
		t.Errorf("no pending golden reported:\n%s", r.stdout)
	}
	regressCLI(t, "", "regress", "--update", "--force", "cases").want(t, 0)
	t.Setenv("CI", "false")
	regressCLI(t, "", "regress", "--update", "cases").want(t, 0)
}

func TestReview(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	testutil.ReplaceInFile(t, "cases/testdata/golden/parking/parking-2025.golden", "20 CNY", "25 CNY")
	os.Remove("cases/equipment/testdata/golden/laptops/laptop-now.golden")
	regressCLI(t, "", "regress", "--pending", "cases").want(t, 1)

	// Answers: accept the first, a typo then reject the second, end of
	// input before the third.
	r := regressCLI(t, "y\nmaybe\nn\n", "review", "cases").want(t, 0)
	for _, want := range []string{
		"[1/3] cases/equipment/laptops.yaml:5 laptop-now\n    no golden yet; the build gives a contract with evidence [laptops:1-2], total 920 of 1400\n",
		"    accepted: wrote cases/equipment/testdata/golden/laptops/laptop-now.golden\n",
		"[2/3] cases/parking.yaml:6 parking-2025\n    evidence ~parking-v1:1-2 (quote line 2)\n",
		"accept? [y]es, [n]o, [s]kip, [q]uit: accept? [y]es, [n]o, [s]kip, [q]uit:     rejected: deleted cases/testdata/golden/parking/parking-2025.golden.new\n",
		"[3/3] cases/parking.yaml:18 parking-first-free-day\n",
		"    stopped\nka2 review: 1 accepted, 1 rejected, 1 left pending\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("review output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = regressCLI(t, "", "review", "--accept-all", "cases").want(t, 0)
	if !strings.HasSuffix(r.stdout, "ka2 review: 1 accepted, 0 rejected, 0 left pending\n") {
		t.Errorf("--accept-all:\n%s", r.stdout)
	}
	// parking-2025's hand edit was rejected, so only it still differs.
	r = regressCLI(t, "", "regress", "cases").want(t, 1)
	if !strings.Contains(r.lastLine(), "7 cases, 6 passed, 1 failed (1 differ") {
		t.Errorf("after review: %s", r.lastLine())
	}
	regressCLI(t, "", "regress", "--pending", "cases").want(t, 1)
	r = regressCLI(t, "", "review", "--reject-all", "cases").want(t, 0)
	if !strings.HasSuffix(r.stdout, "ka2 review: 0 accepted, 1 rejected, 0 left pending\n") {
		t.Errorf("--reject-all:\n%s", r.stdout)
	}
	r = regressCLI(t, "", "review", "cases").want(t, 0)
	if r.stdout != "ka2 review: no pending goldens (ka2 regress --pending writes them)\n" {
		t.Errorf("nothing pending: %q", r.stdout)
	}
	regressCLI(t, "", "review", "--accept-all", "--reject-all", "cases").want(t, 2)
}

func TestRegressBrokenCaseFiles(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, "cases/parking.yaml", "    dates: [2025-12-31]\n", "    dats: [2025-12-31]\n")
	testutil.ReplaceInFile(t, "cases/equipment/laptops.yaml", "corpus: ../../policies", "corpus: ../../no-such-folder")
	r := regressCLI(t, "", "regress", "cases").want(t, 2)
	want := "ka2: cases/equipment/laptops.yaml:2:11: corpus no-such-folder cannot be loaded:\n" +
		"\topen corpus: open no-such-folder: no such file or directory; check the folder the corpus setting names; fix the corpus (ka2 lint shows its problems), or the corpus path, which is relative to the case file\n" +
		"cases/parking.yaml:12:5: case parking-last-paid-day has no dates; list the dates asked about, e.g. dates: [2026-09-14]\n" +
		"cases/parking.yaml:14:5: unknown key \"dats\" in a case; did you mean dates?\n"
	if diff := cmp.Diff(want, r.stderr); diff != "" {
		t.Errorf("stderr mismatch (-want +got):\n%s", diff)
	}
	if r.stdout != "" {
		t.Errorf("a broken suite ran cases:\n%s", r.stdout)
	}
}

// TestImpact moves parking-v1's valid_until by one day: the case asking
// about that day gains a record, and every case quoting parking-v1 changes
// too, since each record carries its source's validity.
func TestImpact(t *testing.T) {
	setupRegressFixture(t)
	if err := os.CopyFS("policies-new", os.DirFS("policies")); err != nil {
		t.Fatal(err)
	}
	testutil.ReplaceInFile(t, "policies-new/parking-v1.md", "valid_until: 2026-01-01", "valid_until: 2026-01-02")
	r := regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies-new", "--base", "policies").want(t, 1)
	want := `CHANGED cases/parking.yaml:6 parking-2025
    evidence ~parking-v1:1-2 (valid_until 2026-01-01 → 2026-01-02)
    caused by parking-v1.md
CHANGED cases/parking.yaml:12 parking-last-paid-day
    evidence ~parking-v1:1-2 (valid_until 2026-01-01 → 2026-01-02)
    caused by parking-v1.md
CHANGED cases/parking.yaml:18 parking-first-free-day
    evidence +parking-v1:1-2; budget total 991 → 1234 (+243) of 1400
    caused by parking-v1.md
CHANGED cases/parking.yaml:24 parking-compare
    evidence ~parking-v1:1-2 (valid_until 2026-01-01 → 2026-01-02)
    caused by parking-v1.md
changed corpus files:
    modified parking-v1.md
ka2 impact: 7 cases, 4 changed by 1 changed file
`
	if diff := cmp.Diff(want, r.stdout); diff != "" {
		t.Errorf("impact mismatch (-want +got):\n%s", diff)
	}
	r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies", "--base", "policies").want(t, 0)
	if r.stdout != "ka2 impact: 7 cases, 0 changed by 0 changed files\n" {
		t.Errorf("no change: %q", r.stdout)
	}
	regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies").want(t, 2)
	r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies-new", "--base", "policies", "--format", "json").want(t, 1)
	if !strings.Contains(r.stdout, `"caused_by": [`+"\n"+`        "parking-v1.md"`) {
		t.Errorf("json: %s", r.stdout)
	}
}

// TestImpactBaseRef compares the work tree's corpus with a commit, in a
// throwaway git repository.
func TestImpactBaseRef(t *testing.T) {
	setupRegressFixture(t)
	git := func(args ...string) { t.Helper(); testutil.Git(t, args...) }
	git("init", "-q", ".")
	git("add", "policies")
	git("commit", "-q", "-m", "policies")
	testutil.ReplaceInFile(t, "policies/parking-v1.md", "valid_until: 2026-01-01", "valid_until: 2026-01-02")
	r := regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies", "--base-ref", "HEAD").want(t, 1)
	if !strings.Contains(r.stdout, "CHANGED cases/parking.yaml:18 parking-first-free-day\n") || !strings.Contains(r.stdout, "    caused by parking-v1.md\n") {
		t.Errorf("impact --base-ref:\n%s", r.stdout)
	}
	r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies", "--base-ref", "no-such-ref").want(t, 2)
	if !strings.Contains(r.stderr, "--base-ref no-such-ref: not a commit") || r.stdout != "" {
		t.Errorf("bad ref: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	// A revision git would read as an option is refused before git runs:
	// --output=FILE once made git archive overwrite FILE.
	testutil.WriteFile(t, "victim.txt", "keep me\n")
	for _, arg := range [][]string{{"--base-ref=--output=victim.txt"}, {"--base-ref", "--output=victim.txt"}, {"--base-ref=-h"}} {
		r = regressCLI(t, "", append([]string{"impact", "--cases", "cases", "--corpus", "policies"}, arg...)...).want(t, 2)
		if !strings.Contains(r.stderr, "a git revision cannot start with '-'") || r.stdout != "" {
			t.Errorf("%q: stdout %q, stderr %q", arg, r.stdout, r.stderr)
		}
		if got, err := os.ReadFile("victim.txt"); err != nil || string(got) != "keep me\n" {
			t.Fatalf("%q: victim.txt = %q, %v; want it untouched", arg, got, err)
		}
	}

	// A corpus folder whose name is not ASCII is read at the revision too.
	if err := os.Rename("policies", "住宿"); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "rename")
	r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "住宿", "--base-ref", "HEAD").want(t, 0)
	if r.stdout != "ka2 impact: 7 cases, 0 changed by 0 changed files\n" {
		t.Errorf("non-ASCII folder: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	// A policy file over the cap at the revision is refused by its size
	// in git's listing, before anything is read; a large file that is not
	// a policy is never read.
	testutil.WriteFile(t, "住宿/asset.bin", strings.Repeat("x", inputfile.MaxSize+1))
	git("add", "-A")
	git("commit", "-q", "-m", "asset")
	regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "住宿", "--base-ref", "HEAD").want(t, 0)
	testutil.WriteFile(t, "住宿/big.md", strings.Repeat("x", inputfile.MaxSize+1))
	git("add", "-A")
	git("commit", "-q", "-m", "big")
	if err := os.Remove("住宿/big.md"); err != nil { // gone from the work tree, so only the base has it
		t.Fatal(err)
	}
	r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "住宿", "--base-ref", "HEAD").want(t, 2)
	if want := "--base-ref HEAD: 住宿/big.md at that revision: it is larger than 4 MiB, the most ka2 reads from one file"; !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("file over the cap: stdout %q, stderr %q; want %q", r.stdout, r.stderr, want)
	}
}

// TestImpactBaseRefLinks reads, at the base revision, a corpus folder
// with symbolic links as corpus.Load reads it on disk: a link to a folder
// (current -> .v1, followed because the walk skips .v1 where it is) and a
// policy file that is a link. An unchanged tree changes nothing; a link
// that leaves the folder at the base revision is reported as on disk.
func TestImpactBaseRefLinks(t *testing.T) {
	setupRegressFixture(t)
	for old, new := range map[string]string{"policies/parking-v2.md": "policies/.v1/parking-v2.md", "policies/laptops.md": "policies/.v1/laptops.md", "policies/parking-v1.md": "policies/.archive/parking-v1.txt"} {
		if err := os.MkdirAll(filepath.Dir(new), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(old, new); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"policies/current": ".v1", "policies/parking-v1.md": ".archive/parking-v1.txt"} {
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	git := func(args ...string) { t.Helper(); testutil.Git(t, args...) }
	git("init", "-q", ".")
	git("add", "policies")
	git("commit", "-q", "-m", "policies")
	r := regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies", "--base-ref", "HEAD").want(t, 0)
	if r.stdout != "ka2 impact: 7 cases, 0 changed by 0 changed files\n" {
		t.Errorf("unchanged tree with links: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	regressCLI(t, "", "lint", "--today", "2026-06-01", "--changed-since", "HEAD", "policies").want(t, 0)
	testutil.ReplaceInFile(t, "policies/.archive/parking-v1.txt", "valid_until: 2026-01-01", "valid_until: 2026-01-02")
	r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies", "--base-ref", "HEAD").want(t, 1)
	if !strings.Contains(r.stdout, "CHANGED cases/parking.yaml:18 parking-first-free-day\n") || !strings.Contains(r.stdout, "    caused by parking-v1.md\n") {
		t.Errorf("impact --base-ref, a file changed behind a link:\n%s", r.stdout)
	}

	// Only the base revision has each link: one that leaves the folder,
	// reported as on disk, and one to a file over the cap, refused by its
	// size in git's listing as a policy file is.
	testutil.WriteFile(t, "policies/.archive/big.txt", strings.Repeat("x", inputfile.MaxSize+1))
	for _, tt := range []struct{ link, target, want string }{
		{"policies/out.md", "../cases/parking.yaml", "--base-ref HEAD: corpus policies/ at that revision: out.md: symbolic link leads outside the corpus root, or to nothing"},
		{"policies/big.md", ".archive/big.txt", "--base-ref HEAD: policies/.archive/big.txt at that revision: it is larger than 4 MiB, the most ka2 reads from one file"},
	} {
		if err := os.Symlink(tt.target, tt.link); err != nil {
			t.Fatal(err)
		}
		git("add", "policies")
		git("commit", "-q", "-m", tt.link)
		if err := os.Remove(tt.link); err != nil {
			t.Fatal(err)
		}
		r = regressCLI(t, "", "impact", "--cases", "cases", "--corpus", "policies", "--base-ref", "HEAD").want(t, 2)
		if !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%s -> %s at the base revision: stdout %q, stderr %q; want %q", tt.link, tt.target, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestGoldensAreBuildOutput checks that every golden of the project's
// sample and typed-context case sets holds what `ka2 build` prints for the same settings: the
// contract on stdout, which compacted (json.Compact) the indented golden
// must equal byte for byte, or the error with --error-format json on
// stderr, which the golden holds as it is. A case with items passes them
// as a request document on standard input.
func TestGoldensAreBuildOutput(t *testing.T) {
	suite, err := golden.Load(context.Background(), []string{"../../../../golden/testdata/sample-cases", "../../../../golden/testdata/typed-cases"}, golden.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range suite.Cases {
		args := []string{"build", "--error-format", "json", "--question", c.Question, "--lang", c.Lang}
		for _, s := range c.Subjects {
			args = append(args, "--subject", s)
		}
		for _, d := range c.Dates {
			args = append(args, "--date", d.String())
		}
		cfg := c.Config
		for flag, v := range map[string]string{"--corpus": cfg.Corpus.Name, "--definition": cfg.Contract, "--counter": cfg.Counter} {
			if v != "" {
				args = append(args, flag, v)
			}
		}
		for flag, v := range map[string]*int{"--capacity": cfg.Capacity, "--reserve": cfg.Reserve, "--wrapper": cfg.Wrapper} {
			if v != nil {
				args = append(args, flag, strconv.Itoa(*v))
			}
		}
		if c.Short {
			args = append(args, "--short")
		}
		if c.RequireEvidence {
			args = append(args, "--require-evidence")
		}
		// A case's items and promote are a request document's: the same
		// ones through --request - must print the golden too.
		var stdin string
		if len(c.Items) > 0 || len(c.Promote) > 0 {
			doc, err := json.Marshal(contract.RequestFile{Items: c.Items, Promote: c.Promote})
			if err != nil {
				t.Fatal(err)
			}
			stdin = string(doc)
			args = append(args, "--request", "-")
		}
		r := regressCLI(t, stdin, args...)
		printed := r.stdout
		if r.code != 0 {
			printed = r.stderr
		}
		_, want, err := c.ReadGolden()
		if err != nil {
			t.Fatal(err)
		}
		if r.code == 0 {
			var compact bytes.Buffer
			if err := json.Compact(&compact, want); err != nil {
				t.Fatalf("%s: %v", c.Golden, err)
			}
			want = append(compact.Bytes(), '\n')
		}
		if printed != string(want) {
			t.Errorf("%s: ka2 build %q printed (exit %d):\n%s\nthe golden holds:\n%s", c, args, r.code, printed, want)
		}
	}
}

func TestReviewReportImpactFlags(t *testing.T) {
	type capturedOptions struct {
		review *cli.ReviewOptions
		merge  *cli.ReportMergeOptions
		impact *cli.ImpactOptions
	}
	tests := []struct {
		name    string
		args    []string
		want    capturedOptions
		wantErr string
	}{
		{"review", []string{"review", "--accept-all", "cases"}, capturedOptions{review: &cli.ReviewOptions{Paths: []string{"cases"}, AcceptAll: true, Color: "auto"}}, ""},
		{"review both", []string{"review", "--accept-all", "--reject-all", "cases"}, capturedOptions{}, "--accept-all and --reject-all: choose one"},
		{"merge", []string{"report", "merge", "--junit", "j.xml", "--json", "m.json", "a.json", "b.json"},
			capturedOptions{merge: &cli.ReportMergeOptions{Files: []string{"a.json", "b.json"}, Format: "text", JUnit: "j.xml", JSON: "m.json", Color: "auto"}}, ""},
		{"merge as regress", []string{"report", "merge", "--format", "junit", "--report", "j.xml", "--color", "never", "a.json"},
			capturedOptions{merge: &cli.ReportMergeOptions{Files: []string{"a.json"}, Format: "junit", Reports: []string{"j.xml"}, Color: "never"}}, ""},
		{"merge without files", []string{"report", "merge"}, capturedOptions{}, "requires at least 1 arg(s), only received 0"},
		{"impact", []string{"impact", "--cases", "c1", "--cases", "c2", "--corpus", "new", "--base-ref", "origin/main", "--jobs", "2"},
			capturedOptions{impact: &cli.ImpactOptions{Cases: []string{"c1", "c2"}, Corpus: "new", BaseRef: "origin/main", Format: "text", Jobs: 2}}, ""},
		{"impact without base", []string{"impact", "--cases", "c", "--corpus", "new"}, capturedOptions{},
			"give the corpus before the edit as --base FOLDER or --base-ref GIT_REF (one of them)"},
		{"impact with both bases", []string{"impact", "--cases", "c", "--corpus", "new", "--base", "old", "--base-ref", "HEAD"}, capturedOptions{},
			"give the corpus before the edit as --base FOLDER or --base-ref GIT_REF (one of them)"},
		{"impact without cases", []string{"impact", "--corpus", "new", "--base", "old"}, capturedOptions{}, "--cases is required: the case files or folders to rebuild"},
		{"impact bad format", []string{"impact", "--cases", "c", "--corpus", "new", "--base", "old", "--format", "junit"}, capturedOptions{}, `invalid argument "junit" for "--format" flag: invalid value "junit" for --format: want one of text, json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got capturedOptions
			var err error
			switch args := tt.args[1:]; tt.args[0] {
			case "review":
				got.review, err = parseFlags(cli.NewCmdReview, args)
			case "report":
				got.merge, err = parseFlags(cli.NewCmdReport, args)
			case "impact":
				got.impact, err = parseFlags(cli.NewCmdImpact, args)
			}
			if flagsFailed(t, err, tt.wantErr, false) {
				return
			}
			opts := cmp.Options{cmpopts.IgnoreUnexported(cli.ReviewOptions{}, cli.ReportMergeOptions{}, cli.ImpactOptions{}),
				cmp.AllowUnexported(capturedOptions{})}
			if diff := cmp.Diff(tt.want, got, opts); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegressSeveralReports runs once and writes JUnit, HTML and JSON
// (and a file in --format), each stamped with the run, the text summary
// still on the console; --no-host leaves the machine's name out.
func TestRegressSeveralReports(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	r := regressCLI(t, "", "regress", "--format", "json", "--report", "junit=out-junit.xml", "--report", "html=out.html",
		"--report", "json=out.json", "--report", "plain.json", "cases").want(t, 1)
	if got := r.lastLine(); got != "ka2 regress: 7 cases, 6 passed, 1 failed (1 differ, 0 missing, 0 with failed expectations): FAIL" {
		t.Errorf("console: %s", got)
	}
	js, err := os.ReadFile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := os.ReadFile("plain.json"); !bytes.Equal(js, plain) {
		t.Error("a --report FILE in --format json differs from json=FILE")
	}
	rep, err := golden.ReadReport(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	ri := rep.Run
	if ri == nil || ri.Started != "2026-09-14T09:00:00.000Z" || ri.Finished != ri.Started || ri.Tool.Version == "" || ri.Tool.Go == "" {
		t.Fatalf("run information: %+v", ri)
	}
	if host, _ := os.Hostname(); ri.Host != host {
		t.Errorf("host %q, want %q", ri.Host, host)
	}
	if len(ri.CaseFiles) != 2 || len(ri.Corpora) != 1 {
		t.Errorf("inputs: %+v %+v", ri.CaseFiles, ri.Corpora)
	}
	xmlData, _ := os.ReadFile("out-junit.xml")
	var junit struct {
		Timestamp string `xml:"timestamp,attr"`
		Time      string `xml:"time,attr"`
		Suites    []struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(xmlData, &junit); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	if junit.Timestamp != "2026-09-14T09:00:00" || junit.Time != "0.000" || len(junit.Suites) == 0 || len(junit.Suites[0].Props) == 0 || junit.Suites[0].Props[0].Name != "ka2.version" {
		t.Errorf("JUnit run information: %+v", junit)
	}
	page, _ := os.ReadFile("out.html")
	if !bytes.Contains(page, []byte("<dt>started</dt><dd>2026-09-14T09:00:00.000Z</dd>")) {
		t.Error("the HTML report does not say when it ran")
	}
	regressCLI(t, "", "regress", "--no-host", "--report", "json=private.json", "cases").want(t, 1)
	if data, _ := os.ReadFile("private.json"); bytes.Contains(data, []byte(`"host"`)) {
		t.Error("--no-host: the report names the host")
	}
}
