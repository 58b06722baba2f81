//go:build unix

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/internal/testutil"
)

// scriptPath is the absolute path of a test script in pipeline/testdata/scripts.
func scriptPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(pipelineFixtures, "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPipelineREADMEExample runs the README's pipeline example as written:
// examples/pipeline with its scripts, on the embedded sample corpus.
func TestPipelineREADMEExample(t *testing.T) {
	const dir = "../../../../examples/pipeline"
	snaps := t.TempDir()
	code, out, errOut := runKA2(t, "", "pipeline", "run", dir+"/pipeline.yaml", "--input", dir+"/question.json", "--snapshots", snaps)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	const want = `{"ok":true,"citation":"travel-v2:3-3","cited":"The lodging limit is 750 CNY per room-night."}` + "\n"
	if out != want {
		t.Errorf("stdout\n got %s\nwant %s", out, want)
	}
	verify, err := os.ReadFile(filepath.Join(snaps, "02-verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(verify), `"verification": {`) || !strings.Contains(string(verify), `"ok": true`) {
		t.Errorf("the verify snapshot records no passing verification:\n%s", verify)
	}
	code, out, errOut = runKA2(t, "", "pipeline", "check", dir+"/pipeline.yaml")
	if code != 0 || !strings.Contains(out, "ok: 4 stage(s), flow build >> verify >> answer >> check") {
		t.Errorf("check: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The same replayed from its snapshot: equal.
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "answer")
	if code != 0 || !strings.Contains(out, `"citation":"travel-v2:3-3"`) {
		t.Errorf("replay: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestPipelineResumeCommand: a run fails at stage 3 (exit 6); the file is
// fixed and the run resumed from --snapshots: stages 1 and 2 do not run
// again, as their counter files show.
func TestPipelineResumeCommand(t *testing.T) {
	dir, snaps := t.TempDir(), t.TempDir()
	count := scriptPath(t, "count")
	stage := func(name, out string) string {
		return fmt.Sprintf("  %s: {exec: [%s, %s, '%s']}\n", name, count, filepath.Join(dir, name), out)
	}
	head := "stages:\n" + stage("s1", `{"output_text":"one"}`) + stage("s2", `{"output_text":"two"}`)
	file := filepath.Join(dir, "p.yaml")
	write := func(s3 string) {
		testutil.WriteFile(t, file, head+s3+"flow: s1 >> s2 >> s3\n")
	}
	counts := func() string {
		var s []string
		for _, n := range []string{"s1", "s2", "s3"} {
			b, _ := os.ReadFile(filepath.Join(dir, n))
			s = append(s, fmt.Sprint(strings.Count(string(b), "ran")))
		}
		return strings.Join(s, " ")
	}
	write(fmt.Sprintf("  s3: {exec: [%s, broken]}\n", scriptPath(t, "veto")))
	code, out, errOut := runKA2(t, "", "pipeline", "run", file, "--input-text", "q", "--snapshots", snaps)
	if code != 6 || out != "" || !strings.Contains(errOut, "stage 's3'") {
		t.Fatalf("broken run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := counts(); got != "1 1 0" {
		t.Fatalf("counts after the broken run: %s", got)
	}
	write(stage("s3", `{"output_text":"three"}`))
	code, out, errOut = runKA2(t, "", "pipeline", "run", file, "--input-text", "q", "--snapshots", snaps, "--resume")
	if code != 0 || out != "three\n" {
		t.Fatalf("resumed run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := counts(); got != "1 1 1" {
		t.Errorf("counts after resuming: %s, want 1 1 1 (s1 and s2 not run again)", got)
	}
	for _, s := range []string{"s1", "s2"} {
		if !strings.Contains(errOut, "stage '"+s+"': resumed from its snapshot") {
			t.Errorf("stderr does not say %s was resumed:\n%s", s, errOut)
		}
	}
}

// TestPipelineReplayCommand: replay exits 0 when the stage gives the
// recorded output again, 1 with a diff when it does not, 2 for a stage
// with no snapshot.
func TestPipelineReplayCommand(t *testing.T) {
	dir, snaps := t.TempDir(), t.TempDir()
	value := filepath.Join(dir, "value")
	testutil.WriteFile(t, value, "first\n")
	file := filepath.Join(dir, "p.yaml")
	src := fmt.Sprintf("stages:\n  show: {exec: [%s, %s]}\nflow: show\n", scriptPath(t, "showfile"), value)
	testutil.WriteFile(t, file, src)
	if code, _, errOut := runKA2(t, "", "pipeline", "run", file, "--input-text", "q", "--snapshots", snaps); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runKA2(t, "", "pipeline", "replay", snaps, "show")
	if code != 0 || out != "first\n" || errOut != "" {
		t.Errorf("equal replay: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	testutil.WriteFile(t, value, "second\n")
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "show")
	if code != 1 || out != "second\n" || !strings.Contains(errOut, "-first") || !strings.Contains(errOut, "+second") ||
		!strings.Contains(errOut, "stage 'show': the replayed output differs from the recorded one") {
		t.Errorf("different replay: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "nope")
	if code != 2 || out != "" || !strings.Contains(errOut, "no snapshot of stage 'nope'") {
		t.Errorf("unknown stage: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestPipelineReplayOldSnapshot: a snapshot written before ka2 recorded
// where hooks are declared replays the stage without them, as before, and
// stderr says so.
func TestPipelineReplayOldSnapshot(t *testing.T) {
	dir, snaps := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	testutil.WriteFile(t, file, fmt.Sprintf("stages:\n  a: {exec: [%s], after: [%s, audit, '\"seen\"']}\nflow: a\n",
		scriptPath(t, "echo"), scriptPath(t, "artifact")))
	if code, _, errOut := runKA2(t, "", "pipeline", "run", file, "--input-text", "q", "--snapshots", snaps); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	name := filepath.Join(snaps, "01-a.json")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]json.RawMessage
	if err := json.Unmarshal(b, &snap); err != nil || snap["hook_kinds"] == nil {
		t.Fatalf("snapshot %s: %v; want hook_kinds", b, err)
	}
	delete(snap, "hook_kinds")
	if b, err = json.Marshal(snap); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, name, string(b))
	code, out, errOut := runKA2(t, "", "pipeline", "replay", snaps, "a")
	if code != 0 || out != "echo: q\n" ||
		errOut != "ka2: stage 'a': replayed without its hooks: its snapshot does not record where they are declared (it predates hook_kinds); only the output text is compared. Run the pipeline again with --snapshots to record them\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestPipelineInputText: --input-text starts a plain-text pipeline; a
// request pipeline refuses it (exit 2, nothing on stdout).
func TestPipelineInputText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	src := fmt.Sprintf("input_schema: string\nstages:\n  research: {exec: [%s]}\nflow: research\n", scriptPath(t, "echo"))
	testutil.WriteFile(t, file, src)
	code, out, errOut := runKA2(t, "", "pipeline", "run", file, "--input-text", "quantum computing 2024")
	if code != 0 || out != "echo: quantum computing 2024\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runKA2(t, "", "pipeline", "run", "../../../../examples/pipeline/pipeline.yaml", "--input-text", "lodging?")
	if code != 2 || out != "" || !strings.Contains(errOut, "--input-text: bad run input: the pipeline's run input is ka2-request-v1") {
		t.Errorf("request pipeline: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestPipelineResumeBadSnapshot: a snapshot that is not JSON is an input
// error (exit 2) naming the file, and nothing runs.
func TestPipelineResumeBadSnapshot(t *testing.T) {
	snaps := t.TempDir()
	testutil.WriteFile(t, filepath.Join(snaps, "01-build.json"), "{")
	code, out, errOut := runKA2(t, "", "pipeline", "run", "../../../../examples/pipeline/pipeline.yaml",
		"--input", "../../../../examples/pipeline/question.json", "--snapshots", snaps, "--resume")
	if code != 2 || out != "" || !strings.Contains(errOut, "01-build.json") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
