package pipeline

import (
	"time"

	"github.com/ka2/ka2/contract"
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

	// def is the contract definition the built-in protocols and ka2.build
	// stages use.
	def *contract.Definition
}

// FlowStep is one stage name in the flow, and where it is written.
type FlowStep struct {
	Stage string
	Pos   Pos
}

// Stage is one declared stage.
type Stage struct {
	Name string
	Pos  Pos
	// Uses names a runner ka2 provides; only UsesBuild exists.
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
}

// Context is a stage's context declaration.
type Context struct {
	Pos             Pos
	Source          Endpoint // upstream (default), fresh or shared:NAME
	SourcePos       Pos      // zero when not written
	Sink            Endpoint // downstream (default), discard or shared:NAME
	SinkPos         Pos
	InputSchema     string // protocol name, or "" for none
	InputSchemaPos  Pos
	OutputSchema    string
	OutputSchemaPos Pos
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
// conform to, "" where it declares none. A ka2.build stage always reads
// RequestProtocol and writes the contract template (ka2-context-v1).
func (p *Pipeline) StageSchemas(name string) (input, output string) {
	s := p.Stages[name]
	if s == nil {
		return "", ""
	}
	return s.inputSchema(), s.outputSchema(p.def)
}

// inputSchema is the protocol the stage's input must conform to, or "".
func (s *Stage) inputSchema() string {
	if s.Uses == UsesBuild {
		return RequestProtocol
	}
	if s.Context == nil {
		return ""
	}
	return s.Context.InputSchema
}

// outputSchema is the protocol the stage's output must conform to, or "".
func (s *Stage) outputSchema(def *contract.Definition) string {
	if s.Uses == UsesBuild {
		return def.Template
	}
	if s.Context == nil {
		return ""
	}
	return s.Context.OutputSchema
}

// UsesBuild reports whether the flow runs a ka2.build stage, which needs
// RunOptions.Builder.
func (p *Pipeline) UsesBuild() bool {
	for _, f := range p.Flow {
		if s := p.Stages[f.Stage]; s != nil && s.Uses == UsesBuild {
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
