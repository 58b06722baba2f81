package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
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

// definition records what decides st's output besides its input.
func (r *runner) definition(st *Stage) *StageDefinition {
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
	for _, h := range r.hooks(st, true) {
		d.Before = append(d.Before, h.Exec)
	}
	for _, h := range r.hooks(st, false) {
		d.After = append(d.After, h.Exec)
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
	return d
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

// Replayed is a stage run again from its snapshot.
type Replayed struct {
	// Recorded is the output text in the snapshot; Output the output text
	// of the run now.
	Recorded, Output string
	// Snapshot is the run now's snapshot of the stage.
	Snapshot *Snapshot
}

// Equal reports whether the stage gave the same output text again.
func (r Replayed) Equal() bool { return r.Recorded == r.Output }

// Replay runs a stage again on the context its snapshot recorded (what it
// read on stdin, after its before hooks), with its recorded definition,
// and returns the output text then and now. Hooks, schemas and output
// limits are not applied: a replay asks only whether the stage's runner
// gives the same output for the same context. opts.Dir is the folder its
// program runs in; a ka2.build or ka2.verify stage needs opts.Builder (a
// ka2.grade stage takes the refusal phrases from its definition, or from
// contract.Default() without one).
func Replay(ctx context.Context, snap *Snapshot, opts RunOptions) (Replayed, error) {
	if snap == nil || snap.Context == nil || snap.Definition == nil {
		return Replayed{}, fmt.Errorf("%w: the snapshot records no context or definition to replay; it was not written by a stage run", ErrBadInput)
	}
	d := snap.Definition
	st := &Stage{Name: snap.Stage, Uses: d.Uses, Exec: d.Exec, System: d.System}
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
	r := &runner{p: &Pipeline{def: def, Protocols: Protocols{}}, opts: opts}
	sc := *snap.Context
	sc.Artifacts = cloneArtifacts(sc.Artifacts)
	now := &Snapshot{Stage: snap.Stage, Runner: snap.Runner, Exec: d.Exec, Context: &sc, Definition: d,
		Messages: []Message{}, ToolResults: []ToolResult{}, Artifacts: map[string]json.RawMessage{}}
	out, err := r.run(ctx, st, &sc, now)
	if err != nil {
		return Replayed{Recorded: snap.OutputText, Snapshot: now}, err
	}
	now.OutputText = outputText(out)
	return Replayed{Recorded: snap.OutputText, Output: now.OutputText, Snapshot: now}, nil
}

// cloneArtifacts copies an artifact map, so a stage's changes to its
// context do not reach the snapshot it was read from.
func cloneArtifacts(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
