//go:build unix

package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/jsontext"
)

// The tests here run real exec stages and hooks: the shell scripts in
// testdata/scripts.

// scriptsDir is the folder of the test scripts, which exec paths such as
// ./count are relative to.
func scriptsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata/scripts")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// runScripts parses src, wants it clean, and runs it on in with the test
// scripts and the sample corpus's builder.
func runScripts(t *testing.T, src string, in RunInput, resume map[string]*Snapshot) (*Run, error) {
	t.Helper()
	p := parseString(t, "harness.yaml", src)
	if err := p.Diagnostics.Err(); err != nil {
		t.Fatalf("check: %v\n%s", err, diagnosticsText(p.Diagnostics))
	}
	return p.Run(context.Background(), in, RunOptions{Builder: sampleBuilder(t, 0), Dir: scriptsDir(t), Timeout: 20 * time.Second, Resume: resume})
}

// counted is how many times a count script ran with counter file name.
func counted(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "ran\n")
}

// countStage is a stage that runs the count script with its own counter
// file in dir and prints out, then the extra lines.
func countStage(dir, name, out string, extra ...string) string {
	return rawStage(name, append([]string{fmt.Sprintf("exec: [./count, '%s', '%s']", filepath.Join(dir, name), out)}, extra...)...)
}

// TestHookVeto: each kind of hook vetoes the stage it runs around by
// exiting non-zero; the run stops there with exit status 6's error, naming
// the hook and the stage, and a before veto keeps the stage from running.
func TestHookVeto(t *testing.T) {
	tests := []struct {
		kind      string
		top       string // the pipeline's hooks block
		stage     string // lines added to stage b
		wantBRuns int
	}{
		{kind: "before", stage: "before: [./veto, no ticket]", wantBRuns: 0},
		{kind: "after", stage: "after: [./veto, no ticket]", wantBRuns: 1},
		{kind: "before_stage", top: "hooks: {before_stage: [./veto, no ticket]}\n", wantBRuns: 0},
		{kind: "after_stage", top: "hooks: {after_stage: [./veto, no ticket]}\n", wantBRuns: 1},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			dir := t.TempDir()
			var extra []string
			if tt.stage != "" {
				extra = append(extra, tt.stage)
			}
			src := tt.top + "stages:\n" + countStage(dir, "a", `{"output_text":"a"}`) +
				countStage(dir, "b", `{"output_text":"b"}`, extra...) + "flow: a >> b\n"
			run, err := runScripts(t, src, TextInputOf("go"), nil)
			var se *StageError
			if !errors.Is(err, ErrVetoed) || !errors.As(err, &se) || se.Step != tt.kind || se.ExitCode != 3 {
				t.Fatalf("Run() error = %v, want a veto by hook %s", err, tt.kind)
			}
			wantStage := "b"
			if tt.top != "" { // a pipeline hook runs around every stage: a is the first it stops
				wantStage = "a"
			}
			want := fmt.Sprintf("stage '%s': vetoed by a hook: hook %s (./veto no ticket) of stage '%s' exited with status 3: no ticket",
				wantStage, tt.kind, wantStage)
			if err.Error() != want {
				t.Errorf("Run() error\n got %s\nwant %s", err, want)
			}
			if tt.top == "" {
				if got := counted(t, filepath.Join(dir, "b")); got != tt.wantBRuns {
					t.Errorf("stage b ran %d times, want %d", got, tt.wantBRuns)
				}
			}
			last := run.Snapshots[len(run.Snapshots)-1]
			if len(last.Hooks) != 1 || last.Hooks[0].Hook != tt.kind || last.Hooks[0].ExitCode != 3 || last.Hooks[0].Stderr != "no ticket\n" {
				t.Errorf("the snapshot's hooks = %+v, want the veto recorded", last.Hooks)
			}
		})
	}
}

// TestHookArtifacts: artifacts that hooks print reach a downstream stage
// that inherits artifacts, and only that one.
func TestHookArtifacts(t *testing.T) {
	dir := t.TempDir()
	src := "hooks:\n  after_stage: [./artifact, audit, '\"seen\"']\nstages:\n" +
		countStage(dir, "a", `{"output_text":"a","artifacts":{"own":1}}`, `before: [./artifact, ticket, '{"id": 7}']`) +
		countStage(dir, "b", `{"output_text":"b"}`, "context: {inherit: [artifacts]}") +
		countStage(dir, "c", `{"output_text":"c"}`) +
		"flow: a >> b >> c\n"
	run, err := runScripts(t, src, TextInputOf("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	arts := func(m map[string]json.RawMessage) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = string(v)
		}
		return out
	}
	// a's own before hook added ticket, which a saw in its context.
	if diff := cmp.Diff(map[string]string{"ticket": `{"id":7}`}, arts(snapshot(t, run, "a").Context.Artifacts)); diff != "" {
		t.Errorf("a's context artifacts mismatch (-want +got):\n%s", diff)
	}
	want := map[string]string{"ticket": `{"id":7}`, "own": "1", "audit": `"seen"`}
	if diff := cmp.Diff(want, arts(snapshot(t, run, "a").Artifacts)); diff != "" {
		t.Errorf("a's artifacts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, arts(snapshot(t, run, "b").Context.Artifacts)); diff != "" {
		t.Errorf("b inherits the hooks' artifacts: mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{}, arts(snapshot(t, run, "c").Context.Artifacts)); diff != "" {
		t.Errorf("c inherits nothing: mismatch (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, h := range snapshot(t, run, "a").Hooks {
		kinds = append(kinds, h.Hook+":"+strings.Join(h.Artifacts, ","))
	}
	if diff := cmp.Diff([]string{"before:ticket", "after_stage:audit"}, kinds); diff != "" {
		t.Errorf("a's hook runs mismatch (-want +got):\n%s", diff)
	}
}

// TestHookBadOutput: a hook that prints something other than artifacts
// stops the stage, naming the hook.
func TestHookBadOutput(t *testing.T) {
	dir := t.TempDir()
	src := "stages:\n" + countStage(dir, "a", `{"output_text":"a"}`, `after: [./count, '`+filepath.Join(dir, "h")+`', '{"output_text":"x"}']`) + "flow: a\n"
	_, err := runScripts(t, src, TextInputOf("go"), nil)
	if !errors.Is(err, ErrBadOutput) || !strings.Contains(err.Error(), "hook after (./count") || !strings.Contains(err.Error(), `unknown field "output_text"`) {
		t.Errorf("Run() error = %v, want ErrBadOutput naming the hook", err)
	}
}

// TestVerifyStage: ka2.verify passes the contract on unchanged with a
// verification artifact downstream stages inherit; a stage that tampers
// with a quote between build and verify fails it (on_fail: stop, the
// default) or is only recorded (on_fail: continue).
func TestVerifyStage(t *testing.T) {
	tests := []struct {
		name    string
		tamper  bool
		onFail  string
		wantErr bool
		wantOK  bool
	}{
		{name: "untouched contract passes", wantOK: true},
		{name: "tampered quote stops the run", tamper: true, wantErr: true},
		{name: "tampered quote with on_fail continue is recorded", tamper: true, onFail: "on_fail: continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			flow := "build >> verify >> use"
			stages := "  build: {uses: ka2.build}\n"
			if tt.tamper {
				flow = "build >> tamper >> verify >> use"
				stages += rawStage("tamper", "exec: [./tamper]", "context: {input_schema: ka2-context-v1, output_schema: ka2-context-v1}")
			}
			verify := []string{"uses: ka2.verify"}
			if tt.onFail != "" {
				verify = append(verify, tt.onFail)
			}
			stages += rawStage("verify", verify...) +
				countStage(dir, "use", `{"output_text":"used"}`, "context: {input_schema: ka2-context-v1, inherit: [artifacts]}")
			run, err := runScripts(t, "stages:\n"+stages+"flow: "+flow+"\n", RequestInput(lodging2026), nil)
			if tt.wantErr {
				wantStopped(t, err, ErrVerification, "verify", filepath.Join(dir, "use"))
				if !strings.Contains(err.Error(), "quote") {
					t.Errorf("error %q does not name the quote problem", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			v := snapshot(t, run, "verify")
			got := artifactOf[Verification](t, v, "verification")
			if got.OK != tt.wantOK || got.OK != (len(got.Problems) == 0) {
				t.Errorf("verification = %+v, want ok %v", got, tt.wantOK)
			}
			if tt.tamper && (len(got.Problems) == 0 || got.Problems[0].Code != "quote" || got.Problems[0].Path != "/evidence/0/quote") {
				t.Errorf("problems = %+v, want a quote problem at /evidence/0/quote", got.Problems)
			}
			// The contract passes on unchanged.
			names := strings.Split(flow, " >> ")
			upstream := snapshot(t, run, names[len(names)-3])
			if v.OutputText != upstream.OutputText {
				t.Errorf("ka2.verify changed the contract:\n got %s\nwant %s", v.OutputText, upstream.OutputText)
			}
			if !tt.wantErr {
				if string(snapshot(t, run, "use").Context.Artifacts["verification"]) != string(v.Artifacts["verification"]) {
					t.Errorf("the downstream stage did not inherit the verification")
				}
			}
		})
	}
}

// wantStopped fails the test unless err is a *StageError of stage that
// matches is, and the counting stage whose counter file is next did not
// run after it.
func wantStopped(t *testing.T, err, is error, stage, next string) {
	t.Helper()
	var se *StageError
	if !errors.Is(err, is) || !errors.As(err, &se) || se.Stage != stage {
		t.Fatalf("Run() error = %v, want %v at stage %s", err, is, stage)
	}
	if counted(t, next) != 0 {
		t.Errorf("the stage after the stopped stage %s ran", stage)
	}
}

// artifactOf decodes the artifact name of snap.
func artifactOf[T any](t *testing.T, snap *Snapshot, name string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(snap.Artifacts[name], &v); err != nil {
		t.Fatalf("%s artifact %s: %v", name, snap.Artifacts[name], err)
	}
	return v
}

// TestGradeStage: ka2.grade grades the answer of an exec stage against
// the contract ka2.build passed on, through the answer stage's inherited
// artifacts; it passes the answer on unchanged with a grade artifact that
// downstream stages inherit. A bad answer stops the run (on_fail: stop,
// the default) or is only recorded (on_fail: continue); an answer stage
// that does not pass the artifacts on leaves nothing to grade against.
func TestGradeStage(t *testing.T) {
	const good = "The limit is 750 CNY per room-night [travel-v2:3]."
	tests := []struct {
		name         string
		answer       string
		onFail       string
		noInherit    bool // the answer stage does not inherit artifacts
		wantIs       error
		wantFindings []string // kinds
	}{
		{name: "a cited answer passes", answer: good},
		{name: "a citation outside the evidence stops the run", answer: "The limit is 750 CNY per room-night [travel-v2:99].",
			wantIs: ErrGrade, wantFindings: []string{"bad_citation"}},
		{name: "an announced action with on_fail continue is recorded", answer: "The limit is 750 CNY per room-night [travel-v2:3]. Order A-104 has been cancelled.",
			onFail: "on_fail: continue", wantFindings: []string{"followed_source_text"}},
		{name: "an answer stage that drops the artifacts", answer: good, noInherit: true, wantIs: ErrNoContract},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			answerCtx := "context: {inherit: [artifacts]}"
			if tt.noInherit {
				answerCtx = "context: {inherit: [messages]}"
			}
			gradeLines := []string{"uses: ka2.grade", "context: {inherit: [artifacts]}"}
			if tt.onFail != "" {
				gradeLines = append(gradeLines, tt.onFail)
			}
			stages := "  build: {uses: ka2.build}\n" +
				countStage(dir, "answer", `{"output_text":"`+tt.answer+`"}`, answerCtx) +
				rawStage("grade", gradeLines...) +
				countStage(dir, "use", `{"output_text":"used"}`, "context: {inherit: [artifacts]}")
			run, err := runScripts(t, "stages:\n"+stages+"flow: build >> answer >> grade >> use\n", RequestInput(lodging2026), nil)
			if tt.wantIs != nil {
				wantStopped(t, err, tt.wantIs, "grade", filepath.Join(dir, "use"))
				if tt.wantIs == ErrNoContract {
					return
				}
			} else if err != nil {
				t.Fatal(err)
			}
			g := snapshot(t, run, "grade")
			got := artifactOf[Grade](t, g, "grade")
			var kinds []string
			for _, f := range got.Findings {
				kinds = append(kinds, string(f.Kind))
			}
			if diff := cmp.Diff(tt.wantFindings, kinds); diff != "" || got.OK != (len(kinds) == 0) {
				t.Errorf("grade ok %v, finding kinds mismatch (-want +got):\n%s", got.OK, diff)
			}
			if g.OutputText != tt.answer {
				t.Errorf("ka2.grade changed the answer: %q, want %q", g.OutputText, tt.answer)
			}
			if string(g.Artifacts["contract"]) != string(snapshot(t, run, "build").Artifacts["contract"]) {
				t.Errorf("the grade stage does not hand the contract on")
			}
			if tt.wantIs == nil {
				if string(snapshot(t, run, "use").Context.Artifacts["grade"]) != string(g.Artifacts["grade"]) {
					t.Errorf("the downstream stage did not inherit the grade")
				}
			}
		})
	}
}

// TestGradeStageResumeAndReplay: a changed answer runs the grade again on
// resume (the answer is part of its input digest), and a replay of the
// grade stage runs from its snapshot alone.
func TestGradeStageResumeAndReplay(t *testing.T) {
	dir := t.TempDir()
	answer := filepath.Join(dir, "answer.txt")
	write := func(s string) {
		if err := os.WriteFile(answer, []byte(s+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src := "stages:\n  build: {uses: ka2.build}\n" +
		rawStage("answer", "exec: [./showfile, '"+answer+"']", "context: {inherit: [artifacts]}") +
		rawStage("grade", "uses: ka2.grade", "context: {inherit: [artifacts]}", "on_fail: continue") +
		"flow: build >> answer >> grade\n"
	write("The limit is 750 CNY per room-night [travel-v2:3].")
	first, err := runScripts(t, src, RequestInput(lodging2026), nil)
	if err != nil {
		t.Fatal(err)
	}
	write("The limit is 600 CNY per room-night [travel-v2:3].")
	resume := map[string]*Snapshot{}
	for _, s := range first.Snapshots {
		resume[s.Stage] = s
	}
	delete(resume, "answer") // as if it had failed: it runs again, and answers otherwise
	second, err := runScripts(t, src, RequestInput(lodging2026), resume)
	if err != nil {
		t.Fatal(err)
	}
	// ka2.build ran again in process and agreed with its snapshot; the
	// grade of the changed answer is not the snapshot's, so it ran.
	if diff := cmp.Diff([][]string{nil, {"build"}}, [][]string{second.Resumed, second.Rechecked}); diff != "" {
		t.Errorf("resumed, rechecked stages mismatch (-want +got):\n%s", diff)
	}
	g := snapshot(t, second, "grade")
	if !strings.HasPrefix(string(g.Artifacts["grade"]), `{"ok":false,`) {
		t.Errorf("grade of the changed answer = %s, want a failed grade", g.Artifacts["grade"])
	}
	rep, err := Replay(context.Background(), g, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Equal() {
		t.Errorf("replay gave %q, recorded %q", rep.Output, rep.Recorded)
	}
}

// TestResume: a run fails at stage 3; the stage is fixed and the run
// resumed from its snapshots: stages 1 and 2 are not run again (their
// counter files say so), stage 3 and what follows run. A changed stage
// definition or input runs that stage again.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	head := "stages:\n" + countStage(dir, "s1", `{"output_text":"one"}`) + countStage(dir, "s2", `{"output_text":"two"}`, "context: {inherit: [messages]}")
	broken := head + rawStage("s3", "exec: [./veto, broken]") + countStage(dir, "s4", `{"output_text":"four"}`) + "flow: s1 >> s2 >> s3 >> s4\n"
	fixed := head + countStage(dir, "s3", `{"output_text":"three"}`) + countStage(dir, "s4", `{"output_text":"four"}`) + "flow: s1 >> s2 >> s3 >> s4\n"
	byStage := func(run *Run) map[string]*Snapshot {
		m := map[string]*Snapshot{}
		for _, s := range run.Snapshots {
			// Through JSON, as --snapshots writes and --resume reads them.
			b, err := jsontext.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var c Snapshot
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			m[s.Stage] = &c
		}
		return m
	}
	counts := func() []int {
		return []int{counted(t, filepath.Join(dir, "s1")), counted(t, filepath.Join(dir, "s2")),
			counted(t, filepath.Join(dir, "s3")), counted(t, filepath.Join(dir, "s4"))}
	}

	first, err := runScripts(t, broken, TextInputOf("q"), nil)
	if se := (*StageError)(nil); !errors.As(err, &se) || se.Stage != "s3" {
		t.Fatalf("first run: %v, want a failure at s3", err)
	}
	if diff := cmp.Diff([]int{1, 1, 0, 0}, counts()); diff != "" {
		t.Fatalf("first run counts mismatch (-want +got):\n%s", diff)
	}
	second, err := runScripts(t, fixed, TextInputOf("q"), byStage(first))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 1, 1, 1}, counts()); diff != "" {
		t.Errorf("resumed run counts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s1", "s2"}, second.Resumed); diff != "" {
		t.Errorf("Resumed mismatch (-want +got):\n%s", diff)
	}
	if second.Output() != "four" {
		t.Errorf("output %q", second.Output())
	}

	// Everything completed: a third run reuses every stage.
	third, err := runScripts(t, fixed, TextInputOf("q"), byStage(second))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 1, 1, 1}, counts()); diff != "" || len(third.Resumed) != 4 {
		t.Errorf("third run: counts mismatch (-want +got):\n%s; resumed %v", diff, third.Resumed)
	}

	// A changed definition of s2 runs s2 again; s3 and s4 get the same
	// input as before (s2's output did not change), so they are reused.
	changed := strings.Replace(fixed, "context: {inherit: [messages]}", "context: {inherit: [messages]}\n    system: be brief", 1)
	fourth, err := runScripts(t, changed, TextInputOf("q"), byStage(third))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 1, 1}, counts()); diff != "" {
		t.Errorf("changed s2: counts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s1", "s3", "s4"}, fourth.Resumed); diff != "" {
		t.Errorf("changed s2: Resumed mismatch (-want +got):\n%s", diff)
	}

	// Another run input changes every stage's input.
	if _, err := runScripts(t, changed, TextInputOf("another question"), byStage(fourth)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 3, 1, 1}, counts()); diff != "" {
		// s3 and s4 read plain text from s2, whose output is still "two".
		t.Errorf("changed input: counts mismatch (-want +got):\n%s", diff)
	}
}

// TestReplay: a stage replayed from its snapshot gives the recorded output
// (equal) until what it depends on outside its context changes
// (different).
func TestReplay(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "value")
	if err := os.WriteFile(file, []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "stages:\n" + rawStage("show", fmt.Sprintf("exec: [./showfile, '%s']", file)) + "flow: show\n"
	run, err := runScripts(t, src, TextInputOf("q"), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshot(t, run, "show")
	opts := ReplayOptions{RunOptions: RunOptions{Dir: scriptsDir(t), Timeout: 20 * time.Second}}
	res, err := Replay(context.Background(), snap, opts)
	if err != nil || !res.Equal() || res.Output != "first" {
		t.Fatalf("Replay() = %+v, %v; want equal output first", res, err)
	}
	if err := os.WriteFile(file, []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Replay(context.Background(), snap, opts)
	if err != nil || res.Equal() || res.Recorded != "first" || res.Output != "second" {
		t.Fatalf("Replay() = %+v, %v; want first recorded, second now", res, err)
	}
	if _, err := Replay(context.Background(), snapshot(t, run, InputStage), opts); !errors.Is(err, ErrBadInput) {
		t.Errorf("Replay(the run input) = %v, want ErrBadInput", err)
	}
}

// throughFile is snap as --snapshots writes it (indented) and replay
// reads it back.
func throughFile(t *testing.T, snap *Snapshot) *Snapshot {
	t.Helper()
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var c Snapshot
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestReplayHooks: a replay runs the stage's hooks as the run did, each
// in its place: the after hook runs again and its artifact is there again
// (equal), the before hook's artifact reaches the stage's context again,
// a hook that now adds another value is a difference in the artifacts
// (the output text is the same), and a before hook that now vetoes stops
// the replay as it would stop a run. Without hooks (NoHooks, or a
// snapshot from before hook_kinds) the stage reads the context it read
// and only its output text is compared.
func TestReplayHooks(t *testing.T) {
	dir := t.TempDir()
	ticket, audit := filepath.Join(dir, "ticket"), filepath.Join(dir, "audit")
	writeTicket := func(s string) {
		if err := os.WriteFile(ticket, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeTicket(`{"artifacts":{"ticket":7}}`)
	src := "hooks:\n  before_stage: [./hookfile, '" + ticket + "']\nstages:\n" +
		countStage(dir, "a", `{"output_text":"a","artifacts":{"own":1}}`,
			`after: [./count, '`+audit+`', '{"artifacts":{"audit":"seen"}}']`) + "flow: a\n"
	run, err := runScripts(t, src, TextInputOf("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := throughFile(t, snapshot(t, run, "a"))
	if diff := cmp.Diff([]string{"before_stage", "after"}, snap.HookKinds); diff != "" {
		t.Fatalf("hook_kinds mismatch (-want +got):\n%s", diff)
	}
	opts := ReplayOptions{RunOptions: RunOptions{Dir: scriptsDir(t), Timeout: 20 * time.Second}}
	runs := func() []int { return []int{counted(t, filepath.Join(dir, "a")), counted(t, audit)} }
	arts := func(m map[string]json.RawMessage) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = string(v)
		}
		return out
	}

	res, err := Replay(context.Background(), snap, opts)
	if err != nil || !res.Equal() || res.Hooks != HooksRun {
		t.Fatalf("Replay() = %+v, %v; want equal, with hooks", res, err)
	}
	want := map[string]string{"ticket": "7", "own": "1", "audit": `"seen"`}
	if diff := cmp.Diff(want, arts(res.Artifacts)); diff != "" {
		t.Errorf("replayed artifacts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"ticket": "7"}, arts(res.Snapshot.Context.Artifacts)); diff != "" {
		t.Errorf("replayed context artifacts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 2}, runs()); diff != "" {
		t.Errorf("runs of the stage and its after hook mismatch (-want +got):\n%s", diff)
	}

	writeTicket(`{"artifacts":{"ticket":8}}`)
	res, err = Replay(context.Background(), snap, opts)
	if err != nil || res.Equal() || res.Output != res.Recorded {
		t.Fatalf("Replay() = %+v, %v; want the same text, other artifacts", res, err)
	}
	if got, was := string(res.Artifacts["ticket"]), string(res.RecordedArtifacts["ticket"]); got != "8" || was != "7" {
		t.Errorf("ticket artifact: replayed %s, recorded %s; want 8, 7", got, was)
	}

	// Alone, the stage reads the ticket it read then, and its text is the
	// same: equal.
	res, err = Replay(context.Background(), snap, ReplayOptions{RunOptions: opts.RunOptions, NoHooks: true})
	if err != nil || !res.Equal() || res.Hooks != HooksSkipped || res.Artifacts != nil {
		t.Fatalf("Replay(NoHooks) = %+v, %v; want equal text, hooks skipped", res, err)
	}
	if diff := cmp.Diff(map[string]string{"ticket": "7"}, arts(res.Snapshot.Context.Artifacts)); diff != "" {
		t.Errorf("NoHooks: context artifacts mismatch (-want +got):\n%s", diff)
	}
	old := *snap
	old.HookKinds = nil
	res, err = Replay(context.Background(), &old, opts)
	if err != nil || !res.Equal() || res.Hooks != HooksNotRecorded || len(res.Snapshot.Hooks) != 0 {
		t.Fatalf("Replay(no hook_kinds) = %+v, %v; want equal text, hooks not recorded", res, err)
	}
	if diff := cmp.Diff([]int{5, 3}, runs()); diff != "" {
		t.Errorf("runs mismatch (-want +got):\n%s", diff)
	}

	if err := os.Remove(ticket); err != nil {
		t.Fatal(err)
	}
	_, err = Replay(context.Background(), snap, opts)
	var se *StageError
	if !errors.Is(err, ErrVetoed) || !errors.As(err, &se) || se.Step != "before_stage" || se.Stage != "a" {
		t.Fatalf("Replay() error = %v, want a veto by the before_stage hook", err)
	}
	if diff := cmp.Diff([]int{5, 3}, runs()); diff != "" {
		t.Errorf("vetoed: the stage or its after hook ran: mismatch (-want +got):\n%s", diff)
	}

	edited := []struct {
		name string
		edit func(*Snapshot)
	}{
		{"kinds out of order", func(s *Snapshot) { s.HookKinds = []string{"after", "before_stage"} }},
		{"a kind twice", func(s *Snapshot) { s.HookKinds = []string{"before", "before"} }},
		{"a kind short", func(s *Snapshot) { s.HookKinds = []string{"before_stage"} }},
		{"an unknown kind", func(s *Snapshot) { s.HookKinds = []string{"before_stage", "later"} }},
		{"context", func(s *Snapshot) { s.Context.Artifacts["extra"] = json.RawMessage("1") }},
	}
	for _, tt := range edited {
		t.Run(tt.name, func(t *testing.T) {
			s := throughFile(t, snap)
			tt.edit(s)
			if _, err := Replay(context.Background(), s, opts); !errors.Is(err, ErrBadInput) {
				t.Errorf("Replay() error = %v, want ErrBadInput", err)
			}
		})
	}
}

// TestReplayKeptArtifact: a before hook that prints an artifact the stage
// inherited adds nothing (the inherited value stays, and the snapshot
// says so), so a replay keeps that artifact in the context it hands the
// hook.
func TestReplayKeptArtifact(t *testing.T) {
	dir := t.TempDir()
	src := "stages:\n" + countStage(dir, "a", `{"output_text":"a","artifacts":{"own":1}}`) +
		countStage(dir, "b", `{"output_text":"b"}`, "context: {inherit: [artifacts]}",
			`before: [./artifact, own, '2']`) + "flow: a >> b\n"
	run, err := runScripts(t, src, TextInputOf("go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := throughFile(t, snapshot(t, run, "b"))
	if len(snap.Hooks) != 1 || !slices.Equal(snap.Hooks[0].Kept, []string{"own"}) || !slices.Equal(snap.ArtifactClashes, []string{"own"}) {
		t.Fatalf("hooks %+v, clashes %v; want own kept, and a clash", snap.Hooks, snap.ArtifactClashes)
	}
	res, err := Replay(context.Background(), snap, ReplayOptions{RunOptions: RunOptions{Dir: scriptsDir(t), Timeout: 20 * time.Second}})
	if err != nil || !res.Equal() || res.Hooks != HooksRun || string(res.Artifacts["own"]) != "1" {
		t.Fatalf("Replay() = %+v, %v; want equal, own still 1", res, err)
	}
}

// TestResumeHookChanged: the definition digest covers the stage's hooks
// and the pipeline's, so a resumed run runs a stage again when one of
// them changed, and reuses it when a hook only moved from the stage to the
// pipeline's hooks (it runs the same, in the same place).
func TestResumeHookChanged(t *testing.T) {
	tests := []struct {
		name       string
		top, after string // the second run's pipeline hooks block and a's after hook
		wantRuns   int
		wantAudit  string
	}{
		{name: "same", after: `after: [./artifact, audit, '"one"']`, wantRuns: 1, wantAudit: `"one"`},
		{name: "another argument", after: `after: [./artifact, audit, '"two"']`, wantRuns: 2, wantAudit: `"two"`},
		{name: "a pipeline hook added", top: "hooks: {before_stage: [./artifact, ticket, '7']}\n",
			after: `after: [./artifact, audit, '"one"']`, wantRuns: 2, wantAudit: `"one"`},
		{name: "moved to the pipeline", top: `hooks: {after_stage: [./artifact, audit, '"one"']}` + "\n", wantRuns: 1, wantAudit: `"one"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pipe := func(top, after string) string {
				var extra []string
				if after != "" {
					extra = append(extra, after)
				}
				return top + "stages:\n" + countStage(dir, "a", `{"output_text":"a"}`, extra...) + "flow: a\n"
			}
			first, err := runScripts(t, pipe("", `after: [./artifact, audit, '"one"']`), TextInputOf("go"), nil)
			if err != nil {
				t.Fatal(err)
			}
			second, err := runScripts(t, pipe(tt.top, tt.after), TextInputOf("go"),
				map[string]*Snapshot{"a": throughFile(t, snapshot(t, first, "a"))})
			if err != nil {
				t.Fatal(err)
			}
			if got := counted(t, filepath.Join(dir, "a")); got != tt.wantRuns {
				t.Errorf("a ran %d times, want %d (resumed %v)", got, tt.wantRuns, second.Resumed)
			}
			if got := string(snapshot(t, second, "a").Artifacts["audit"]); got != tt.wantAudit {
				t.Errorf("audit artifact %s, want %s", got, tt.wantAudit)
			}
		})
	}
}

// TestPlainTextInput: a pipeline whose input_schema is string starts from
// plain text, which reaches the first stage as its user message.
func TestPlainTextInput(t *testing.T) {
	const src = "input_schema: string\nstages:\n  research: {exec: [./echo]}\n  summarize: {exec: [./echo]}\nflow: research >> summarize\n"
	p := parseString(t, "text.yaml", src)
	in, err := p.TextRunInput("quantum computing 2024")
	if err != nil {
		t.Fatal(err)
	}
	run, err := runScripts(t, src, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Message{{Role: "user", Content: "quantum computing 2024"}}, snapshot(t, run, "research").Context.Messages); diff != "" {
		t.Errorf("research's messages mismatch (-want +got):\n%s", diff)
	}
	if got := run.Output(); got != "echo: echo: quantum computing 2024" {
		t.Errorf("output %q", got)
	}
	if got := string(snapshot(t, run, InputStage).Artifacts[InputStage]); got != `"quantum computing 2024"` {
		t.Errorf("input artifact %s", got)
	}
	// A JSON string is the same input.
	if in2, err := p.ParseRunInput([]byte(`"quantum computing 2024"`)); err != nil || !in2.IsText() || in2.Text != in.Text {
		t.Errorf("ParseRunInput(JSON string) = %+v, %v", in2, err)
	}
}

// TestRunInputs: what each kind of pipeline takes as its run input.
func TestRunInputs(t *testing.T) {
	const proto = "protocols:\n  Topic: {topic: string}\n"
	tests := []struct {
		name    string
		src     string
		text    string // a plain-text input, or
		json    string // a JSON input
		want    string // the input's text, or
		wantErr string
	}{
		{name: "text to a request pipeline", src: "stages: {b: {uses: ka2.build}}\nflow: b\n", text: "hello",
			wantErr: "the pipeline's run input is ka2-request-v1, a JSON document"},
		{name: "text to an undeclared pipeline", src: "stages: {a: {exec: [./a]}}\nflow: a\n", text: "hello", want: "hello"},
		{name: "empty text", src: "input_schema: string\nstages: {a: {exec: [./a]}}\nflow: a\n", text: " ", wantErr: "the text is empty"},
		{name: "any JSON to an undeclared pipeline", src: "stages: {a: {exec: [./a]}}\nflow: a\n", json: "[1, 2]", want: "[1,2]"},
		{name: "not JSON", src: "stages: {a: {exec: [./a]}}\nflow: a\n", json: "[1, 2", wantErr: "not a JSON value"},
		{name: "a protocol", src: proto + "input_schema: Topic\nstages: {a: {exec: [./a], context: {input_schema: Topic}}}\nflow: a\n",
			json: `{"topic": "x"}`, want: `{"topic":"x"}`},
		{name: "breaks the protocol", src: proto + "input_schema: Topic\nstages: {a: {exec: [./a], context: {input_schema: Topic}}}\nflow: a\n",
			json: `{"topic": 1}`, wantErr: "breaks the pipeline's input_schema 'Topic'"},
		{name: "a number to a string pipeline", src: "input_schema: string\nstages: {a: {exec: [./a]}}\nflow: a\n", json: "1",
			wantErr: "give plain text or a JSON string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseString(t, "in.yaml", tt.src)
			if err := p.Diagnostics.Err(); err != nil {
				t.Fatalf("check: %s", diagnosticsText(p.Diagnostics))
			}
			var in RunInput
			var err error
			if tt.json != "" {
				in, err = p.ParseRunInput([]byte(tt.json))
			} else {
				in, err = p.TextRunInput(tt.text)
			}
			if tt.wantErr != "" {
				if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want ErrBadInput with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || in.text() != tt.want {
				t.Errorf("input = %q, %v; want %q", in.text(), err, tt.want)
			}
		})
	}
}

// TestOutputLimits: output over max_output_bytes or max_output_tokens
// fails the stage naming the limit; exactly at the limit passes.
func TestOutputLimits(t *testing.T) {
	reserve := sampleBuilder(t, 0).Limits.Reserve
	tests := []struct {
		name    string
		out     string
		limit   string
		input   string // the stage's context block
		wantErr string
	}{
		{name: "bytes: exactly full", out: "0123456789", limit: "max_output_bytes: 10"},
		{name: "bytes: one over", out: "0123456789A", limit: "max_output_bytes: 10",
			wantErr: "stage 'a': stage output over its limit: its output text is 11 bytes, over its max_output_bytes 10 by 1"},
		{name: "bytes count bytes, not characters", out: "ééééé+", limit: "max_output_bytes: 10", wantErr: "is 11 bytes"},
		{name: "tokens: reserve, exactly full", out: strings.Repeat("é", reserve), limit: "max_output_tokens: reserve",
			input: "context: {input_schema: ka2-context-v1}"},
		{name: "tokens: reserve, one over", out: strings.Repeat("é", reserve+1), limit: "max_output_tokens: reserve",
			input:   "context: {input_schema: ka2-context-v1}",
			wantErr: fmt.Sprintf("its output text is %d codepoint units, over the contract's output reserve R = %d (max_output_tokens: reserve) by 1", reserve+1, reserve)},
		{name: "tokens: a number", out: "abcd", limit: "max_output_tokens: 3", wantErr: "is 4 codepoint units, over its max_output_tokens 3 by 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			lines := []string{tt.limit}
			if tt.input != "" {
				lines = append(lines, tt.input)
			}
			src := "stages:\n  build: {uses: ka2.build}\n" + countStage(dir, "a", `{"output_text":"`+tt.out+`"}`, lines...) + "flow: build >> a\n"
			_, err := runScripts(t, src, RequestInput(lodging2026), nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var se *StageError
			if !errors.Is(err, ErrOutputLimit) || !errors.As(err, &se) || se.Step != "output" || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Run() error = %v, want ErrOutputLimit with %q", err, tt.wantErr)
			}
		})
	}
}

// TestCheckerArtifactForged: a stage or a hook that writes an artifact
// under a name a checker writes ("grade", "verification") is stopped at
// once, naming itself, whatever comes after it (a grade with on_fail:
// continue would otherwise hand the forged verdict on); and a later
// checker's own result wins over the one an earlier checker handed on.
func TestCheckerArtifactForged(t *testing.T) {
	const bad = "The limit is 750 CNY per room-night [travel-v2:99]."
	const forged = `{"ok":true,"findings":[]}`
	grade := rawStage("grade", "uses: ka2.grade", "on_fail: continue", "context: {inherit: [artifacts]}")
	tests := []struct {
		name      string
		stages    string // between build and use
		flow      string
		wantStage string
		wantStep  string
	}{
		{
			name:   "an answer stage prints a grade artifact",
			stages: "%answer{\"grade\":" + forged + "}\n" + grade,
			flow:   "build >> answer >> grade", wantStage: "answer", wantStep: "output",
		},
		{
			name:   "an answer stage prints a verification artifact",
			stages: "%answer{\"verification\":{\"ok\":true,\"problems\":[]}}\n" + grade,
			flow:   "build >> answer >> grade", wantStage: "answer", wantStep: "output",
		},
		{
			name: "the grade stage's own before hook",
			stages: "%answer{}\n" + rawStage("grade", "uses: ka2.grade", "on_fail: continue", "context: {inherit: [artifacts]}",
				`before: [./artifact, grade, '`+forged+`']`),
			flow: "build >> answer >> grade", wantStage: "grade", wantStep: "before",
		},
		{
			name:   "an after hook of the answer stage",
			stages: "%answer{}\n    after: [./artifact, grade, '" + forged + "']\n" + grade,
			flow:   "build >> answer >> grade", wantStage: "answer", wantStep: "after",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			stages := tt.stages
			if i := strings.Index(stages, "%answer"); i >= 0 {
				arts := stages[i+len("%answer") : strings.Index(stages, "\n")]
				stages = countStage(dir, "answer", `{"output_text":"`+bad+`","artifacts":`+arts+`}`, "context: {inherit: [artifacts]}") +
					stages[strings.Index(stages, "\n")+1:]
			}
			src := "stages:\n  build: {uses: ka2.build}\n" + stages +
				countStage(dir, "use", `{"output_text":"used"}`, "context: {inherit: [artifacts]}") + "flow: " + tt.flow + " >> use\n"
			run, err := runScripts(t, src, RequestInput(lodging2026), nil)
			wantStopped(t, err, ErrCheckerArtifact, tt.wantStage, filepath.Join(dir, "use"))
			var se *StageError
			errors.As(err, &se)
			if se.Step != tt.wantStep || !strings.Contains(err.Error(), "writes artifact 'grade'") && !strings.Contains(err.Error(), "writes artifact 'verification'") {
				t.Errorf("error %v at step %s, want step %s naming the artifact", err, se.Step, tt.wantStep)
			}
			if last := run.Snapshots[len(run.Snapshots)-1]; last.Stage != tt.wantStage {
				t.Errorf("the run's last snapshot is %s's, want the stopped stage %s's", last.Stage, tt.wantStage)
			}
		})
	}

	// grade1 passes, grade2 fails with on_fail: continue: what grade2
	// hands on is its own verdict, not the one it inherited.
	dir := t.TempDir()
	src := "stages:\n  build: {uses: ka2.build}\n" +
		countStage(dir, "a1", `{"output_text":"The limit is 750 CNY per room-night [travel-v2:3]."}`, "context: {inherit: [artifacts]}") +
		rawStage("grade1", "uses: ka2.grade", "context: {inherit: [artifacts]}") +
		countStage(dir, "a2", `{"output_text":"`+bad+`"}`, "context: {inherit: [artifacts]}") +
		rawStage("grade2", "uses: ka2.grade", "on_fail: continue", "context: {inherit: [artifacts]}") +
		"flow: build >> a1 >> grade1 >> a2 >> grade2\n"
	run, err := runScripts(t, src, RequestInput(lodging2026), nil)
	if err != nil {
		t.Fatal(err)
	}
	g2 := snapshot(t, run, "grade2")
	if got := artifactOf[Grade](t, g2, "grade"); got.OK || len(got.Findings) == 0 {
		t.Errorf("grade2 hands on %s, want its own failed grade", g2.Artifacts["grade"])
	}
	if !slices.Equal(g2.ArtifactClashes, []string{"grade"}) {
		t.Errorf("grade2's clashes = %v, want the replaced grade recorded", g2.ArtifactClashes)
	}
}

// TestResumeContradiction: a snapshot that would be reused, edited so
// that its content contradicts the outcome it records, is a
// *SnapshotError for its stage, and the stage is not run (nor reused).
func TestResumeContradiction(t *testing.T) {
	dir := t.TempDir()
	src := "protocols:\n  P: {x: string}\ninput_schema: string\nstages:\n" +
		countStage(dir, "a", `{"output":{"x":"ok"}}`, "context: {output_schema: P}", "max_output_bytes: 20",
			"after: [./artifact, audit, '\"seen\"']") +
		"flow: a\n"
	first, err := runScripts(t, src, TextInputOf("q"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(s *Snapshot)
		want string
	}{
		{name: "a hook that vetoed", edit: func(s *Snapshot) { s.Hooks[0].ExitCode = 3 },
			want: "completed, but records hook after (./artifact audit \"seen\") exiting with status 3"},
		{name: "a hook left out", edit: func(s *Snapshot) { s.Hooks = nil },
			want: "completed, but records 0 hook run(s) where its definition has 1 hook(s)"},
		{name: "an output that breaks its schema", edit: func(s *Snapshot) { s.OutputText = `{"x":1}` },
			want: "its output text breaks output_schema 'P'"},
		{name: "an output over its limit", edit: func(s *Snapshot) { s.OutputText = `{"x":"` + strings.Repeat("o", 30) + `"}` },
			want: "over its max_output_bytes 20"},
		{name: "another output schema", edit: func(s *Snapshot) { s.OutputSchema = "" },
			want: "records output_schema '', not its definition's 'P'"},
		{name: "another sink", edit: func(s *Snapshot) { s.Sink = "discard" },
			want: "records sink discard, not its definition's downstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(snapshot(t, first, "a"))
			if err != nil {
				t.Fatal(err)
			}
			var prev Snapshot
			if err := json.Unmarshal(b, &prev); err != nil {
				t.Fatal(err)
			}
			tt.edit(&prev)
			run, err := runScripts(t, src, TextInputOf("q"), map[string]*Snapshot{"a": &prev})
			var se *SnapshotError
			if !errors.As(err, &se) || !errors.Is(err, ErrBadSnapshot) || se.Stage != "a" || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run() error = %v, want a SnapshotError of stage a saying …%s…", err, tt.want)
			}
			if counted(t, filepath.Join(dir, "a")) != 1 || len(run.Snapshots) != 1 || len(run.Resumed) != 0 {
				t.Errorf("the stage ran or was reused: %d runs, snapshots %d, resumed %v", counted(t, filepath.Join(dir, "a")), len(run.Snapshots), run.Resumed)
			}
		})
	}
}

// TestReplayPipeline: a replay with the pipeline runs the stage as the
// pipeline file defines it, with its hooks, and refuses when that is not
// the definition the snapshot's digest names; an edited command in the
// snapshot, its digest written to match, never runs. Without the
// pipeline, a snapshot whose definition or exec is not the one its digest
// names is a *SnapshotError.
func TestReplayPipeline(t *testing.T) {
	dir := t.TempDir()
	src := "stages:\n" + countStage(dir, "a", `{"output_text":"a"}`, `after: [./artifact, audit, '"seen"']`) + "flow: a\n"
	p := parseString(t, "replay.yaml", src)
	run, err := p.Run(context.Background(), TextInputOf("q"), RunOptions{Dir: scriptsDir(t), Timeout: 7 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	snap := throughFile(t, snapshot(t, run, "a"))
	// Replayed with the default time limit: the run's, which the
	// definition records, is the one it runs with.
	opts := ReplayOptions{RunOptions: RunOptions{Dir: scriptsDir(t), Timeout: time.Minute}, Pipeline: p}
	res, err := Replay(context.Background(), snap, opts)
	if err != nil || !res.Equal() || res.Hooks != HooksRun || string(res.Artifacts["audit"]) != `"seen"` {
		t.Fatalf("Replay() = %+v, %v; want equal, with hooks", res, err)
	}
	if got := counted(t, filepath.Join(dir, "a")); got != 2 {
		t.Errorf("a ran %d times, want 2", got)
	}

	marker := filepath.Join(dir, "forged")
	forged := []string{"./count", marker, `{"output_text":"a"}`}
	tests := []struct {
		name     string
		p        *Pipeline // nil: without the pipeline
		edit     func(s *Snapshot)
		wantIs   error
		wantText string
	}{
		{name: "exec edited, digest rewritten", p: p, edit: func(s *Snapshot) {
			s.Exec, s.Definition.Exec = forged, forged
			s.Digests.Definition = digestJSON(s.Definition)
		}, wantIs: ErrDefinitionChanged, wantText: "'a' differs in exec"},
		{name: "exec edited", p: p, edit: func(s *Snapshot) { s.Definition.Exec = forged },
			wantIs: ErrBadSnapshot, wantText: "records a definition that is not the one its definition digest names"},
		{name: "exec edited, without the pipeline", edit: func(s *Snapshot) { s.Definition.Exec = forged },
			wantIs: ErrBadSnapshot, wantText: "records a definition that is not the one its definition digest names"},
		{name: "the top-level exec edited, without the pipeline", edit: func(s *Snapshot) { s.Exec = forged },
			wantIs: ErrBadSnapshot, wantText: "records exec"},
		{name: "the file's stage changed", p: parseString(t, "replay.yaml", strings.Replace(src, `"a"`, `"b"`, 1)),
			edit: func(*Snapshot) {}, wantIs: ErrDefinitionChanged, wantText: "'a' differs in exec"},
		{name: "the file's hooks changed", p: parseString(t, "replay.yaml", strings.Replace(src, `"seen"`, `"heard"`, 1)),
			edit: func(*Snapshot) {}, wantIs: ErrDefinitionChanged, wantText: "'a' differs in after"},
		{name: "the stage gone from the file", p: parseString(t, "replay.yaml", "stages:\n  b: {exec: [./b]}\nflow: b\n"),
			edit: func(*Snapshot) {}, wantIs: ErrDefinitionChanged, wantText: "runs no stage 'a'"},
		{name: "the context edited", p: p, edit: func(s *Snapshot) { s.Context.Messages[0].Content = "other" },
			wantIs: ErrBadInput, wantText: "does not match its input digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := throughFile(t, snap)
			tt.edit(s)
			o := opts
			o.Pipeline = tt.p
			_, err := Replay(context.Background(), s, o)
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Replay() error = %v, want %v: …%s…", err, tt.wantIs, tt.wantText)
			}
			if counted(t, marker) != 0 {
				t.Errorf("the command edited into the snapshot ran")
			}
		})
	}
}

// TestVerifyFromFile: a ka2.verify snapshot read back from its file (the
// contract in its context indented, as --snapshots writes it) is run
// again on the compact contract the run handed it: --resume checks it
// again and agrees, and a replay is equal, where verifying the indented
// bytes would find the contract not canonical.
func TestVerifyFromFile(t *testing.T) {
	src := "stages:\n  build: {uses: ka2.build}\n  verify: {uses: ka2.verify, context: {inherit: [artifacts]}}\nflow: build >> verify\n"
	first, err := runScripts(t, src, RequestInput(lodging2026), nil)
	if err != nil {
		t.Fatal(err)
	}
	resume := map[string]*Snapshot{}
	for _, s := range first.Snapshots {
		resume[s.Stage] = throughFile(t, s)
	}
	second, err := runScripts(t, src, RequestInput(lodging2026), resume)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"build", "verify"}, second.Rechecked); diff != "" {
		t.Errorf("rechecked stages mismatch (-want +got):\n%s", diff)
	}
	res, err := Replay(context.Background(), resume["verify"], ReplayOptions{RunOptions: RunOptions{Builder: sampleBuilder(t, 0), Dir: scriptsDir(t)}})
	if err != nil || !res.Equal() {
		t.Errorf("Replay(verify) = %+v, %v; want equal", res.Output == res.Recorded, err)
	}
}
