//go:build unix

package cli_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/pipeline"
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
	if code != 0 || !strings.Contains(out, "ok: 4 stages, flow build >> verify >> answer >> check") {
		t.Errorf("check: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The same replayed from its snapshot: equal.
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "answer", "--pipeline", dir+"/pipeline.yaml")
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
	code, out, errOut := runKA2(t, "", "pipeline", "replay", snaps, "show", "--pipeline", file)
	if code != 0 || out != "first\n" || errOut != "" {
		t.Errorf("equal replay: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	testutil.WriteFile(t, value, "second\n")
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "show", "--pipeline", file)
	if code != 1 || out != "second\n" || !strings.Contains(errOut, "-first") || !strings.Contains(errOut, "+second") ||
		!strings.Contains(errOut, "stage 'show': the replayed output differs from the recorded one") {
		t.Errorf("different replay: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "nope", "--pipeline", file)
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
	code, out, errOut := runKA2(t, "", "pipeline", "replay", snaps, "a", "--recorded")
	if code != 0 || out != "echo: q\n" ||
		errOut != "ka2: stage 'a': replaying the command lines its snapshot records (--recorded), not a pipeline file's: "+
			strconv.Quote(scriptPath(t, "echo"))+", hook "+strconv.Quote(scriptPath(t, "artifact")+` audit "seen"`)+
			", in "+filepath.ToSlash(filepath.Join(snaps, snapDir(t, name)))+"\n"+
			"ka2: stage 'a': replayed without its hooks: its snapshot does not record where they are declared (it predates hook_kinds); only the output text is compared. Run the pipeline again with --snapshots to record them\n" {
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

// editJSON rewrites the JSON object in file as edit changes it, through
// set and del, which leave every value they do not change as it is
// written (its keys in their order, its numbers as written).
func editJSON(t *testing.T, file string, edit func(set func(v any, path ...string), del func(path ...string))) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var change func(doc json.RawMessage, path []string, v any, remove bool) json.RawMessage
	change = func(doc json.RawMessage, path []string, v any, remove bool) json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch {
		case len(path) > 1:
			m[path[0]] = change(m[path[0]], path[1:], v, remove)
		case remove:
			delete(m, path[0])
		default:
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			m[path[0]] = b
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	doc := json.RawMessage(b)
	edit(func(v any, path ...string) { doc = change(doc, path, v, false) },
		func(path ...string) { doc = change(doc, path, nil, true) })
	testutil.WriteFile(t, file, string(doc))
}

// TestPipelineResumeTampered: --resume holds every snapshot it would
// reuse to its own content, and runs the checkers (ka2.grade) again: a
// snapshot whose recorded outcome, command, definition or artifacts were
// edited is an input error (exit 2) naming its file, nothing is printed,
// and the folder is left as it was. An untouched folder resumes, and
// the grade stage is checked again.
func TestPipelineResumeTampered(t *testing.T) {
	const good = "The limit is 750 CNY per room-night [travel-v2:3]."
	const bad = "The limit is 750 CNY per room-night [travel-v2:99]."
	passed := map[string]any{"ok": true, "findings": []any{}}
	tests := []struct {
		name     string
		answer   string
		onFail   string // the grade stage's on_fail
		wantRun  int    // the exit status of the first run
		file     string // the snapshot edited
		edit     func(set func(any, ...string), del func(...string))
		wantWhat string // part of the error; "" for an untouched folder
	}{
		{name: "untouched", answer: good, file: "03-grade.json", edit: func(func(any, ...string), func(...string)) {}},
		{name: "a failed grade marked passed", answer: bad, wantRun: 6, file: "03-grade.json",
			edit: func(set func(any, ...string), del func(...string)) {
				del("error")
				set(passed, "artifacts", "grade")
			}, wantWhat: "ka2.grade on the context it records stops"},
		{name: "a failed grade with its error blanked", answer: bad, wantRun: 6, file: "03-grade.json",
			edit: func(_ func(any, ...string), del func(...string)) { del("error") }, wantWhat: "ka2.grade on the context it records stops"},
		{name: "an error blanked as ka2 never writes it", answer: bad, wantRun: 6, file: "03-grade.json",
			edit: func(set func(any, ...string), _ func(...string)) { set("", "error") }, wantWhat: "it holds keys or values a snapshot does not have"},
		{name: "a recorded grade marked passed", answer: bad, onFail: "continue", file: "03-grade.json",
			edit:     func(set func(any, ...string), _ func(...string)) { set(passed, "artifacts", "grade") },
			wantWhat: "records a grade artifact that is not what ka2.grade gives"},
		{name: "a grade forged into the answer's artifacts", answer: bad, onFail: "continue", file: "02-answer.json",
			edit:     func(set func(any, ...string), _ func(...string)) { set(passed, "artifacts", "grade") },
			wantWhat: "holds artifact 'grade', which only a ka2.grade stage writes"},
		{name: "the inherited contract dropped", answer: good, file: "02-answer.json",
			edit:     func(_ func(any, ...string), del func(...string)) { del("artifacts", "contract") },
			wantWhat: "does not hand on artifact 'contract'"},
		{name: "the answer's exec edited", answer: good, file: "02-answer.json",
			edit:     func(set func(any, ...string), _ func(...string)) { set([]string{"sh", "-c", "echo pwned"}, "exec") },
			wantWhat: "records runner exec"},
		{name: "the answer's definition edited under its digest", answer: good, file: "02-answer.json",
			edit: func(set func(any, ...string), _ func(...string)) {
				set([]string{"sh", "-c", "echo pwned"}, "definition", "exec")
			}, wantWhat: "records a definition that is not the one its definition digest names"},
		{name: "the answer's context edited under its digest", answer: good, file: "02-answer.json",
			edit: func(set func(any, ...string), _ func(...string)) {
				set([]map[string]string{{"role": "user", "content": "other"}}, "context", "messages")
			}, wantWhat: "records a context that is not the one its input digest names"},
		{name: "the contract forged in the build snapshot", answer: good, file: "01-build.json",
			edit: func(set func(any, ...string), _ func(...string)) {
				// Both places the contract is, changed alike; the edit
				// is applied to the file below.
			}, wantWhat: "records an output text other than the one ka2.build gives"},
		{name: "a key in another case", answer: good, file: "02-answer.json",
			edit:     func(set func(any, ...string), _ func(...string)) { set(0, "Exit_Code") },
			wantWhat: `differs only in case from "Exit_Code"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, snaps := t.TempDir(), t.TempDir()
			answer := filepath.Join(dir, "answer.txt")
			testutil.WriteFile(t, answer, tt.answer+"\n")
			onFail := ""
			if tt.onFail != "" {
				onFail = ", on_fail: " + tt.onFail
			}
			file := filepath.Join(dir, "p.yaml")
			testutil.WriteFile(t, file, fmt.Sprintf(`stages:
  build: {uses: ka2.build}
  answer: {exec: [%s, %s], context: {inherit: [artifacts]}}
  grade: {uses: ka2.grade%s, context: {inherit: [artifacts]}}
flow: build >> answer >> grade
`, scriptPath(t, "showfile"), answer, onFail))
			question := "../../../../examples/pipeline/question.json"
			code, _, errOut := runKA2(t, "", "pipeline", "run", file, "--input", question, "--snapshots", snaps)
			if code != tt.wantRun {
				t.Fatalf("first run: exit %d, want %d: %s", code, tt.wantRun, errOut)
			}
			name := filepath.Join(snaps, tt.file)
			editJSON(t, name, tt.edit)
			if tt.file == "01-build.json" {
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				forged := strings.ReplaceAll(string(b), "limit is 750 CNY", "limit is 900 CNY")
				if forged == string(b) {
					t.Fatal("the contract does not quote the limit")
				}
				testutil.WriteFile(t, name, forged)
			}
			before := snapshotFiles(t, snaps)
			code, out, errOut := runKA2(t, "", "pipeline", "run", file, "--input", question, "--snapshots", snaps, "--resume")
			if tt.wantWhat == "" {
				if code != 0 || out != tt.answer+"\n" || !strings.Contains(errOut, "stage 'grade': run again in process, and agrees with its snapshot") {
					t.Errorf("untouched: exit %d, stdout %q, stderr %q", code, out, errOut)
				}
				return
			}
			if code != 2 || out != "" || !strings.Contains(errOut, filepath.ToSlash(name)+": ") || !strings.Contains(errOut, tt.wantWhat) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %s: …%s…", code, out, errOut, tt.file, tt.wantWhat)
			}
			if diff := cmp.Diff(before, snapshotFiles(t, snaps)); diff != "" {
				t.Errorf("the folder changed (-before +after):\n%s", diff)
			}
		})
	}
}

// snapshotFiles is the content of every file in dir, by name.
func snapshotFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = string(b)
		}
	}
	return out
}

// TestPipelineRollbackCommand: a run of s1 >> s2 >> s3 rolled back to s1
// keeps s1's snapshot and moves s2's and s3's, with a record, into
// discarded/1; --resume then reuses s1 and runs s2 and s3 again, and so
// does run --resume --from s2 at once. A stage the folder has no snapshot
// of is refused (exit 2, the folder as it was), and each later rollback
// takes the next discarded/N.
func TestPipelineRollbackCommand(t *testing.T) {
	dir, snaps := t.TempDir(), t.TempDir()
	count := scriptPath(t, "count")
	var src strings.Builder
	src.WriteString("stages:\n")
	for _, n := range []string{"s1", "s2", "s3"} {
		fmt.Fprintf(&src, "  %s: {exec: [%s, %s, '{\"output_text\":\"%s\"}']}\n", n, count, filepath.Join(dir, n), n)
	}
	src.WriteString("flow: s1 >> s2 >> s3\n")
	file := filepath.Join(dir, "p.yaml")
	testutil.WriteFile(t, file, src.String())
	counts := func() string {
		var s []string
		for _, n := range []string{"s1", "s2", "s3"} {
			b, _ := os.ReadFile(filepath.Join(dir, n))
			s = append(s, fmt.Sprint(strings.Count(string(b), "ran")))
		}
		return strings.Join(s, " ")
	}
	run := func(args ...string) (int, string, string) {
		return runKA2(t, "", append([]string{"pipeline", "run", file, "--input-text", "q", "--snapshots", snaps}, args...)...)
	}
	if code, _, errOut := run(); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runKA2(t, "", "pipeline", "rollback", snaps, "s1")
	rec := filepath.ToSlash(filepath.Join(snaps, "discarded", "1", "rollback.json"))
	if code != 0 || out != "discarded 02-s2.json\ndiscarded 03-s3.json\nrecord "+rec+"\n" || errOut != "" {
		t.Fatalf("rollback: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := strings.Join(slices.Sorted(maps.Keys(snapshotFiles(t, snaps))), " "); got != "00-input.json 01-s1.json" {
		t.Errorf("the folder holds %s after the rollback", got)
	}
	if got := snapshotFiles(t, filepath.Join(snaps, "discarded", "1")); got["02-s2.json"] == "" || got["03-s3.json"] == "" ||
		!strings.Contains(got["rollback.json"], `"discarded": [`) {
		t.Errorf("discarded/1 holds %v", slices.Sorted(maps.Keys(got)))
	}
	code, out, errOut = run("--resume")
	if code != 0 || out != "s3\n" || !strings.Contains(errOut, "stage 's1': resumed") || strings.Contains(errOut, "stage 's2': resumed") {
		t.Fatalf("resumed run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := counts(); got != "1 2 2" {
		t.Errorf("counts %s, want 1 2 2: s1 reused, s2 and s3 run again", got)
	}
	// --from s2 does both at once: s2 and s3 run again, s1 is reused.
	code, out, errOut = run("--resume", "--from", "s2")
	rec2 := filepath.ToSlash(filepath.Join(snaps, "discarded", "2", "rollback.json"))
	if code != 0 || out != "s3\n" || !strings.Contains(errOut, "ka2: --from s2: discarded 02-s2.json, 03-s3.json (record "+rec2+")") {
		t.Fatalf("--from s2: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := counts(); got != "1 3 3" {
		t.Errorf("counts %s, want 1 3 3", got)
	}
	for _, args := range [][]string{{"--resume", "--from", "s4"}, {"--resume", "--from", "input"}, {"--from", "s2"}} {
		before := snapshotFiles(t, snaps)
		if code, out, errOut := run(args...); code != 2 || out != "" || !strings.Contains(errOut, "--from") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		if diff := cmp.Diff(before, snapshotFiles(t, snaps)); diff != "" {
			t.Errorf("%v: the folder changed (-before +after):\n%s", args, diff)
		}
	}
	code, out, errOut = runKA2(t, "", "pipeline", "rollback", snaps, "s4")
	if code != 2 || out != "" || !strings.Contains(errOut, "holds no snapshot of stage 's4'") {
		t.Errorf("unknown stage: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runKA2(t, "", "pipeline", "rollback", snaps, "input")
	if code != 0 || !strings.HasSuffix(out, "record "+filepath.ToSlash(filepath.Join(snaps, "discarded", "3", "rollback.json"))+"\n") {
		t.Errorf("second rollback: exit %d, stdout %q", code, out)
	}
}

// TestPipelineReplayTampered: replay runs the pipeline file's definition,
// so an exec edited into the snapshot (its digest rewritten to match)
// never runs: exit 2 naming the file and what differs. Without
// --pipeline or --recorded it is a usage error; with --recorded an edit
// the digest does not cover is refused, and stderr says what runs.
func TestPipelineReplayTampered(t *testing.T) {
	dir, snaps := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	testutil.WriteFile(t, file, fmt.Sprintf("stages:\n  a: {exec: [%s]}\nflow: a\n", scriptPath(t, "echo")))
	if code, _, errOut := runKA2(t, "", "pipeline", "run", file, "--input-text", "q", "--snapshots", snaps); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	name := filepath.Join(snaps, "01-a.json")
	marker := filepath.Join(dir, "pwned")
	forged := []string{"sh", "-c", "touch " + marker + "; printf '{\"output_text\":\"echo: q\"}'"}
	editJSON(t, name, func(set func(any, ...string), _ func(...string)) {
		set(forged, "exec")
		set(forged, "definition", "exec")
	})
	code, out, errOut := runKA2(t, "", "pipeline", "replay", snaps, "a", "--recorded")
	if code != 2 || out != "" || !strings.Contains(errOut, "01-a.json: the snapshot of stage 'a' records a definition that is not the one its definition digest names") {
		t.Errorf("--recorded, digest not rewritten: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The digest rewritten to match the edit, as anyone can.
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Definition pipeline.StageDefinition `json:"definition"`
	}
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	def, err := json.Marshal(snap.Definition)
	if err != nil {
		t.Fatal(err)
	}
	editJSON(t, name, func(set func(any, ...string), _ func(...string)) {
		set(fmt.Sprintf("sha256:%x", sha256.Sum256(def)), "digests", "definition")
	})
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "a", "--pipeline", file)
	if code != 2 || out != "" || !strings.Contains(errOut, "01-a.json: the stage's definition changed since the snapshot was written: 'a' differs in exec") {
		t.Errorf("--pipeline: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runKA2(t, "", "pipeline", "replay", snaps, "a")
	if code != 2 || out != "" || !strings.Contains(errOut, "--pipeline FILE is required") {
		t.Errorf("no --pipeline: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command edited into the snapshot ran")
	}
}

// TestPipelineSnapshotLink: a snapshot that is a link (here to a copy of
// the real one, elsewhere) is refused by --resume and by replay, exit 2
// naming it: ka2 writes none, and a link could put any file there.
func TestPipelineSnapshotLink(t *testing.T) {
	dir, snaps := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	testutil.WriteFile(t, file, fmt.Sprintf("stages:\n  a: {exec: [%s]}\nflow: a\n", scriptPath(t, "echo")))
	if code, _, errOut := runKA2(t, "", "pipeline", "run", file, "--input-text", "q", "--snapshots", snaps); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	name, elsewhere := filepath.Join(snaps, "01-a.json"), filepath.Join(dir, "copy.json")
	if err := os.Rename(name, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, name); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pipeline", "run", file, "--input-text", "q", "--snapshots", snaps, "--resume"},
		{"pipeline", "replay", snaps, "a", "--pipeline", file},
	} {
		code, out, errOut := runKA2(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "snapshot "+filepath.ToSlash(name)+" is not a regular file") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", args[1], code, out, errOut)
		}
	}
}

// snapDir is the folder a snapshot file records its programs ran in,
// relative to the snapshot's folder.
func snapDir(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Dir string `json:"dir"`
	}
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	return filepath.FromSlash(snap.Dir)
}
