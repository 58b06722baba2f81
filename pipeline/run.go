package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/jsontext"
)

// Message is one turn of a conversation.
type Message struct {
	// Role is system, user, assistant or tool.
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ToolResult is the result of one tool call, as a stage reports it.
type ToolResult struct {
	Tool    string          `json:"tool"`
	Content json.RawMessage `json:"content"`
}

// StageContext is what a stage is given: for an exec stage, the JSON
// document on its standard input.
type StageContext struct {
	Stage string `json:"stage"`
	// Source is the stage's declared source: upstream, fresh or shared:NAME.
	Source string `json:"source"`
	// From names the snapshot the context was handed off from: a stage, or
	// "input" for the run input.
	From string `json:"from"`
	// InputSchema and Input are set when the stage declares an input
	// schema: Input is the upstream output text as JSON, validated against
	// InputSchema. For a ka2.grade stage, Input is the upstream output
	// text (the answer) as a JSON string, and InputSchema is empty.
	InputSchema string          `json:"input_schema,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	Messages    []Message       `json:"messages"`
	ToolResults []ToolResult    `json:"tool_results"`
	// Artifacts hold named JSON values, such as the contract.
	Artifacts map[string]json.RawMessage `json:"artifacts"`
	// TrimmedMessages counts the messages max_history_turns left out.
	TrimmedMessages int `json:"trimmed_messages,omitempty"`
}

// StageOutput is what a stage gives back: for an exec stage, the JSON
// document on its standard output. Unknown keys are refused.
//
// Output holds a JSON value and OutputText a string; write one of them
// (Output is stored as its compact serialization in the snapshot's output
// text). Messages are the stage's turn; when it writes none, its output
// text becomes one assistant message. Artifacts and tool results are the
// stage's own, merged with what it inherited.
type StageOutput struct {
	OutputText  *string                    `json:"output_text,omitempty"`
	Output      json.RawMessage            `json:"output,omitempty"`
	Messages    []Message                  `json:"messages,omitempty"`
	ToolResults []ToolResult               `json:"tool_results,omitempty"`
	Artifacts   map[string]json.RawMessage `json:"artifacts,omitempty"`

	// stop, when set, stops the run after the stage's snapshot is
	// complete: a ka2.verify stage's failed verification.
	stop error
}

// Snapshot is a stage's context after it ran: what it was given, what it
// produced, and what it hands on. Snapshots hold no times, so two runs of
// the same pipeline on the same input give the same snapshots.
type Snapshot struct {
	Stage string `json:"stage"`
	// Runner is "input" for the run input, UsesBuild, or "exec".
	Runner string `json:"runner"`
	// Exec is the command line of an exec stage, as written.
	Exec []string `json:"exec,omitempty"`
	// Definition is what decides the stage's output besides its input,
	// and Digests identify it and the input; both are nil for the run
	// input. A resumed run and a replay read them.
	Definition *StageDefinition `json:"definition,omitempty"`
	Digests    *Digests         `json:"digests,omitempty"`
	// Dir is the folder the stage's programs ran in, relative to the
	// folder of the snapshot file, slash-separated; whoever writes the
	// snapshot files sets it, so that a replay finds the programs.
	Dir string `json:"dir,omitempty"`
	// Context is what the stage was given (nil for the run input); an exec
	// stage read exactly this on stdin, so it can be replayed with
	// jq .context SNAPSHOT | PROGRAM.
	Context *StageContext `json:"context,omitempty"`
	// Messages are the context's messages followed by the stage's turn.
	Messages []Message `json:"messages"`
	// ToolResults are the inherited tool results followed by the stage's.
	ToolResults []ToolResult `json:"tool_results"`
	// Artifacts are the stage's own, overridden by inherited ones on a
	// clash, except that a checker's own result ("grade",
	// "verification") overrides the one it inherited; ArtifactClashes
	// names the artifacts whose two values differed.
	Artifacts       map[string]json.RawMessage `json:"artifacts"`
	ArtifactClashes []string                   `json:"artifact_clashes,omitempty"`
	OutputText      string                     `json:"output_text"`
	// OutputSchema is the protocol the output was validated against, or "".
	OutputSchema string `json:"output_schema,omitempty"`
	// Sink is where the snapshot went: downstream, discard or shared:NAME.
	Sink     string `json:"sink"`
	Stderr   string `json:"stderr,omitempty"`
	ExitCode int    `json:"exit_code"`
	// Hooks are the hooks that ran around the stage, in order.
	Hooks []HookRun `json:"hooks,omitempty"`
	// HookKinds say where each hook of Definition.Before, then of
	// Definition.After, is declared (before_stage, before, after or
	// after_stage), so that a replay runs each as the run did. Snapshots
	// written before ka2 recorded them have none, and a replay of their
	// stage runs without its hooks. The definition digest leaves them out:
	// a hook moved from the pipeline's hooks to the stage's runs the same.
	HookKinds []string `json:"hook_kinds,omitempty"`
	// Error says why the run stopped at this stage, or is empty.
	Error string `json:"error,omitempty"`
}

// RunOptions are what a run needs besides the pipeline and its input.
type RunOptions struct {
	// Builder builds contracts for ka2.build stages; required when the flow
	// has one.
	Builder *contract.Builder
	// Dir is the folder exec programs run in and relative program paths
	// resolve against: the pipeline file's folder. Empty means the current
	// folder.
	Dir string
	// Env is the environment of exec programs. Nil means an empty
	// environment, so nothing reaches a stage unless the caller passes it.
	Env []string
	// Timeout limits each exec stage without its own timeout; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// After, if not nil, replaces time.After for the time limits of exec
	// stages, which start once a stage's program has started: a test makes
	// a limit pass when it chooses instead of waiting for it.
	After func(time.Duration) <-chan time.Time
	// Resume holds the snapshots of an earlier run by stage name. A stage
	// whose snapshot there completed with the same Digests is not run
	// again: its snapshot stands for it (and Run.Resumed names it). Such
	// a snapshot is held to its own content first, and the runner of a
	// ka2.build, ka2.verify or ka2.grade stage runs again and must give
	// what it records (Run.Rechecked); one that does not is a
	// *SnapshotError, and the run stops there.
	Resume map[string]*Snapshot

	// maxStdout, when not zero, replaces the stdout limit of exec
	// programs and hooks (maxStdout): a test sets it small, a whole number
	// of MiB as the error words it, to reach the limit without writing
	// 32 MiB.
	maxStdout int
}

// HookRun is the record of one hook that ran.
type HookRun struct {
	// Hook is before_stage, before, after or after_stage.
	Hook     string   `json:"hook"`
	Exec     []string `json:"exec"`
	Stderr   string   `json:"stderr,omitempty"`
	ExitCode int      `json:"exit_code"`
	// Artifacts name the artifacts the hook printed.
	Artifacts []string `json:"artifacts,omitempty"`
	// Kept names those of them the stage's artifacts already held, which
	// kept their value: the hook did not add them.
	Kept []string `json:"kept,omitempty"`
}

// StageResult is what an after hook reads on stdin: the stage's output,
// its messages, tool results and artifacts (inherited ones included) and
// its exit status.
type StageResult struct {
	Stage       string                     `json:"stage"`
	OutputText  string                     `json:"output_text"`
	Messages    []Message                  `json:"messages"`
	ToolResults []ToolResult               `json:"tool_results"`
	Artifacts   map[string]json.RawMessage `json:"artifacts"`
	ExitCode    int                        `json:"exit_code"`
}

// DefaultTimeout is the time limit of an exec stage when neither the stage
// nor RunOptions sets one.
const DefaultTimeout = time.Minute

// Run is the record of one run: the input and a snapshot per stage that
// ran, in flow order, after the run input's own snapshot. A run that
// stopped ends with the snapshot of the stage that stopped it.
type Run struct {
	Input     RunInput
	Snapshots []*Snapshot
	// Resumed names the stages whose snapshots were taken from
	// RunOptions.Resume instead of running them, in flow order.
	Resumed []string
	// Rechecked names the ka2.build, ka2.verify and ka2.grade stages
	// whose snapshots in RunOptions.Resume stand for them after their
	// runner ran again, in process, on the context the snapshot records
	// (not their hooks), and gave what the snapshot records.
	Rechecked []string
}

// Output is the output text of the last stage that ran.
func (r *Run) Output() string {
	if r == nil || len(r.Snapshots) == 0 {
		return ""
	}
	return r.Snapshots[len(r.Snapshots)-1].OutputText
}

// Sentinels for why a stage stopped a run; a *StageError wraps one of them
// (or, for a ka2.build stage, the builder's error).
var (
	// ErrStageFailed: an exec program could not start or exited non-zero.
	ErrStageFailed = errors.New("stage failed")
	// ErrTimeout: an exec program ran past its time limit and was stopped.
	ErrTimeout = errors.New("stage timed out")
	// ErrBadOutput: an exec program's standard output is not a StageOutput
	// document.
	ErrBadOutput = errors.New("stage output is not a stage output document")
	// ErrOutputLimit: an exec program wrote more on stdout than a stage
	// may (32 MiB), and it was stopped with its process group; or a
	// stage's output text is over its max_output_bytes or
	// max_output_tokens.
	ErrOutputLimit = errors.New("stage output over its limit")
	// ErrVetoed: a hook exited non-zero, which stops the stage.
	ErrVetoed = errors.New("vetoed by a hook")
	// ErrVerification: a ka2.verify stage with on_fail: stop found
	// problems in the contract it was handed.
	ErrVerification = errors.New("contract verification failed")
	// ErrGrade: a ka2.grade stage with on_fail: stop found the answer it
	// was handed breaks its contract.
	ErrGrade = errors.New("answer failed its grade")
	// ErrNoContract: a ka2.grade stage inherited no "contract" artifact
	// to grade against.
	ErrNoContract = errors.New("no contract to grade against")
	// ErrCheckerArtifact: a stage or a hook wrote an artifact under a
	// name a built-in checker writes ("grade", "verification"), which
	// would pass for that checker's result.
	ErrCheckerArtifact = errors.New("artifact forges a checker's result")
)

// StageError is why a run stopped at a stage.
type StageError struct {
	Stage string
	// Step is "input" (its input broke its input schema), "run" (it failed
	// or timed out, or its verification failed), "output" (its output was
	// unreadable, broke its output schema or is over its limit), or the
	// hook that stopped it: before_stage, before, after or after_stage.
	Step string
	// ExitCode is an exec program's exit status, -1 when it was killed, 0
	// when it did not exit non-zero.
	ExitCode int
	Err      error
}

// Error names the stage and says what went wrong.
func (e *StageError) Error() string { return fmt.Sprintf("stage '%s': %v", e.Stage, e.Err) }

// Unwrap returns the cause, so errors.Is sees the sentinels and the
// builder's errors.
func (e *StageError) Unwrap() error { return e.Err }

// Run runs the flow on in: each stage gets its context from its source as
// its declaration says, runs, and its output is validated and sent to its
// sink. The first stage that fails stops the run; nothing after it runs.
// Run refuses a pipeline whose check found errors (a *CheckError).
//
// The returned Run holds the snapshots of the stages that ran, also when
// the error is not nil (except for a refused pipeline or input).
func (p *Pipeline) Run(ctx context.Context, in RunInput, opts RunOptions) (*Run, error) {
	if err := p.Diagnostics.Err(); err != nil {
		return nil, err
	}
	in, err := p.checkInput(in)
	if err != nil {
		return nil, err
	}
	if p.NeedsBuilder() && opts.Builder == nil {
		return nil, fmt.Errorf("the flow runs a %s or %s stage, or limits output in counter units, which needs RunOptions.Builder", UsesBuild, UsesVerify)
	}
	if opts.Builder != nil && opts.Builder.Definition.Template != p.def.Template {
		return nil, fmt.Errorf("the builder makes %s contracts, but the pipeline was parsed with %s",
			opts.Builder.Definition.Template, p.def.Template)
	}
	r := &runner{p: p, opts: opts}
	run := &Run{Input: in}
	first := p.inputSnapshot(in)
	run.Snapshots = append(run.Snapshots, first)

	upstream := first
	shared := map[string]*Snapshot{}
	for _, step := range p.Flow {
		st := p.Stages[step.Stage]
		var from *Snapshot
		switch src := st.source(); src.Kind {
		case Upstream:
			from = upstream
		case Fresh:
			from = first
		case Shared:
			from = shared[src.Name]
		}
		if from == nil { // the check rules this out
			return run, fmt.Errorf("%w: stage '%s' has no context to read from %s", errInternal, st.Name, st.source())
		}
		snap, how, err := r.stage(ctx, st, from)
		if errors.Is(err, ErrBadSnapshot) {
			// The stage did not run: its snapshot of the earlier run
			// is the problem, and stays as it is.
			return run, err
		}
		run.Snapshots = append(run.Snapshots, snap)
		switch how {
		case resumed:
			run.Resumed = append(run.Resumed, st.Name)
		case rechecked:
			run.Rechecked = append(run.Rechecked, st.Name)
		}
		if err != nil {
			snap.Error = err.Error()
			return run, err
		}
		switch sink := st.sink(); sink.Kind {
		case Downstream:
			upstream = snap
		case Shared:
			shared[sink.Name] = snap
			upstream = nil
		case Discard:
			upstream = nil
		}
	}
	return run, nil
}

type runner struct {
	p    *Pipeline
	opts RunOptions
}

// handoff makes a stage's context from the snapshot it reads.
func handoff(st *Stage, from *Snapshot) *StageContext {
	inh := st.inherit()
	sc := &StageContext{
		Stage:       st.Name,
		Source:      st.source().String(),
		From:        from.Stage,
		Messages:    []Message{},
		ToolResults: []ToolResult{},
		Artifacts:   map[string]json.RawMessage{},
	}
	if st.System != "" {
		sc.Messages = append(sc.Messages, Message{Role: "system", Content: st.System})
	}
	var history []Message
	if inh.Messages {
		for _, m := range from.Messages {
			if m.Role != "system" {
				history = append(history, m)
			}
		}
	} else if from.OutputText != "" {
		history = []Message{{Role: "user", Content: from.OutputText}}
	}
	if st.Context != nil && st.Context.MaxHistoryTurns > 0 {
		history, sc.TrimmedMessages = trimHistory(history, st.Context.MaxHistoryTurns)
	}
	sc.Messages = append(sc.Messages, history...)
	if inh.Artifacts {
		maps.Copy(sc.Artifacts, from.Artifacts)
	}
	if inh.ToolResults {
		sc.ToolResults = append(sc.ToolResults, from.ToolResults...)
	}
	return sc
}

// trimHistory keeps the last n user turns and everything after the first
// of them, and says how many messages it left out.
func trimHistory(history []Message, n int) ([]Message, int) {
	var users []int
	for i, m := range history {
		if m.Role == "user" {
			users = append(users, i)
		}
	}
	if len(users) <= n {
		return history, 0
	}
	cut := users[len(users)-n]
	return history[cut:], cut
}

// stage runs one stage on the context handed off from from, with its
// hooks, or reuses its snapshot from RunOptions.Resume (resumed), or runs
// a checker again and holds its snapshot there to the result
// (rechecked).
func (r *runner) stage(ctx context.Context, st *Stage, from *Snapshot) (*Snapshot, resumption, error) {
	sc := handoff(st, from)
	def, kinds := r.definition(st)
	snap := &Snapshot{
		Stage:       st.Name,
		Runner:      "exec",
		Exec:        st.Exec,
		Definition:  def,
		HookKinds:   kinds,
		Context:     sc,
		Messages:    []Message{},
		ToolResults: []ToolResult{},
		Artifacts:   map[string]json.RawMessage{},
		Sink:        st.sink().String(),
	}
	if st.Uses != "" {
		snap.Runner = st.Uses
	}
	inSchema, outSchema := st.schemas(r.p.def)
	if inSchema != "" {
		sc.InputSchema = inSchema
		if json.Valid([]byte(from.OutputText)) {
			sc.Input = compactJSON([]byte(from.OutputText))
		}
	}
	if st.Uses == UsesGrade {
		// In the context, so that the digest covers the answer and a
		// replay has it.
		answer, err := jsontext.Marshal(from.OutputText)
		if err != nil {
			return snap, ran, err
		}
		sc.Input = answer
	}
	snap.Digests = &Digests{Definition: digestJSON(snap.Definition), Input: digestJSON(sc)}
	if prev := r.opts.Resume[st.Name]; reusable(prev, snap) {
		if err := r.consistent(st, prev, snap, outSchema); err != nil {
			return snap, ran, err
		}
		if !builtinRunner(st.Uses) {
			return prev, resumed, nil
		}
		// What a built-in runner gives is not taken from its snapshot:
		// it is cheap to run again on the context the snapshot records,
		// and the snapshot must agree.
		if err := r.recheck(ctx, st, prev); err != nil {
			return snap, ran, err
		}
		return prev, rechecked, nil
	}
	if inSchema != "" {
		if err := r.p.Protocols.Validate(inSchema, []byte(from.OutputText)); err != nil {
			return snap, ran, &StageError{Stage: st.Name, Step: "input",
				Err: fmt.Errorf("its input from '%s' breaks input_schema '%s': %w; fix '%s' or the declared schema",
					from.Stage, inSchema, err, from.Stage)}
		}
	}
	stop, err := r.execute(ctx, st, sc, snap, outSchema)
	if err == nil {
		err = stop
	}
	return snap, ran, err
}

// resumption is how a stage of a resumed run got its snapshot.
type resumption int

const (
	ran       resumption = iota // it ran
	resumed                     // its snapshot in RunOptions.Resume stands for it
	rechecked                   // a built-in runner ran again and agreed with its snapshot
)

// execute runs a stage on its context sc as a run does: its before hooks,
// its runner, then (once its snapshot holds its turn, what it inherited
// and its own) the output schema, the output limits and its after hooks.
// A run and a replay both run a stage through it. stop is the failed
// check of a ka2.verify or ka2.grade stage that stops the run once the
// snapshot is complete; the after hooks do not run then.
func (r *runner) execute(ctx context.Context, st *Stage, sc *StageContext, snap *Snapshot, outSchema string) (stop, err error) {
	defer func() { slices.Sort(snap.ArtifactClashes); snap.ArtifactClashes = slices.Compact(snap.ArtifactClashes) }()
	if err := r.runHooks(ctx, st, true, sc, sc.Artifacts, snap); err != nil {
		return nil, err
	}

	out, err := r.run(ctx, st, sc, snap)
	if err != nil {
		return nil, err
	}
	if err := checkerArtifact(st, "output", fmt.Sprintf("stage '%s'", st.Name), out.Artifacts, false); err != nil {
		return nil, err
	}

	// The stage's turn, then what it inherited merged with its own.
	text := outputText(out)
	snap.OutputText = text
	snap.Messages = append(snap.Messages, sc.Messages...)
	turn := out.Messages
	if len(turn) == 0 && text != "" {
		turn = []Message{{Role: "assistant", Content: text}}
	}
	snap.Messages = append(snap.Messages, turn...)
	snap.ToolResults = append(snap.ToolResults, sc.ToolResults...)
	for _, t := range out.ToolResults {
		snap.ToolResults = append(snap.ToolResults, ToolResult{Tool: t.Tool, Content: compactJSON(t.Content)})
	}
	for name, v := range out.Artifacts {
		snap.Artifacts[name] = compactJSON(v)
	}
	for name, v := range sc.Artifacts {
		own, ok := snap.Artifacts[name]
		if ok && !bytes.Equal(own, v) {
			snap.ArtifactClashes = append(snap.ArtifactClashes, name)
		}
		if ok && st.owns(name) {
			continue // a checker's own result wins over an earlier one's
		}
		snap.Artifacts[name] = v
	}
	if outSchema != "" {
		snap.OutputSchema = outSchema
		if err := r.p.Protocols.Validate(outSchema, []byte(text)); err != nil {
			return nil, &StageError{Stage: st.Name, Step: "output",
				Err: fmt.Errorf("its output breaks output_schema '%s': %w; fix the stage or its declared output_schema", outSchema, err)}
		}
	}
	if err := r.checkLimits(st, text); err != nil {
		return nil, err
	}
	if out.stop != nil {
		return out.stop, nil
	}
	// The artifacts map is shared, so each after hook reads what the
	// hooks before it added.
	res := StageResult{Stage: st.Name, OutputText: snap.OutputText, Messages: snap.Messages,
		ToolResults: snap.ToolResults, Artifacts: snap.Artifacts, ExitCode: snap.ExitCode}
	return nil, r.runHooks(ctx, st, false, res, snap.Artifacts, snap)
}

// run runs the stage's runner on its context.
func (r *runner) run(ctx context.Context, st *Stage, sc *StageContext, snap *Snapshot) (StageOutput, error) {
	switch st.Uses {
	case UsesBuild:
		return r.build(ctx, st, sc)
	case UsesVerify:
		return r.verify(st, sc)
	case UsesGrade:
		return r.grade(st, sc)
	}
	return r.exec(ctx, st, sc, snap)
}

// outputText is the stage's output as text: output_text, or the compact
// serialization of output.
func outputText(out StageOutput) string {
	text := ""
	if out.OutputText != nil {
		text = *out.OutputText
	}
	if out.Output != nil {
		text = string(compactJSON(out.Output))
	}
	return text
}

// addArtifacts adds a hook's artifacts to m. One already there keeps its
// value, and a different value from the hook is recorded as a clash; kept
// names, sorted, those the hook did not add for that reason.
func addArtifacts(m, add map[string]json.RawMessage, clashes *[]string) (kept []string) {
	for name, v := range add {
		v = compactJSON(v)
		if old, ok := m[name]; ok {
			if !bytes.Equal(old, v) {
				*clashes = append(*clashes, name)
			}
			kept = append(kept, name)
			continue
		}
		m[name] = v
	}
	slices.Sort(kept)
	return kept
}

// build runs ka2's contract builder on the stage's input. Its output text
// and its "contract" artifact are the contract.
func (r *runner) build(ctx context.Context, st *Stage, sc *StageContext) (StageOutput, error) {
	in, err := decodeInput(sc.Input, false)
	if err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "input", Err: err}
	}
	// decodeInput refused items and promotions, so the settings are the
	// whole request.
	req, err := contract.Settings{}.Apply(&in).Request(nil)
	if err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "input", Err: fmt.Errorf("%w: %w", ErrBadInput, err)}
	}
	res, err := r.opts.Builder.Build(ctx, req)
	if err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "run", Err: err}
	}
	text := string(res.JSON)
	return StageOutput{
		OutputText: &text,
		Artifacts:  map[string]json.RawMessage{"contract": res.JSON},
	}, nil
}

// compactJSON returns the compact form of a valid JSON value.
func compactJSON(v []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return json.RawMessage(v)
	}
	return json.RawMessage(buf.Bytes())
}

// lastLine is the last non-empty line of s, for error messages.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
