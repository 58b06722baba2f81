package pipeline

import (
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/diag"
)

// Pipeline is a parsed and checked pipeline file. Parse always returns
// one; Diagnostics says whether it can run.
type Pipeline struct {
	// File names the pipeline file in diagnostics, as the caller gave it.
	File string
	// Protocols are the built-in protocols and those the file declares.
	Protocols Protocols
	// Stages are the declared stages by name.
	Stages map[string]*Stage
	// Flow is the chain of stages, in the order they run.
	Flow []FlowStep
	// Diagnostics are the check's findings, sorted by position.
	Diagnostics Diagnostics
	// InputSchema is the declared top-level input_schema: a protocol name,
	// or "string" for a plain-text run input; "" when the file declares
	// none (see RunInputSchema).
	InputSchema    string
	InputSchemaPos diag.Pos
	// Hooks run around every stage: BeforeStage before each stage's own
	// before hook, AfterStage after each stage's own after hook.
	Hooks PipelineHooks

	// def is the contract definition the built-in protocols and ka2.build
	// stages use.
	def *contract.Definition
}

// FlowStep is one stage name in the flow, and where it is written.
type FlowStep struct {
	Stage string
	Pos   diag.Pos
}

// Stage is one declared stage.
type Stage struct {
	Name string
	Pos  diag.Pos
	// Uses names a runner ka2 provides: UsesBuild, UsesVerify or
	// UsesGrade.
	Uses string
	// Exec is the program and its arguments. A program path containing a
	// slash is relative to the pipeline file's folder (RunOptions.Dir);
	// a bare name is looked up on PATH.
	Exec []string
	// System is the stage's own system message, put first in its context.
	System string
	// Timeout is the stage's time limit; zero means RunOptions.Timeout.
	Timeout time.Duration
	// Context is the stage's declared context; nil when the stage has no
	// context block, which means plain text hand-off and no checks.
	Context *Context
	// Before and After are the stage's own hooks, or nil.
	Before, After *Hook
	// OnFail says what a failed ka2.verify or ka2.grade does: OnFailStop
	// (the default) stops the run, OnFailContinue only records the
	// verification or the grade.
	OnFail string
	// MaxOutputBytes, when positive, limits the stage's output text.
	MaxOutputBytes int
	// MaxOutputTokens limits the stage's output text in the budget
	// counter's units: ReserveTokens (-1) means the contract's reserve R,
	// a positive value that many units, zero no limit.
	MaxOutputTokens int
}

// Hook is a program run before or after a stage, under the rules of an
// exec stage: its path relative to the pipeline file's folder (a bare name
// is looked up on PATH), the stage's time limit, the output caps and its
// own process group. A hook that exits non-zero vetoes the stage; one that
// prints {"artifacts": {…}} adds those artifacts to the stage's snapshot.
type Hook struct {
	// Kind is where the hook is declared: before, after (on a stage),
	// before_stage or after_stage (under the pipeline's hooks).
	Kind string
	Exec []string
	Pos  diag.Pos
}

// PipelineHooks are the hooks that run around every stage.
type PipelineHooks struct {
	BeforeStage, AfterStage *Hook
}

// The on_fail values of a ka2.verify or ka2.grade stage.
const (
	OnFailStop     = "stop"
	OnFailContinue = "continue"
)

// ReserveTokens is Stage.MaxOutputTokens for max_output_tokens: reserve.
const ReserveTokens = -1

// Context is a stage's context declaration.
type Context struct {
	Pos             diag.Pos
	Source          Endpoint // upstream (default), fresh or shared:NAME
	SourcePos       diag.Pos // zero when not written
	Sink            Endpoint // downstream (default), discard or shared:NAME
	SinkPos         diag.Pos
	InputSchema     string // protocol name, or "" for none
	InputSchemaPos  diag.Pos
	OutputSchema    string
	OutputSchemaPos diag.Pos
	// MaxHistoryTurns, when positive, keeps the last N user turns of the
	// handed-off messages and everything after the first of them.
	MaxHistoryTurns int
	Inherit         Inherit
}

// Inherit lists the parts of the upstream snapshot a stage takes over.
type Inherit struct {
	// Messages: the upstream conversation, without its system messages.
	// Without it, the upstream output text arrives as one user message.
	Messages bool
	// Artifacts: upstream artifacts, which win over the stage's own on a
	// name clash.
	Artifacts bool
	// ToolResults: upstream tool results, with the stage's own appended.
	ToolResults bool
}

// EndpointKind is where a context comes from or goes to.
type EndpointKind string

// The endpoint kinds. Upstream, Fresh and Shared are sources; Downstream,
// Discard and Shared are sinks.
const (
	Upstream   EndpointKind = "upstream"   // source: the stage before (the run input for the first)
	Fresh      EndpointKind = "fresh"      // source: the run input only
	Downstream EndpointKind = "downstream" // sink: the stage after
	Discard    EndpointKind = "discard"    // sink: nowhere; the hand-off ends
	Shared     EndpointKind = "shared"     // source or sink: the named store of the run
)

// Endpoint is a source or a sink: a kind, and for Shared the store name.
type Endpoint struct {
	Kind EndpointKind
	Name string
}

// String writes e as in a pipeline file: upstream, shared:NAME, ….
func (e Endpoint) String() string {
	if e.Kind == Shared {
		return "shared:" + e.Name
	}
	return string(e.Kind)
}

// source is where the stage reads its context from.
func (s *Stage) source() Endpoint {
	if s.Context == nil {
		return Endpoint{Kind: Upstream}
	}
	return s.Context.Source
}

// sink is where the stage sends its context.
func (s *Stage) sink() Endpoint {
	if s.Context == nil {
		return Endpoint{Kind: Downstream}
	}
	return s.Context.Sink
}

// inherit is what the stage takes over from its source.
func (s *Stage) inherit() Inherit {
	if s.Context == nil {
		return Inherit{}
	}
	return s.Context.Inherit
}

// StageSchemas returns the protocols a stage's input and output must
// conform to, "" where it declares none. A built-in stage always reads
// and writes its own protocols: ka2.build reads RequestProtocol and writes
// the contract template (ka2-context-v1), ka2.verify reads and writes the
// template, ka2.grade reads and writes none (the answer is text).
func (p *Pipeline) StageSchemas(name string) (input, output string) {
	s := p.Stages[name]
	if s == nil {
		return "", ""
	}
	return s.schemas(p.def)
}

// UsesVerify is the uses value of a stage that verifies the contract it is
// handed against the corpus, in process, and passes it on unchanged with a
// "verification" artifact.
const UsesVerify = "ka2.verify"

// UsesGrade is the uses value of a stage that grades the answer it is
// handed (its upstream output text) against the contract it inherits as
// the "contract" artifact, in process, and passes the answer on unchanged
// with a "grade" artifact.
const UsesGrade = "ka2.grade"

// builtinSchemas are the protocols a built-in runner reads and writes;
// ok is false for a uses value ka2 does not provide. ka2.grade reads and
// writes none: it takes its input as text, and passes on whatever its
// upstream wrote (the check treats it as transparent).
func builtinSchemas(uses string, def *contract.Definition) (in, out string, ok bool) {
	switch uses {
	case UsesBuild:
		return RequestProtocol, def.Template, true
	case UsesVerify:
		return def.Template, def.Template, true
	case UsesGrade:
		return "", "", true
	}
	return "", "", false
}

// schemas are the protocols the stage's input and output must conform
// to, "" where it declares none.
func (s *Stage) schemas(def *contract.Definition) (in, out string) {
	if in, out, ok := builtinSchemas(s.Uses, def); ok {
		return in, out
	}
	if s.Context == nil {
		return "", ""
	}
	return s.Context.InputSchema, s.Context.OutputSchema
}

// UsesBuild reports whether the flow runs a ka2.build stage.
func (p *Pipeline) UsesBuild() bool {
	for _, f := range p.Flow {
		if s := p.Stages[f.Stage]; s != nil && s.Uses == UsesBuild {
			return true
		}
	}
	return false
}

// NeedsBuilder reports whether the run needs RunOptions.Builder: for a
// ka2.build or ka2.verify stage, or a stage whose output is limited in
// the budget counter's units (max_output_tokens).
func (p *Pipeline) NeedsBuilder() bool {
	for _, f := range p.Flow {
		if s := p.Stages[f.Stage]; s != nil && (s.Uses == UsesBuild || s.Uses == UsesVerify || s.MaxOutputTokens != 0) {
			return true
		}
	}
	return false
}

// Definition is the contract definition the pipeline was parsed with.
func (p *Pipeline) Definition() *contract.Definition { return p.def }

// String writes the flow as a >> b >> c.
func (p *Pipeline) String() string {
	s := ""
	for i, f := range p.Flow {
		if i > 0 {
			s += " >> "
		}
		s += f.Stage
	}
	return s
}
