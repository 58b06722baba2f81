package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/selector"
)

// sampleIndex is the embedded sample corpus, indexed once.
var sampleIndex = sync.OnceValues(func() (*selector.Index, error) {
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		return nil, err
	}
	return selector.NewIndex(c), nil
})

// sampleBuilder builds contracts from the sample corpus with the default
// definition and budget; capacity, when positive, replaces the capacity.
func sampleBuilder(t testing.TB, capacity int) *contract.Builder {
	t.Helper()
	ix, err := sampleIndex()
	if err != nil {
		t.Fatal(err)
	}
	def := contract.Default()
	counter, err := budget.Lookup(def.Budget.DefaultCounter)
	if err != nil {
		t.Fatal(err)
	}
	limits, err := def.Limits(def.Budget.DefaultCounter)
	if err != nil {
		t.Fatal(err)
	}
	if capacity > 0 {
		limits.Capacity = capacity
	}
	return &contract.Builder{Definition: def, Index: ix, Counter: counter, Limits: limits}
}

// lodging2026 is the question of SPEC.md's worked example.
var lodging2026 = contract.RequestFile{Question: "What is the Beijing lodging limit for a trip on 2026-09-14?",
	Subjects: []string{"lodging"}, Dates: []string{"2026-09-14"}, Lang: "en"}

// runPipeline parses src, wants it clean, and runs it on in with the test
// stage programs.
func runPipeline(t *testing.T, src string, in contract.RequestFile) (*Run, error) {
	t.Helper()
	return runPipelineWith(t, src, in, nil)
}

// runPipelineWith is runPipeline with the options set changes, if not nil.
func runPipelineWith(t *testing.T, src string, in contract.RequestFile, set func(*RunOptions)) (*Run, error) {
	t.Helper()
	p := parseString(t, "run.yaml", src)
	if err := p.Diagnostics.Err(); err != nil {
		t.Fatalf("check: %v\n%s", err, diagnosticsText(p.Diagnostics))
	}
	opts := RunOptions{Builder: sampleBuilder(t, 0), Dir: stageBin(t), Timeout: 20 * time.Second}
	if set != nil {
		set(&opts)
	}
	return p.Run(context.Background(), RequestInput(in), opts)
}

// snapshot finds a stage's snapshot.
func snapshot(t *testing.T, run *Run, stage string) *Snapshot {
	t.Helper()
	for _, s := range run.Snapshots {
		if s.Stage == stage {
			return s
		}
	}
	t.Fatalf("no snapshot for stage %s", stage)
	return nil
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// indentJSON encodes v the way the CLI writes documents (--snapshots,
// --format json): indented, HTML left unescaped.
func indentJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRunThreeStage is the real run: ka2.build >> answer (extracts the
// cited amount from the contract) >> check (checks the citation against
// the contract the answer was made from).
func TestRunThreeStage(t *testing.T) {
	src := readFile(t, "testdata/pipelines/answer.yaml")
	tests := []struct {
		name       string
		in         contract.RequestFile
		wantAnswer string
		wantCite   string
	}{
		{name: "2026", in: lodging2026,
			wantAnswer: "The lodging limit is 750 CNY per room-night. [travel-v2:3-3]", wantCite: "travel-v2:3-3"},
		{name: "2025", in: contract.RequestFile{Question: "Lodging limit in 2025?", Subjects: []string{"lodging"}, Dates: []string{"2025-09-14"}},
			wantAnswer: "The lodging limit is 600 CNY per room-night. [travel-v1:3-3]", wantCite: "travel-v1:3-3"},
		{name: "zh", in: contract.RequestFile{Question: "2026 年住宿标准是多少？", Subjects: []string{"lodging"}, Dates: []string{"2026-09-14"}, Lang: "zh"},
			wantAnswer: "住宿标准上限为每间夜 750 元。 [travel-v2:3-3]", wantCite: "travel-v2:3-3"},
		{name: "short quotes", in: contract.RequestFile{Question: "Limit?", Subjects: []string{"lodging"}, Dates: []string{"2026-01-01"}, Short: new(true)},
			wantAnswer: "The lodging limit is 750 CNY per room-night. [travel-v2:3-3]", wantCite: "travel-v2:3-3"},
		// The whole bodies of both versions do not fit the default budget;
		// the cite ranges do.
		{name: "comparison: the current version comes first", in: contract.RequestFile{Question: "How did the limit change?",
			Subjects: []string{"lodging"}, Dates: []string{"2025-09-14", "2026-09-14"}, Short: new(true)},
			wantAnswer: "The lodging limit is 750 CNY per room-night. [travel-v2:3-3]", wantCite: "travel-v2:3-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := runPipeline(t, src, tt.in)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var stages []string
			for _, s := range run.Snapshots {
				stages = append(stages, s.Stage+"/"+s.Runner)
			}
			if diff := cmp.Diff([]string{"input/input", "build/ka2.build", "answer/exec", "check/exec"}, stages); diff != "" {
				t.Fatalf("stages mismatch (-want +got):\n%s", diff)
			}
			build := snapshot(t, run, "build")
			if build.OutputSchema != "ka2-context-v1" || string(build.Artifacts["contract"]) != build.OutputText {
				t.Errorf("build: output_schema %q, contract artifact equal to output text: %v",
					build.OutputSchema, string(build.Artifacts["contract"]) == build.OutputText)
			}
			var ans struct{ Answer, Citation string }
			if err := json.Unmarshal([]byte(snapshot(t, run, "answer").OutputText), &ans); err != nil {
				t.Fatal(err)
			}
			if ans.Answer != tt.wantAnswer || ans.Citation != tt.wantCite {
				t.Errorf("answer = %q citing %s, want %q citing %s", ans.Answer, ans.Citation, tt.wantAnswer, tt.wantCite)
			}
			var verdict struct {
				OK       bool
				Citation string
			}
			if err := json.Unmarshal([]byte(run.Output()), &verdict); err != nil {
				t.Fatal(err)
			}
			if !verdict.OK || verdict.Citation != tt.wantCite {
				t.Errorf("verdict = %+v, want ok citing %s", verdict, tt.wantCite)
			}
			// The check stage saw the contract ka2 built, unchanged.
			got := snapshot(t, run, "check").Context.Artifacts["contract"]
			if string(got) != build.OutputText {
				t.Errorf("check's contract artifact differs from the built contract")
			}
		})
	}
}

// TestRunThreeStageGolden pins every snapshot of the worked example and
// shows two runs give the same bytes.
func TestRunThreeStageGolden(t *testing.T) {
	src := readFile(t, "testdata/pipelines/answer.yaml")
	run1, err := runPipeline(t, src, lodging2026)
	if err != nil {
		t.Fatal(err)
	}
	run2, err := runPipeline(t, src, lodging2026)
	if err != nil {
		t.Fatal(err)
	}
	got := indentJSON(t, run1.Snapshots)
	if !bytes.Equal(got, indentJSON(t, run2.Snapshots)) {
		t.Error("two runs of the same pipeline on the same input gave different snapshots")
	}
	goldie.New(t, goldie.WithFixtureDir("testdata/golden")).Assert(t, "run-answer-snapshots", got)
}

// TestRunCheckCatchesAWrongAnswer: the answer stage lies about the amount;
// the check stage exits 1, which stops the run with its status and stderr.
func TestRunCheckCatchesAWrongAnswer(t *testing.T) {
	src := strings.Replace(readFile(t, "testdata/pipelines/answer.yaml"), "exec: [./answer]", "exec: [./answer, -amount, '600']", 1)
	run, err := runPipeline(t, src, lodging2026)
	var se *StageError
	if !errors.As(err, &se) || se.Stage != "check" || se.ExitCode != 1 || !errors.Is(err, ErrStageFailed) {
		t.Fatalf("Run() error = %v, want check failing with status 1", err)
	}
	snap := snapshot(t, run, "check")
	if !strings.Contains(snap.Stderr, "travel-v2:3-3 do not state 600") || snap.ExitCode != 1 || snap.Error == "" {
		t.Errorf("check snapshot: stderr %q, exit %d, error %q", snap.Stderr, snap.ExitCode, snap.Error)
	}
	if !strings.Contains(err.Error(), "do not state 600") {
		t.Errorf("error %q does not carry the stage's last stderr line", err)
	}
}

// emitStage writes a stage that runs the emit test program.
func emitStage(name, out string, extra ...string) string {
	s := fmt.Sprintf("  %s:\n    exec: [./emit, -out, '%s']\n", name, out)
	for _, e := range extra {
		s += "    " + e + "\n"
	}
	return s
}

// rawStage writes a stage from its lines.
func rawStage(name string, lines ...string) string {
	s := "  " + name + ":\n"
	for _, l := range lines {
		s += "    " + l + "\n"
	}
	return s
}

// TestRunInherit runs every combination of inherit and checks what the
// downstream stage was given and what its snapshot hands on.
func TestRunInherit(t *testing.T) {
	const upOut = `{"output_text":"up-text","messages":[{"role":"assistant","content":"a1"},{"role":"tool","content":"t1"}],` +
		`"tool_results":[{"tool":"search","content":{"hits":1}}],"artifacts":{"clash":"from-up","u":1}}`
	const downOut = `{"output_text":"down-text","tool_results":[{"tool":"calc","content":2}],"artifacts":{"clash":"from-down","d":2}}`
	input := json.RawMessage(RequestInput(lodging2026).JSON)
	for mask := range 8 {
		var parts []string
		msgs, arts, tools := mask&1 != 0, mask&2 != 0, mask&4 != 0
		for i, p := range []string{"messages", "artifacts", "tool_results"} {
			if mask&(1<<i) != 0 {
				parts = append(parts, p)
			}
		}
		t.Run("inherit=["+strings.Join(parts, ",")+"]", func(t *testing.T) {
			src := "input_schema: ka2-request-v1\nstages:\n" +
				emitStage("up", upOut, "system: up-system", "context: {inherit: [messages, artifacts]}") +
				emitStage("down", downOut, "system: down-system", "context: {inherit: ["+strings.Join(parts, ", ")+"]}") +
				"flow: up >> down\n"
			run, err := runPipeline(t, src, lodging2026)
			if err != nil {
				t.Fatal(err)
			}
			down := snapshot(t, run, "down")

			wantCtx := &StageContext{Stage: "down", Source: "upstream", From: "up",
				Messages:    []Message{{Role: "system", Content: "down-system"}},
				ToolResults: []ToolResult{}, Artifacts: map[string]json.RawMessage{}}
			if msgs { // upstream's conversation, without its system message
				wantCtx.Messages = append(wantCtx.Messages, Message{"user", lodging2026.Question},
					Message{"assistant", "a1"}, Message{"tool", "t1"})
			} else { // upstream's output text as one user message
				wantCtx.Messages = append(wantCtx.Messages, Message{"user", "up-text"})
			}
			if tools {
				wantCtx.ToolResults = []ToolResult{{Tool: "search", Content: json.RawMessage(`{"hits":1}`)}}
			}
			if arts {
				wantCtx.Artifacts = map[string]json.RawMessage{"clash": []byte(`"from-up"`), "u": []byte("1"), "input": input}
			}
			if diff := cmp.Diff(wantCtx, down.Context); diff != "" {
				t.Errorf("down's context mismatch (-want +got):\n%s", diff)
			}

			wantTools := []ToolResult{{Tool: "calc", Content: json.RawMessage("2")}}
			wantArts := map[string]json.RawMessage{"clash": []byte(`"from-down"`), "d": []byte("2")}
			var wantClashes []string
			if tools { // appended after the inherited ones
				wantTools = append([]ToolResult{{Tool: "search", Content: json.RawMessage(`{"hits":1}`)}}, wantTools...)
			}
			if arts { // merged, upstream winning
				wantArts = map[string]json.RawMessage{"clash": []byte(`"from-up"`), "d": []byte("2"), "u": []byte("1"), "input": input}
				wantClashes = []string{"clash"}
			}
			wantMsgs := append(append([]Message{}, wantCtx.Messages...), Message{"assistant", "down-text"})
			got := struct {
				Messages    []Message
				ToolResults []ToolResult
				Artifacts   map[string]json.RawMessage
				Clashes     []string
			}{down.Messages, down.ToolResults, down.Artifacts, down.ArtifactClashes}
			want := got
			want.Messages, want.ToolResults, want.Artifacts, want.Clashes = wantMsgs, wantTools, wantArts, wantClashes
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("down's snapshot mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunMaxHistoryTurns keeps the last N user turns and everything after
// the first of them; the stage's own system message always stays.
func TestRunMaxHistoryTurns(t *testing.T) {
	const upOut = `{"output_text":"up-text","messages":[{"role":"assistant","content":"a0"},{"role":"user","content":"u1"},` +
		`{"role":"assistant","content":"a1"},{"role":"user","content":"u2"},{"role":"assistant","content":"a2"},` +
		`{"role":"user","content":"u3"},{"role":"tool","content":"t3"}]}`
	all := []Message{{"user", string(RequestInput(lodging2026).JSON)}, {"assistant", "a0"}, {"user", "u1"}, {"assistant", "a1"},
		{"user", "u2"}, {"assistant", "a2"}, {"user", "u3"}, {"tool", "t3"}}
	sys := Message{"system", "sys"}
	tests := []struct {
		name        string
		context     string
		want        []Message
		wantTrimmed int
	}{
		{"1 turn", "{inherit: [messages], max_history_turns: 1}", append([]Message{sys}, all[6:]...), 6},
		{"2 turns", "{inherit: [messages], max_history_turns: 2}", append([]Message{sys}, all[4:]...), 4},
		{"3 turns", "{inherit: [messages], max_history_turns: 3}", append([]Message{sys}, all[2:]...), 2},
		{"exactly all turns", "{inherit: [messages], max_history_turns: 4}", append([]Message{sys}, all...), 0},
		{"more than there are", "{inherit: [messages], max_history_turns: 9}", append([]Message{sys}, all...), 0},
		{"no limit", "{inherit: [messages]}", append([]Message{sys}, all...), 0},
		{"plain hand-off is one turn", "{max_history_turns: 1}", []Message{sys, {"user", "up-text"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "stages:\n" + emitStage("up", upOut) +
				emitStage("down", `{"output_text":"ok"}`, "system: sys", "context: "+tt.context) + "flow: up >> down\n"
			run, err := runPipeline(t, src, lodging2026)
			if err != nil {
				t.Fatal(err)
			}
			ctx := snapshot(t, run, "down").Context
			if diff := cmp.Diff(tt.want, ctx.Messages); diff != "" {
				t.Errorf("messages mismatch (-want +got):\n%s", diff)
			}
			if ctx.TrimmedMessages != tt.wantTrimmed {
				t.Errorf("trimmed %d messages, want %d", ctx.TrimmedMessages, tt.wantTrimmed)
			}
		})
	}
}

// TestRunSharedAndDiscard follows the contexts through shared stores, a
// fresh start and a discard sink.
func TestRunSharedAndDiscard(t *testing.T) {
	src := "stages:\n" +
		emitStage("a", `{"output_text":"from-a"}`, "context: {sink: shared:notes}") +
		emitStage("b", `{"output_text":"from-b"}`, "context: {source: fresh, sink: discard}") +
		emitStage("c", `{"output_text":"from-c"}`, "context: {source: shared:notes}") +
		emitStage("d", `{"output_text":"from-d"}`, "context: {sink: shared:notes}") +
		emitStage("e", `{"output_text":"from-e"}`, "context: {source: shared:notes, sink: discard}") +
		"flow: a >> b >> c >> d >> e\n"
	run, err := runPipeline(t, src, lodging2026)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ Stage, Source, From, Got, Sink string }
	var got []seen
	for _, s := range run.Snapshots[1:] {
		got = append(got, seen{s.Stage, s.Context.Source, s.Context.From, s.Context.Messages[0].Content, s.Sink})
	}
	want := []seen{
		{"a", "upstream", "input", string(RequestInput(lodging2026).JSON), "shared:notes"},
		{"b", "fresh", "input", string(RequestInput(lodging2026).JSON), "discard"},
		{"c", "shared:notes", "a", "from-a", "downstream"},
		{"d", "upstream", "c", "from-c", "shared:notes"},
		{"e", "shared:notes", "d", "from-d", "discard"}, // d overwrote a's notes
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hand-offs mismatch (-want +got):\n%s", diff)
	}
	if run.Output() != "from-e" {
		t.Errorf("Output() = %q, want the last stage's output text", run.Output())
	}
}

// TestRunStops checks that a stage that fails, times out or breaks its
// schema stops the run, names the stage, and nothing after it runs.
func TestRunStops(t *testing.T) {
	const schemas = "protocols:\n  P: {x: string}\n"
	// The stdout cases flood past a 1 MiB limit, or under -long past the
	// real one (TestStdoutLimit checks it is 32 MiB).
	stdoutLimit, limitMiB := 1<<20, 1
	if *long {
		stdoutLimit, limitMiB = 0, maxStdout>>20 // 0: the default
	}
	overLimit := fmt.Sprintf("more than %d MiB on stdout", limitMiB)
	tests := []struct {
		name      string
		src       string
		wantIs    error
		wantStage string
		wantStep  string
		wantExit  int
		wantErr   string // part of the message
		wantRan   int    // snapshots, including the run input's
	}{
		{
			name:   "output breaks its schema",
			src:    schemas + "stages:\n" + emitStage("a", `{"output":{"x":1}}`, "context: {output_schema: P}") + emitStage("b", "{}") + "flow: a >> b\n",
			wantIs: ErrSchema, wantStage: "a", wantStep: "output", wantRan: 2,
			wantErr: "stage 'a': its output breaks output_schema 'P': breaks its schema: /x is a number, want string",
		},
		{
			name:   "output is plain text where a schema is declared",
			src:    schemas + "stages:\n" + emitStage("a", `{"output_text":"hello"}`, "context: {output_schema: P}") + "flow: a\n",
			wantIs: ErrSchema, wantStage: "a", wantStep: "output", wantRan: 2, wantErr: "not a JSON document",
		},
		{
			name:   "non-zero exit",
			src:    "stages:\n" + rawStage("a", "exec: [./emit, -exit, '3', -stderr, 'boom']") + emitStage("b", "{}") + "flow: a >> b\n",
			wantIs: ErrStageFailed, wantStage: "a", wantStep: "run", wantExit: 3, wantRan: 2, wantErr: "exited with status 3: boom",
		},
		{
			name:   "timeout",
			src:    "stages:\n" + rawStage("slow", "exec: [./emit, -sleep, 20s]", "timeout: 300ms") + emitStage("b", "{}") + "flow: slow >> b\n",
			wantIs: ErrTimeout, wantStage: "slow", wantStep: "run", wantExit: -1, wantRan: 2, wantErr: "did not finish within 300ms; its process group was ended",
		},
		{
			name:   "50 MB on stdout is over the limit, not a JSON error",
			src:    "stages:\n" + rawStage("big", "exec: [./emit, -flood-stdout, '5000000']") + emitStage("b", "{}") + "flow: big >> b\n",
			wantIs: ErrOutputLimit, wantStage: "big", wantStep: "output", wantExit: -1, wantRan: 2,
			wantErr: "stage 'big': stage output over its limit: ./emit wrote " + overLimit + ", the limit for a stage's output; it was stopped and its process group was ended",
		},
		{
			name:   "stdout without end is stopped at the limit, not at the time-out",
			src:    "stages:\n" + rawStage("yes", "exec: [./emit, -flood-stdout, '-1']") + "flow: yes\n",
			wantIs: ErrOutputLimit, wantStage: "yes", wantStep: "output", wantExit: -1, wantRan: 2, wantErr: overLimit,
		},
		{
			name:   "not a stage output document",
			src:    "stages:\n" + emitStage("a", `{"output_txt":"x"}`) + "flow: a\n",
			wantIs: ErrBadOutput, wantStage: "a", wantStep: "output", wantRan: 2, wantErr: `unknown field "output_txt"`,
		},
		{
			name:   "nothing on stdout",
			src:    "stages:\n" + emitStage("a", "") + "flow: a\n",
			wantIs: ErrBadOutput, wantStage: "a", wantStep: "output", wantRan: 2, wantErr: "nothing on stdout",
		},
		{
			name:   "bad role",
			src:    "stages:\n" + emitStage("a", `{"output_text":"x","messages":[{"role":"robot","content":"x"}]}`) + "flow: a\n",
			wantIs: ErrBadOutput, wantStage: "a", wantStep: "output", wantRan: 2, wantErr: `role "robot"`,
		},
		{
			name:   "program not found",
			src:    "stages:\n  a: {exec: [./no-such-program]}\n  b: {exec: [./emit]}\nflow: a >> b\n",
			wantIs: ErrStageFailed, wantStage: "a", wantStep: "run", wantExit: 0, wantRan: 2, wantErr: "cannot run ./no-such-program",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A time limit passes when the stage has started, not after
			// a wait; no other limit here depends on time.
			var after func(time.Duration) <-chan time.Time
			if tt.wantIs == ErrTimeout {
				after = testutil.Passed
			}
			run, err := runPipelineWith(t, tt.src, lodging2026, func(o *RunOptions) { o.After, o.maxStdout = after, stdoutLimit })
			var se *StageError
			if !errors.Is(err, tt.wantIs) || !errors.As(err, &se) {
				t.Fatalf("Run() error = %v, want a *StageError matching %v", err, tt.wantIs)
			}
			got := []any{se.Stage, se.Step, se.ExitCode, len(run.Snapshots)}
			if diff := cmp.Diff([]any{tt.wantStage, tt.wantStep, tt.wantExit, tt.wantRan}, got); diff != "" {
				t.Errorf("stage, step, exit code, snapshots mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			// A time-out's hint names the timeout setting, which each
			// front end words (the CLI as --timeout); no message names a
			// flag.
			var wantSettings []string
			if tt.wantIs == ErrTimeout {
				wantSettings = []string{"timeout"}
			}
			if diff := cmp.Diff(wantSettings, diag.Settings(err)); diff != "" || strings.Contains(err.Error(), "--") {
				t.Errorf("error %q: hint settings mismatch (-want +got):\n%s", err, diff)
			}
			last := run.Snapshots[len(run.Snapshots)-1]
			if last.Stage != tt.wantStage || last.Error != err.Error() {
				t.Errorf("last snapshot is %s with error %q, want %s with the run's error", last.Stage, last.Error, tt.wantStage)
			}
		})
	}
}

// TestStdoutLimit: an exec program may write 32 MiB on stdout unless a
// test sets a smaller limit.
func TestStdoutLimit(t *testing.T) {
	if got := (&runner{}).stdoutLimit(); got != 32<<20 {
		t.Errorf("stdout limit = %d, want 32 MiB", got)
	}
	if got := (&runner{opts: RunOptions{maxStdout: 1 << 20}}).stdoutLimit(); got != 1<<20 {
		t.Errorf("stdout limit set to 1 MiB = %d", got)
	}
}

// TestRunKeepsStderr: a stage's stderr is kept in its snapshot also when
// it succeeds.
func TestRunKeepsStderr(t *testing.T) {
	src := "stages:\n" + rawStage("a", "exec: [./emit, -stderr, \"line one\\nline two\\n\"]") + "flow: a\n"
	run, err := runPipeline(t, src, lodging2026)
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, run, "a").Stderr; got != "line one\nline two\n" {
		t.Errorf("stderr = %q", got)
	}
}

// TestRunCutsStderr: stderr over its 1 MiB limit keeps its last 1 MiB
// after a line saying how much was cut, and the stage still succeeds.
func TestRunCutsStderr(t *testing.T) {
	const lines = 200000 // "line 0\n" … "line 199999\n": 2,288,890 bytes
	total := 0
	for i := range lines {
		total += len(fmt.Sprintf("line %d\n", i))
	}
	src := "stages:\n" + rawStage("a", fmt.Sprintf("exec: [./emit, -flood-stderr, '%d']", lines)) + "flow: a\n"
	run, err := runPipeline(t, src, lodging2026)
	if err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, run, "a").Stderr
	note, kept, ok := strings.Cut(got, "\n")
	if !ok || len(kept) != maxStderr || !strings.HasSuffix(kept, "\nline 199999\n") {
		t.Fatalf("stderr: %d bytes kept after %q, want the last %d bytes", len(kept), note, maxStderr)
	}
	want := fmt.Sprintf("[ka2: stderr is over its 1 MiB limit; its first %d bytes were not kept]", total-maxStderr)
	if note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
}

// TestRunBuildErrors: the builder's errors stop the run at the ka2.build
// stage and stay matchable.
func TestRunBuildErrors(t *testing.T) {
	p := parseString(t, "b.yaml", "stages:\n  build: {uses: ka2.build}\n  next: {exec: [./emit]}\nflow: build >> next\n")
	_, err := p.Run(context.Background(), RequestInput(lodging2026), RunOptions{Builder: sampleBuilder(t, 300), Dir: stageBin(t)})
	var se *StageError
	if !errors.Is(err, budget.ErrOverBudget) || !errors.As(err, &se) || se.Stage != "build" {
		t.Errorf("over budget: Run() = %v, want the build stage's budget error", err)
	}
	in := lodging2026
	// A known subject on a date no source covers.
	in.Dates, in.RequireEvidence = []string{"2024-09-14"}, new(true)
	_, err = p.Run(context.Background(), RequestInput(in), RunOptions{Builder: sampleBuilder(t, 0), Dir: stageBin(t)})
	if !errors.Is(err, contract.ErrNoEvidence) {
		t.Errorf("no evidence: Run() = %v, want ErrNoEvidence", err)
	}
	in = lodging2026
	in.Subjects = []string{"parking"}
	_, err = p.Run(context.Background(), RequestInput(in), RunOptions{Builder: sampleBuilder(t, 0), Dir: stageBin(t)})
	var ue *selector.UnknownSubjectError
	if !errors.As(err, &ue) || ue.Subject != "parking" {
		t.Errorf("unknown subject: Run() = %v, want an *UnknownSubjectError for parking", err)
	}
}

// TestRunRefuses: nothing runs for a pipeline with errors, a missing
// builder or a bad input.
func TestRunRefuses(t *testing.T) {
	bad := parseString(t, "bad.yaml", "stages:\n  a: {exec: [./emit]}\nflow: a >> b\n")
	if _, err := bad.Run(context.Background(), RequestInput(lodging2026), RunOptions{}); !errors.Is(err, ErrCheck) {
		t.Errorf("pipeline with errors: Run() = %v, want ErrCheck", err)
	}
	build := parseString(t, "build.yaml", "stages:\n  build: {uses: ka2.build}\nflow: build\n")
	if _, err := build.Run(context.Background(), RequestInput(lodging2026), RunOptions{}); err == nil || !strings.Contains(err.Error(), "RunOptions.Builder") {
		t.Errorf("no builder: Run() = %v", err)
	}
	if _, err := build.Run(context.Background(), RequestInput(contract.RequestFile{Question: "q"}), RunOptions{Builder: sampleBuilder(t, 0)}); !errors.Is(err, ErrBadInput) {
		t.Errorf("bad input: Run() = %v, want ErrBadInput", err)
	}
}

func TestParseInput(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    contract.RequestFile
		wantErr string
	}{
		{name: "full", in: `{"question":"q","subjects":["lodging"],"dates":["2026-09-14"],"lang":"zh","short":true,"require_evidence":true}`,
			want: contract.RequestFile{Question: "q", Subjects: []string{"lodging"}, Dates: []string{"2026-09-14"}, Lang: "zh", Short: new(true), RequireEvidence: new(true)}},
		{name: "subject and default lang", in: `{"question":"q","subject":"lodging","dates":["2026-09-14","2025-09-14"]}`,
			want: contract.RequestFile{Question: "q", Subjects: []string{"lodging"}, Dates: []string{"2026-09-14", "2025-09-14"}, Lang: "en"}},
		{name: "typo", in: `{"questoin":"q","subjects":["x"],"dates":["2026-09-14"]}`, wantErr: `input:1:2: unknown key "questoin"; the keys are capacity, counter, dates, items`},
		{name: "a budget key", in: `{"question":"q","subjects":["x"],"dates":["2026-09-14"],"capacity":4000}`, wantErr: "takes no budget keys"},
		{name: "both subject spellings", in: `{"question":"q","subject":"a","subjects":["b"],"dates":["2026-09-14"]}`, wantErr: `subjects: give "subject" or "subjects", not both`},
		{name: "extra items", in: `{"question":"q","subjects":["x"],"dates":["2026-09-14"],"items":[{"type":"memory","source":"memory:p","text":"t"}]}`, wantErr: "takes no extra items"},
		{name: "a wrong type has a position", in: `{"question":"q","subjects":"x","dates":["2026-09-14"]}`, wantErr: "input:1:17: subjects: want a list, not a JSON string"},
		{name: "no question", in: `{"subjects":["x"],"dates":["2026-09-14"]}`, wantErr: "question is empty"},
		{name: "no subjects", in: `{"question":"q","dates":["2026-09-14"]}`, wantErr: "no subjects"},
		{name: "no dates", in: `{"question":"q","subjects":["x"]}`, wantErr: "no dates"},
		{name: "a time is not a date", in: `{"question":"q","subjects":["x"],"dates":["2026-01-01T00:00:00Z"]}`, wantErr: "dates:"},
		{name: "two documents", in: `{"question":"q","subjects":["x"],"dates":["2026-09-14"]} {}`, wantErr: "input:1:58: there is more after the request object"},
		{name: "not JSON", in: `question: q`, wantErr: "invalid JSON"},
		{name: "lone surrogate", in: `{"question":"\ud800","subjects":["x"],"dates":["2026-09-14"]}`,
			wantErr: `bad run input: input:1:14: question: invalid text: lone UTF-16 surrogate escape \ud800 (a high surrogate without its low half)`},
		{name: "lone surrogate in a subject", in: `{"question":"q","subjects":["x","\udc00"],"dates":["2026-09-14"]}`,
			wantErr: `1:34: subjects[1]: invalid text: lone UTF-16 surrogate escape \udc00`},
		{name: "invalid UTF-8", in: "{\"question\":\"caf\xe9\",\"subjects\":[\"x\"],\"dates\":[\"2026-09-14\"]}",
			wantErr: `1:17: question: invalid text: invalid UTF-8 byte 0xe9; encode the text as UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInput([]byte(tt.in))
			if tt.wantErr != "" {
				if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseInput() error = %v, want ErrBadInput with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseInput() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStageOutputRefusesInvalidText(t *testing.T) {
	for _, data := range []string{`{"output_text": "\udfff"}`, "{\"output_text\": \"\xc3\"}"} {
		_, err := parseStageOutput([]byte(data))
		if !errors.Is(err, ErrBadOutput) || !strings.Contains(err.Error(), "stdout: 1:18: output_text: invalid text") {
			t.Errorf("parseStageOutput(%q) = %v, want ErrBadOutput naming output_text", data, err)
		}
	}
}

// TestStageJSONRefusesRepeatedKeys: a stage's or a hook's output, or a run
// input, whose object repeats a key is refused at the repeat. encoding/json
// would keep the last value, checking it against the schema, while the
// next stage's reader may take the first.
func TestStageJSONRefusesRepeatedKeys(t *testing.T) {
	out := `{"output": {"approve": false, "approve": true}}`
	_, err := parseStageOutput([]byte(out))
	if want := `stdout: 1:31: a key of output: key "approve" repeats the one at 1:13`; !errors.Is(err, ErrBadOutput) || !strings.Contains(err.Error(), want) {
		t.Errorf("parseStageOutput(%s) = %v, want ErrBadOutput with %q", out, err, want)
	}
	if err := checkText([]byte(`{"artifacts": {"x": 1}, "artifacts": {"x": 2}}`)); err == nil || !strings.Contains(err.Error(), `1:25: a key: key "artifacts" repeats the one at 1:2`) {
		t.Errorf("checkText(hook output) = %v, want the repeated artifacts key", err)
	}
	// Keys that differ only in case are one field to encoding/json.
	out = `{"output": {"approve": false, "Approve": true}}`
	if _, err := parseStageOutput([]byte(out)); !errors.Is(err, ErrBadOutput) || !strings.Contains(err.Error(), `key "Approve" differs only in case from "approve" at 1:13`) {
		t.Errorf("parseStageOutput(%s) = %v, want ErrBadOutput naming the case variant", out, err)
	}
	if err := checkText([]byte(`{"artifacts": {"x": 1}, "Artifacts": {"x": 2}}`)); err == nil || !strings.Contains(err.Error(), `key "Artifacts" differs only in case from "artifacts" at 1:2`) {
		t.Errorf("checkText(hook output) = %v, want the case-variant artifacts key", err)
	}
	p, err := Parse("p.yaml", []byte("stages: {s: {exec: x}}\nflow: s\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.ParseRunInput([]byte(`{"a": 1, "a": 2}`))
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), `1:10: a key: key "a" repeats the one at 1:2`) {
		t.Errorf("ParseRunInput() = %v, want ErrBadInput with the repeat", err)
	}
}

// TestRunReplay replays a stage from its snapshot: feeding the recorded
// context to the program again gives the recorded output.

func TestRunReplay(t *testing.T) {
	run, err := runPipeline(t, readFile(t, "testdata/pipelines/answer.yaml"), lodging2026)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshot(t, run, "answer")
	stdin, err := json.MarshalIndent(snap.Context, "", "  ") // as --snapshots writes it
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(stageBin(t), "answer"))
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err := parseStageOutput(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(compactJSON(out.Output)); got != snap.OutputText {
		t.Errorf("replayed output %s, recorded %s", got, snap.OutputText)
	}
}

// TestRequestRunInputJSON pins the bytes a request run input hands the
// first stage (and that snapshots and digests record): compact, keys in
// the order question, subjects, dates, lang, short, require_evidence,
// "subject" folded into "subjects", lang defaulted, false flags left out.
func TestRequestRunInputJSON(t *testing.T) {
	p := parseString(t, "build.yaml", "stages: {build: {uses: ka2.build}}\nflow: build\n")
	tests := []struct {
		name, in, want string
	}{
		{name: "minimal",
			in:   `{"dates": ["2026-09-14"], "subjects": ["lodging"], "question": "Limit?"}`,
			want: `{"question":"Limit?","subjects":["lodging"],"dates":["2026-09-14"],"lang":"en"}`},
		{name: "subject and every flag",
			in:   `{"subject": "lodging", "question": "<b>&</b>", "dates": ["2026-09-14", "2025-01-01"], "lang": "zh", "short": true, "require_evidence": true}`,
			want: `{"question":"<b>&</b>","subjects":["lodging"],"dates":["2026-09-14","2025-01-01"],"lang":"zh","short":true,"require_evidence":true}`},
		{name: "false flags and null lang are left out",
			in:   `{"question": "q", "subjects": ["a", "b"], "dates": ["2026-09-14"], "lang": null, "short": false, "require_evidence": false}`,
			want: `{"question":"q","subjects":["a","b"],"dates":["2026-09-14"],"lang":"en"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := p.ParseRunInput([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(in.JSON)); diff != "" {
				t.Errorf("ParseRunInput() JSON mismatch (-want +got):\n%s", diff)
			}
			// The first stage reads the same bytes as the input's own
			// snapshot records.
			if got := p.inputSnapshot(in).OutputText; got != tt.want {
				t.Errorf("inputSnapshot().OutputText = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestOutputKeysExact: what a stage or a hook prints is read through the
// strict decoder, so a key is matched exactly as written: one in another
// case (which encoding/json would take for the known key, last one
// winning) is refused with its line and column, at every level the
// output has keys, and no stage after it runs.
func TestOutputKeysExact(t *testing.T) {
	tests := []struct {
		name  string
		out   string // the stage's output
		hook  string // a before hook's output, when not ""
		want  string
		probe string // an artifacts object whose refusal depends on internal/strict (see below)
	}{
		{name: "a known key in another case", out: `{"OUTPUT_TEXT":"x"}`,
			want: `1:2: unknown field "OUTPUT_TEXT" in the stage output (did you mean "output_text"? keys are matched exactly)`},
		{name: "a second key differing only in case", out: `{"output_text":"a","Output_Text":"b"}`,
			want: `1:20: a key: key "Output_Text" differs only in case from "output_text" at 1:2`},
		{name: "in a message", out: `{"output_text":"a","messages":[{"role":"assistant","content":"a","Content":"b"}]}`,
			want: `key "Content" differs only in case from "content"`},
		{name: "in a tool result", out: `{"output_text":"a","tool_results":[{"tool":"t","Tool":"u","content":1}]}`,
			want: `key "Tool" differs only in case from "tool"`},
		{name: "artifacts in another case", out: `{"output_text":"a","Artifacts":{"x":1}}`,
			want: `unknown field "Artifacts" in the stage output`},
		{name: "a hook's artifacts in another case", out: `{"output_text":"a"}`, hook: `{"ARTIFACTS":{"x":1}}`,
			want: `unknown field "ARTIFACTS" in the hook output`},
		{name: "artifact names differing only in case", out: `{"output_text":"a","artifacts":{"x":1,"X":2}}`,
			probe: `{"x":1,"X":2}`, want: `"X"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.probe != "" {
				// Artifact names are free, so only a strict decoder that
				// refuses keys differing only in case refuses these;
				// internal/strict is changed to do so in another branch.
				doc, err := strict.ParseJSON([]byte(tt.probe))
				if err != nil {
					t.Fatal(err)
				}
				d := &strict.Decoder{Words: func(strict.Issue, *diag.Diagnostic) {}}
				d.Mapping(strict.Root(doc), &strict.Map{AnyKey: true})
				if len(d.Diags) == 0 {
					t.Skip("internal/strict does not refuse keys that differ only in case yet")
				}
			}
			extra := []string{}
			if tt.hook != "" {
				extra = append(extra, "before: [./emit, -out, '"+tt.hook+"']")
			}
			src := "stages:\n" + emitStage("a", tt.out, extra...) + emitStage("b", `{"output_text":"b"}`) + "flow: a >> b\n"
			run, err := runPipeline(t, src, lodging2026)
			var se *StageError
			if !errors.Is(err, ErrBadOutput) || !errors.As(err, &se) || se.Stage != "a" || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run() error = %v, want ErrBadOutput at stage a with …%s…", err, tt.want)
			}
			if len(run.Snapshots) != 2 {
				t.Errorf("%d snapshots; the stage after the refused output ran", len(run.Snapshots))
			}
		})
	}
}
