package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// StageDefinition is what decides a stage's output besides its input, as
// its snapshot records it: the declaration without positions, the
// effective time limit, the protocols its schemas name (with every
// protocol they reach) and, for stages that use the builder, what the
// builder builds from. Editing a comment or moving a stage in the file
// leaves it as it was; changing what the stage does changes it.
type StageDefinition struct {
	Uses    string   `json:"uses,omitempty"`
	Exec    []string `json:"exec,omitempty"`
	System  string   `json:"system,omitempty"`
	Timeout string   `json:"timeout,omitempty"`
	// Context is the stage's context block, nil when it has none.
	Context *ContextDefinition `json:"context,omitempty"`
	// Before and After are the command lines of the hooks that run
	// around the stage: the pipeline's before_stage then the stage's
	// before; the stage's after then the pipeline's after_stage.
	Before          [][]string `json:"before,omitempty"`
	After           [][]string `json:"after,omitempty"`
	OnFail          string     `json:"on_fail,omitempty"`
	MaxOutputBytes  int        `json:"max_output_bytes,omitempty"`
	MaxOutputTokens int        `json:"max_output_tokens,omitempty"`
	// Protocols is the digest of the fields of every protocol the
	// stage's schemas reach, so a changed protocol changes the definition.
	Protocols string `json:"protocols,omitempty"`
	// Builder is what a ka2.build or ka2.verify stage, or one limited in
	// counter units, depends on; nil for other stages.
	Builder *BuilderDefinition `json:"builder,omitempty"`
}

// ContextDefinition is a context block without positions.
type ContextDefinition struct {
	Source          string   `json:"source"`
	Sink            string   `json:"sink"`
	InputSchema     string   `json:"input_schema,omitempty"`
	OutputSchema    string   `json:"output_schema,omitempty"`
	MaxHistoryTurns int      `json:"max_history_turns,omitempty"`
	Inherit         []string `json:"inherit,omitempty"`
}

// BuilderDefinition is what a built-in stage builds or verifies with.
type BuilderDefinition struct {
	Template string `json:"template"`
	// Corpus is the corpus digest: a SHA-256 over every file's path and
	// bytes.
	Corpus   string `json:"corpus"`
	Counter  string `json:"counter"`
	Capacity int    `json:"capacity"`
	Reserve  int    `json:"reserve"`
	Wrapper  int    `json:"wrapper"`
}

// Digests identify what a stage ran: Definition is the SHA-256 of its
// StageDefinition, Input of the context it was handed (before any hook
// ran), each as compact JSON. A resumed run reuses a stage's snapshot only
// when both are equal.
type Digests struct {
	Definition string `json:"definition"`
	Input      string `json:"input"`
}

// digestJSON is "sha256:" and the hex SHA-256 of v's compact JSON.
func digestJSON(v any) string {
	b, err := jsontext.Marshal(v)
	if err != nil {
		panic(err) // the definition and context types always marshal
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// definition records what decides st's output besides its input, and
// where each of its hooks is declared (Snapshot.HookKinds).
func (r *runner) definition(st *Stage) (*StageDefinition, []string) {
	d := &StageDefinition{Uses: st.Uses, Exec: st.Exec, System: st.System, OnFail: st.OnFail,
		MaxOutputBytes: st.MaxOutputBytes, MaxOutputTokens: st.MaxOutputTokens}
	if st.Uses == "" || st.Before != nil || st.After != nil || r.p.Hooks.BeforeStage != nil || r.p.Hooks.AfterStage != nil {
		d.Timeout = r.limit(st).String()
	}
	if c := st.Context; c != nil {
		cd := &ContextDefinition{Source: c.Source.String(), Sink: c.Sink.String(), InputSchema: c.InputSchema,
			OutputSchema: c.OutputSchema, MaxHistoryTurns: c.MaxHistoryTurns}
		for _, part := range []struct {
			on   bool
			name string
		}{{c.Inherit.Messages, "messages"}, {c.Inherit.Artifacts, "artifacts"}, {c.Inherit.ToolResults, "tool_results"}} {
			if part.on {
				cd.Inherit = append(cd.Inherit, part.name)
			}
		}
		d.Context = cd
	}
	var kinds []string
	for _, h := range r.hooks(st, true) {
		d.Before = append(d.Before, h.Exec)
		kinds = append(kinds, h.Kind)
	}
	for _, h := range r.hooks(st, false) {
		d.After = append(d.After, h.Exec)
		kinds = append(kinds, h.Kind)
	}
	if ps := r.p.reachable(st.schemas(r.p.def)); ps != nil {
		d.Protocols = digestJSON(ps)
	}
	if b := r.opts.Builder; b != nil && (st.Uses != "" || st.MaxOutputTokens != 0) {
		d.Builder = &BuilderDefinition{Template: b.Definition.Template, Counter: b.Counter.Name(),
			Capacity: b.Limits.Capacity, Reserve: b.Limits.Reserve, Wrapper: b.Limits.Wrapper}
		if b.Index != nil {
			d.Builder.Corpus = b.Index.Corpus().Digest
		}
	}
	return d, kinds
}

// reachable lists the fields of the named protocols and of every protocol
// their fields reach, or nil when there are none.
func (p *Pipeline) reachable(names ...string) map[string][]string {
	out := map[string][]string{}
	var visit func(name string)
	visit = func(name string) {
		pr := p.Protocols[name]
		if name == "" || pr == nil {
			return
		}
		if _, done := out[name]; done {
			return
		}
		fields := []string{}
		out[name] = fields
		for _, f := range pr.Fields {
			n := f.Name
			if f.Optional {
				n += "?"
			}
			fields = append(fields, n+": "+f.Type.String())
			visit(protocolOf(f.Type))
		}
		out[name] = fields
	}
	for _, n := range names {
		visit(n)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// limit is the time limit of st's program and hooks.
func (r *runner) limit(st *Stage) time.Duration {
	switch {
	case st.Timeout != 0:
		return st.Timeout
	case r.opts.Timeout != 0:
		return r.opts.Timeout
	}
	return DefaultTimeout
}

// reusable reports whether prev, a snapshot of an earlier run, can stand
// for a run of the stage now: it completed, and it ran the same definition
// on the same input.
func reusable(prev, now *Snapshot) bool {
	return prev != nil && prev.Stage == now.Stage && prev.Error == "" && prev.ExitCode == 0 &&
		prev.Digests != nil && now.Digests != nil && *prev.Digests == *now.Digests
}

// ErrBadSnapshot is matched by a *SnapshotError: a snapshot of an earlier
// run whose content contradicts what it records.
var ErrBadSnapshot = errors.New("the snapshot contradicts itself")

// SnapshotError is a snapshot in RunOptions.Resume, or handed to Replay,
// that cannot stand for its stage: what it records (its outcome, its
// definition, its artifacts) is not what its own content says, so it was
// edited or is not a snapshot ka2 wrote for this stage. The stage did not
// run. Whoever read the snapshot names its file.
type SnapshotError struct {
	Stage string
	Err   error
}

// Error names the stage and says what contradicts what.
func (e *SnapshotError) Error() string {
	return fmt.Sprintf("the snapshot of stage '%s' %v; it was edited, or was not written for this stage", e.Stage, e.Err)
}

// Unwrap returns the contradiction.
func (e *SnapshotError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrBadSnapshot) true.
func (e *SnapshotError) Is(target error) bool { return target == ErrBadSnapshot }

// consistent holds prev, a reusable snapshot (its digests are now's), to
// its own content before it stands for st: its definition is the one its
// digest names, its context the one its input digest names, every hook
// it records ran and exited 0, it hands on what it inherited, writes no
// checker's artifact unless it is that checker, and its output text keeps
// to st's output schema and limits. A run writes snapshots that pass;
// one that does not was edited.
func (r *runner) consistent(st *Stage, prev, now *Snapshot, outSchema string) error {
	for _, check := range []func() error{
		func() error { return recordsItsDefinition(st, prev, now) },
		func() error { return ranItsHooks(prev) },
		func() error { return handsOnWhatItInherited(st, prev) },
		func() error { return r.keepsToItsOutput(st, prev, outSchema) },
	} {
		if err := check(); err != nil {
			return &SnapshotError{Stage: st.Name, Err: err}
		}
	}
	return nil
}

// recordsItsDefinition checks that prev records the definition its
// digest names, now's runner and sink, and a context for st that is the
// one its input digest names.
func recordsItsDefinition(st *Stage, prev, now *Snapshot) error {
	switch {
	case prev.Definition == nil || digestJSON(prev.Definition) != prev.Digests.Definition:
		return errors.New("records a definition that is not the one its definition digest names")
	case prev.Context == nil:
		return errors.New("records no context")
	case prev.Runner != now.Runner || !slices.Equal(prev.Exec, now.Exec):
		return fmt.Errorf("records runner %s %q, not its definition's %s %q", prev.Runner, prev.Exec, now.Runner, now.Exec)
	case prev.Sink != now.Sink:
		return fmt.Errorf("records sink %s, not its definition's %s", prev.Sink, now.Sink)
	case prev.Context.Stage != st.Name:
		return fmt.Errorf("records the context of stage '%s'", prev.Context.Stage)
	}
	sc := copyContext(prev.Context)
	if !withoutBeforeHooks(prev, &sc) {
		return errors.New("records a context that is not the one its input digest names")
	}
	return nil
}

// ranItsHooks checks that prev records one run of each hook of its
// definition, in order, each exiting 0.
func ranItsHooks(prev *Snapshot) error {
	hooks := slices.Concat(prev.Definition.Before, prev.Definition.After)
	if len(prev.Hooks) != len(hooks) {
		return fmt.Errorf("completed, but records %d hook run(s) where its definition has %d hook(s)", len(prev.Hooks), len(hooks))
	}
	for i, h := range prev.Hooks {
		if !slices.Equal(h.Exec, hooks[i]) || h.ExitCode != 0 {
			return fmt.Errorf("completed, but records hook %s (%s) exiting with status %d", h.Hook, strings.Join(h.Exec, " "), h.ExitCode)
		}
	}
	return nil
}

// handsOnWhatItInherited checks that prev's messages and tool results
// start with those it was handed, that it hands on every artifact it
// inherited unchanged (unless st owns it), and holds no checker's
// artifact unless st is that checker.
func handsOnWhatItInherited(st *Stage, prev *Snapshot) error {
	c := prev.Context
	if len(prev.Messages) < len(c.Messages) || !slices.Equal(prev.Messages[:len(c.Messages)], c.Messages) {
		return errors.New("hands on messages that do not start with the ones it was handed")
	}
	if len(prev.ToolResults) < len(c.ToolResults) || !slices.EqualFunc(prev.ToolResults[:len(c.ToolResults)], c.ToolResults, func(a, b ToolResult) bool {
		return a.Tool == b.Tool && bytes.Equal(compactJSON(a.Content), compactJSON(b.Content))
	}) {
		return errors.New("hands on tool results that do not start with the ones it was handed")
	}
	for _, name := range slices.Sorted(maps.Keys(prev.Artifacts)) {
		v := compactJSON(prev.Artifacts[name])
		inherited, ok := c.Artifacts[name]
		switch {
		case ok && !bytes.Equal(v, compactJSON(inherited)) && !st.owns(name):
			return fmt.Errorf("hands on artifact '%s' other than the one it inherited, which wins", name)
		case !ok && checkerArtifacts[name] != "" && !st.owns(name):
			return fmt.Errorf("holds artifact '%s', which only a %s stage writes", name, checkerArtifacts[name])
		}
	}
	for name := range c.Artifacts {
		if _, ok := prev.Artifacts[name]; !ok {
			return fmt.Errorf("does not hand on artifact '%s', which it inherited", name)
		}
	}
	return nil
}

// keepsToItsOutput checks that prev records st's output schema, and an
// output text that keeps to it and to st's limits.
func (r *runner) keepsToItsOutput(st *Stage, prev *Snapshot, outSchema string) error {
	if prev.OutputSchema != outSchema {
		return fmt.Errorf("records output_schema '%s', not its definition's '%s'", prev.OutputSchema, outSchema)
	}
	if outSchema != "" {
		if err := r.p.Protocols.Validate(outSchema, []byte(prev.OutputText)); err != nil {
			return fmt.Errorf("completed, but its output text breaks output_schema '%s': %v", outSchema, err)
		}
	}
	if err := r.checkLimits(st, prev.OutputText); err != nil {
		return fmt.Errorf("completed, but %v", errors.Unwrap(err))
	}
	return nil
}

// recheck runs the built-in runner of st (ka2.build, ka2.verify,
// ka2.grade) again on the context prev, its consistent snapshot, records,
// and holds prev to what it gives: no failure where prev completed, the
// same output text, and the same artifacts of its own (the contract, the
// verification, the grade). Its hooks do not run: prev's record of them
// was checked by consistent. A snapshot that records what the runner
// does not give on its own context was edited.
func (r *runner) recheck(ctx context.Context, st *Stage, prev *Snapshot) error {
	bad := func(format string, args ...any) error {
		return &SnapshotError{Stage: st.Name, Err: fmt.Errorf(format, args...)}
	}
	sc := copyContext(prev.Context)
	out, err := r.run(ctx, st, &sc, &Snapshot{})
	if err == nil {
		err = out.stop
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return bad("records that the stage completed, but %s on the context it records stops: %v", st.Uses, err)
	}
	if text := outputText(out); text != prev.OutputText {
		return bad("records an output text other than the one %s gives on the context it records", st.Uses)
	}
	for _, name := range slices.Sorted(maps.Keys(out.Artifacts)) {
		if _, inherited := sc.Artifacts[name]; inherited && !st.owns(name) {
			continue // the inherited one wins, and consistent held prev to it
		}
		if was, now := compactJSON(prev.Artifacts[name]), compactJSON(out.Artifacts[name]); !bytes.Equal(was, now) {
			return bad("records a %s artifact that is not what %s gives on the context it records (%s, not %s)",
				name, st.Uses, shorten(string(was)), shorten(string(now)))
		}
	}
	return nil
}

// shorten cuts s to a length an error message can quote.
func shorten(s string) string {
	const n = 120
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// ReplayHooks says whether a replay ran the stage's hooks.
type ReplayHooks int

const (
	// HooksNone: the stage has no hooks.
	HooksNone ReplayHooks = iota
	// HooksRun: the hooks ran as in a run, and the artifacts are compared.
	HooksRun
	// HooksSkipped: ReplayOptions.NoHooks left them out; the stage read
	// its recorded context, and only the output text is compared.
	HooksSkipped
	// HooksNotRecorded: the snapshot predates Snapshot.HookKinds, so the
	// stage ran without them, as HooksSkipped.
	HooksNotRecorded
)

// ReplayOptions are what a replay needs besides the snapshot.
type ReplayOptions struct {
	// RunOptions are as for a run; Resume is not read.
	RunOptions
	// NoHooks replays the stage alone, on the context it read.
	NoHooks bool
	// Pipeline, when not nil, is the pipeline the run ran: the stage
	// runs as its file defines it (program, hooks, time limit), and only
	// when that definition is the one the snapshot's definition digest
	// names (ErrDefinitionChanged otherwise). Without it the stage runs
	// the definition the snapshot records, which whoever can write the
	// snapshot file chooses.
	Pipeline *Pipeline
}

// ErrDefinitionChanged is matched by the error of a replay whose
// pipeline defines the stage otherwise than the run that wrote the
// snapshot did.
var ErrDefinitionChanged = errors.New("the stage's definition changed since the snapshot was written")

// Replayed is a stage run again from its snapshot.
type Replayed struct {
	// Recorded is the output text in the snapshot; Output the output text
	// of the run now.
	Recorded, Output string
	// RecordedArtifacts and Artifacts are the stage's artifacts then and
	// now, compact; both nil when Hooks is HooksSkipped or
	// HooksNotRecorded, since the after hooks' artifacts are not there
	// to compare.
	RecordedArtifacts, Artifacts map[string]json.RawMessage
	// Hooks says whether the hooks ran.
	Hooks ReplayHooks
	// Snapshot is the run now's snapshot of the stage.
	Snapshot *Snapshot
}

// Equal reports whether the stage gave the same output text again, and
// the same artifacts when they are compared.
func (r Replayed) Equal() bool { return r.Recorded == r.Output && r.ArtifactsEqual() }

// ArtifactsEqual reports whether the stage's artifacts are the recorded
// ones, or are not compared.
func (r Replayed) ArtifactsEqual() bool {
	return maps.EqualFunc(r.RecordedArtifacts, r.Artifacts, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })
}

// Replay runs a stage again from its snapshot, as a run would, and returns
// the output text (and artifacts) then and now. With opts.Pipeline the
// stage runs as that pipeline defines it, with its hooks, and only when
// its definition is the one the snapshot's digest names
// (ErrDefinitionChanged); a snapshot whose definition or context is not
// the one its digests name is a *SnapshotError. Without it, the stage's
// hooks run as in a run, on the context the stage was handed before them,
// from the recorded definition's command lines in the places
// Snapshot.HookKinds records: a
// veto is a *StageError wrapping ErrVetoed, and the hooks' artifacts are
// compared with the recorded ones. With opts.NoHooks, or a snapshot that
// records no HookKinds, the stage reads the context it read then (after
// its before hooks) and only its output text is compared. Schemas and
// output limits are not applied, and a failed ka2.verify or ka2.grade
// check is compared, not returned. opts.Dir is the folder its programs run
// in; a ka2.build or ka2.verify stage needs opts.Builder (a ka2.grade
// stage takes the refusal phrases from its definition, or from
// contract.Default() without one).
func Replay(ctx context.Context, snap *Snapshot, opts ReplayOptions) (Replayed, error) {
	if snap == nil || snap.Context == nil || snap.Definition == nil {
		return Replayed{}, fmt.Errorf("%w: the snapshot records no context or definition to replay; it was not written by a stage run", ErrBadInput)
	}
	if snap.Digests != nil && digestJSON(snap.Definition) != snap.Digests.Definition {
		return Replayed{}, &SnapshotError{Stage: snap.Stage, Err: errors.New("records a definition that is not the one its definition digest names")}
	}
	if snap.Exec != nil && !slices.Equal(snap.Exec, snap.Definition.Exec) {
		return Replayed{}, &SnapshotError{Stage: snap.Stage, Err: fmt.Errorf("records exec %q, but its definition %q", snap.Exec, snap.Definition.Exec)}
	}
	if opts.Pipeline != nil {
		return replayDefined(ctx, snap, opts)
	}
	d := snap.Definition
	st := &Stage{Name: snap.Stage, Uses: d.Uses, Exec: d.Exec, System: d.System, OnFail: d.OnFail}
	if d.Timeout != "" {
		t, err := time.ParseDuration(d.Timeout)
		if err != nil || t <= 0 {
			return Replayed{}, fmt.Errorf("%w: the snapshot's timeout %q is not a positive duration", ErrBadInput, d.Timeout)
		}
		st.Timeout = t
	}
	switch {
	case d.Uses == "" && len(d.Exec) == 0:
		return Replayed{}, fmt.Errorf("%w: the snapshot of '%s' records neither uses nor exec", ErrBadInput, snap.Stage)
	case d.Uses != "" && !builtinRunner(d.Uses):
		return Replayed{}, fmt.Errorf("%w: the snapshot of '%s' uses '%s', which ka2 does not provide", ErrBadInput, snap.Stage, d.Uses)
	case d.Uses != "" && d.Uses != UsesGrade && opts.Builder == nil:
		return Replayed{}, fmt.Errorf("stage '%s' runs %s, which needs RunOptions.Builder", snap.Stage, d.Uses)
	}
	def := contract.Default()
	if opts.Builder != nil {
		def = opts.Builder.Definition
	}
	r := &runner{p: &Pipeline{def: def, Protocols: Protocols{}}, opts: opts.RunOptions}
	sc := copyContext(snap.Context)
	res := Replayed{Recorded: snap.OutputText, Hooks: HooksNone}
	switch {
	case len(d.Before)+len(d.After) == 0:
	case opts.NoHooks:
		res.Hooks = HooksSkipped
	case len(snap.HookKinds) == 0:
		res.Hooks = HooksNotRecorded
	default:
		res.Hooks = HooksRun
		if err := r.replayHooks(st, snap); err != nil {
			return Replayed{}, err
		}
		if err := beforeHooks(snap, &sc); err != nil {
			return Replayed{}, err
		}
	}
	now := &Snapshot{Stage: snap.Stage, Runner: snap.Runner, Exec: d.Exec, Context: &sc, Definition: d, HookKinds: snap.HookKinds,
		Messages: []Message{}, ToolResults: []ToolResult{}, Artifacts: map[string]json.RawMessage{}, Sink: snap.Sink}
	res.Snapshot = now
	if _, err := r.execute(ctx, st, &sc, now, ""); err != nil {
		return res, err
	}
	res.Output = now.OutputText
	if res.Hooks == HooksNone || res.Hooks == HooksRun {
		res.RecordedArtifacts, res.Artifacts = cloneArtifacts(snap.Artifacts), now.Artifacts
	}
	return res, nil
}

// replayDefined is Replay of the stage as opts.Pipeline defines it.
func replayDefined(ctx context.Context, snap *Snapshot, opts ReplayOptions) (Replayed, error) {
	p := opts.Pipeline
	if err := p.Diagnostics.Err(); err != nil {
		return Replayed{}, err
	}
	if snap.Digests == nil {
		return Replayed{}, fmt.Errorf("%w: the snapshot of '%s' records no digests to hold the pipeline's definition to", ErrBadInput, snap.Stage)
	}
	st := p.Stages[snap.Stage]
	if st == nil || !slices.ContainsFunc(p.Flow, func(f FlowStep) bool { return f.Stage == snap.Stage }) {
		return Replayed{}, fmt.Errorf("%w: the pipeline's flow runs no stage '%s', whose snapshot this is", ErrDefinitionChanged, snap.Stage)
	}
	if st.Uses != "" && st.Uses != UsesGrade && opts.Builder == nil {
		return Replayed{}, fmt.Errorf("stage '%s' runs %s, which needs RunOptions.Builder", snap.Stage, st.Uses)
	}
	r := &runner{p: p, opts: opts.RunOptions}
	if t, err := time.ParseDuration(snap.Definition.Timeout); err == nil && st.Timeout == 0 && t > 0 {
		// The run's default time limit, which the definition records:
		// not a reason to refuse the replay.
		r.opts.Timeout = t
	}
	def, kinds := r.definition(st)
	if digestJSON(def) != snap.Digests.Definition {
		return Replayed{}, fmt.Errorf("%w: '%s' differs in %s; run the pipeline again to record the new definition",
			ErrDefinitionChanged, snap.Stage, strings.Join(definitionDiff(snap.Definition, def), ", "))
	}
	sc := copyContext(snap.Context)
	res := Replayed{Recorded: snap.OutputText, Hooks: HooksNone}
	st = &Stage{Name: st.Name, Uses: st.Uses, Exec: st.Exec, System: st.System, Timeout: st.Timeout, Context: st.Context,
		Before: st.Before, After: st.After, OnFail: st.OnFail} // schemas and output limits are not applied
	switch {
	case len(def.Before)+len(def.After) == 0:
		if !withoutBeforeHooks(snap, &sc) {
			return Replayed{}, &SnapshotError{Stage: snap.Stage, Err: errors.New("records a context that is not the one its input digest names")}
		}
	case opts.NoHooks:
		res.Hooks = HooksSkipped
		st.Before, st.After = nil, nil
		r.p = &Pipeline{def: p.def, Protocols: p.Protocols, Stages: p.Stages, Flow: p.Flow}
	default:
		res.Hooks = HooksRun
		if err := beforeHooks(snap, &sc); err != nil {
			return Replayed{}, err
		}
	}
	now := &Snapshot{Stage: snap.Stage, Runner: cmp.Or(st.Uses, "exec"), Exec: st.Exec, Context: &sc, Definition: def, HookKinds: kinds,
		Messages: []Message{}, ToolResults: []ToolResult{}, Artifacts: map[string]json.RawMessage{}, Sink: st.sink().String()}
	res.Snapshot = now
	if _, err := r.execute(ctx, st, &sc, now, ""); err != nil {
		return res, err
	}
	res.Output = now.OutputText
	if res.Hooks != HooksSkipped {
		res.RecordedArtifacts, res.Artifacts = cloneArtifacts(snap.Artifacts), now.Artifacts
	}
	return res, nil
}

// definitionDiff names the parts of two stage definitions that differ.
func definitionDiff(was, now *StageDefinition) []string {
	fields := func(d *StageDefinition) map[string]json.RawMessage {
		b, _ := jsontext.Marshal(d)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(b, &m)
		return m
	}
	a, b := fields(was), fields(now)
	keys := slices.Concat(slices.Collect(maps.Keys(a)), slices.Collect(maps.Keys(b)))
	slices.Sort(keys)
	var out []string
	for _, k := range slices.Compact(keys) {
		if !bytes.Equal(a[k], b[k]) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = []string{"what it builds from"}
	}
	return out
}

// replayHooks puts the hooks the snapshot's definition records where
// snap.HookKinds says they were declared, on st and on r's pipeline, and
// checks that they then run in the recorded order.
func (r *runner) replayHooks(st *Stage, snap *Snapshot) error {
	d := snap.Definition
	bad := func(why string) error {
		return fmt.Errorf("%w: the hooks of the snapshot of '%s' %s; it was edited", ErrBadInput, snap.Stage, why)
	}
	if len(snap.HookKinds) != len(d.Before)+len(d.After) {
		return bad(fmt.Sprintf("are %d in its definition but %d in hook_kinds", len(d.Before)+len(d.After), len(snap.HookKinds)))
	}
	slots := map[string]**Hook{"before_stage": &r.p.Hooks.BeforeStage, "before": &st.Before,
		"after": &st.After, "after_stage": &r.p.Hooks.AfterStage}
	for i, argv := range slices.Concat(d.Before, d.After) {
		kind := snap.HookKinds[i]
		slot := slots[kind]
		if slot == nil || *slot != nil {
			return bad(fmt.Sprintf("name %q where a hook kind, each at most once, belongs", kind))
		}
		*slot = &Hook{Kind: kind, Exec: argv}
	}
	for _, part := range []struct {
		before bool
		want   [][]string
	}{{true, d.Before}, {false, d.After}} {
		var got [][]string
		for _, h := range r.hooks(st, part.before) {
			got = append(got, h.Exec)
		}
		if !slices.EqualFunc(got, part.want, slices.Equal) {
			return bad("are not in the order their kinds run in")
		}
	}
	return nil
}

// beforeHooks takes the artifacts the before hooks added out of sc, the
// context the stage read, which leaves the context they were handed; the
// input digest, taken before they ran, must agree.
func beforeHooks(snap *Snapshot, sc *StageContext) error {
	if !withoutBeforeHooks(snap, sc) {
		return fmt.Errorf("%w: the context in the snapshot of '%s', without the artifacts its before hooks added, does not match its input digest; it was edited",
			ErrBadInput, snap.Stage)
	}
	return nil
}

// withoutBeforeHooks takes the artifacts the before hooks added out of
// sc, the context the stage read, and reports whether what is left is the
// context its input digest names (or the snapshot has no digests).
func withoutBeforeHooks(snap *Snapshot, sc *StageContext) bool {
	for _, h := range snap.Hooks {
		if h.Hook == "before_stage" || h.Hook == "before" {
			for _, name := range h.Artifacts {
				if !slices.Contains(h.Kept, name) {
					delete(sc.Artifacts, name)
				}
			}
		}
	}
	return snap.Digests == nil || digestJSON(sc) == snap.Digests.Input
}

// copyContext copies a context read from a snapshot as a run holds it:
// its artifacts and input compact, so that a stage that reads its input
// as bytes (ka2.verify) reads what it read in the run, not the indented
// form a snapshot file holds, and changes to the copy do not reach the
// snapshot.
func copyContext(c *StageContext) StageContext {
	sc := *c
	sc.Artifacts = cloneArtifacts(sc.Artifacts)
	if sc.Input != nil {
		sc.Input = slices.Clone(compactJSON(sc.Input))
	}
	return sc
}

// cloneArtifacts copies an artifact map, compact (as a run holds them; a
// snapshot file holds them indented), so a stage's changes to its
// context do not reach the snapshot it was read from.
func cloneArtifacts(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(compactJSON(v))
	}
	return out
}
