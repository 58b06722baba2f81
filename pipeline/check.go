package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/suggest"
)

// provider is what hands a stage its context: the run input, an earlier
// stage's downstream sink, or the last writer of a shared store.
type provider struct {
	name   string // stage name, or InputStage
	schema string // its output schema, "" for plain text
	via    string // "" for a direct hand-off, or "shared:NAME"
	// declared: the provider declares its context (a context block, a
	// built-in runner, or the run input), so a missing schema is a
	// declaration that says nothing rather than plain text hand-off.
	declared bool
	// unknown: its schema names an unknown protocol, reported already.
	unknown bool
	// writer is the stage (or InputStage) whose output a ka2.grade stage
	// passes on, "" when the provider wrote its output itself.
	writer string
}

// owner is the stage that wrote the provider's output: the one whose
// declarations a fix changes.
func (p *provider) owner() string {
	if p.writer != "" {
		return p.writer
	}
	return p.name
}

// check runs the checks that need the whole file: the flow's stage names,
// the endpoints along it, and the compatibility of every hand-off.
func (ps *parser) check() {
	dup := ps.checkFlowNames()
	ps.checkHandOffs(dup)
}

// checkFlowNames reports a flow step naming no stage, a stage named twice
// (the index of each repeat is in the result) and a stage the flow never
// runs.
func (ps *parser) checkFlowNames() map[int]bool {
	p := ps.p
	inFlow := map[string]FlowStep{}
	dup := map[int]bool{}
	for i, step := range p.Flow {
		if p.Stages[step.Stage] == nil {
			hint := "Declare stage '" + step.Stage + "' under stages"
			if s := suggest.Closest(step.Stage, slices.Sorted(maps.Keys(p.Stages))); s != "" {
				hint = fmt.Sprintf("Did you mean '%s'? Or declare stage '%s' under stages", s, step.Stage)
			}
			ps.errorf(CodeUnknownStage, step.Pos, hint, "the flow names unknown stage '%s'", step.Stage)
			continue
		}
		if first, seen := inFlow[step.Stage]; seen {
			ps.errorf(CodeDuplicate, step.Pos, "Declare a second stage with the same runner under another name",
				"stage '%s' appears twice in the flow (first at column %d); a stage runs once per run", step.Stage, first.Pos.Col)
			dup[i] = true
			continue
		}
		inFlow[step.Stage] = step
	}
	for _, name := range ps.stageOrder {
		if _, ok := inFlow[name]; !ok {
			ps.report(diag.SeverityWarning, CodeUnusedStage, p.Stages[name].Pos, "Add it to the flow or remove it",
				"stage '%s' is declared but the flow never runs it", name)
		}
	}
	return dup
}

// handOff is what the walk along the flow knows before a stage: the run's
// input, what "upstream" means for it (nil: unknown, check nothing that
// depends on it), the stage before when known, and who wrote each shared
// slot.
type handOff struct {
	input    *provider
	upstream *provider
	prev     *Stage
	writers  map[string]*provider
}

// checkHandOffs walks the flow, skipping the steps dup marks, and checks
// that each stage's source is there and its input compatible with what
// the source wrote.
func (ps *parser) checkHandOffs(dup map[int]bool) {
	p := ps.p
	input := &provider{name: InputStage, schema: p.RunInputSchema(), declared: true}
	if input.schema != TextInput && input.schema != "" && p.Protocols[input.schema] == nil {
		input.unknown = true
	}
	h := &handOff{input: input, upstream: input, writers: map[string]*provider{}}
	for i, step := range p.Flow {
		st := p.Stages[step.Stage]
		if st == nil || dup[i] {
			h.upstream, h.prev = nil, nil
			continue
		}
		from := ps.sourceOf(h, st, step)
		if from != nil {
			ps.compatible(from, st, step.Pos)
		}
		out := ps.outputOf(st, from)
		h.prev = st
		switch sink := st.sink(); sink.Kind {
		case Downstream:
			h.upstream = out
		case Shared:
			h.writers[sink.Name] = &provider{name: out.name, schema: out.schema, via: sink.String(), declared: out.declared, unknown: out.unknown, writer: out.writer}
			h.upstream = nil
		case Discard:
			h.upstream = nil
		default: // invalid, reported as C-006: check nothing after it
			h.upstream, h.prev = nil, nil
		}
	}
}

// sourceOf is what stage st of flow step step reads, nil when unknown;
// it reports reading upstream after a stage that sends elsewhere, and
// reading a shared slot no earlier stage writes.
func (ps *parser) sourceOf(h *handOff, st *Stage, step FlowStep) *provider {
	src := st.source()
	srcPos := step.Pos
	if st.Context != nil && st.Context.SourcePos.Line > 0 {
		srcPos = st.Context.SourcePos
	}
	switch src.Kind {
	case Upstream:
		if h.prev != nil && h.prev.sink().Kind != Downstream {
			ps.noUpstream(h.prev, st, srcPos)
		}
		return h.upstream
	case Fresh:
		return h.input
	case Shared:
		from := h.writers[src.Name]
		if from == nil {
			hint := fmt.Sprintf("Set sink: %s on a stage that runs before '%s', or read another source", src, st.Name)
			ps.errorf(CodeSharedUnwritten, srcPos, hint,
				"stage '%s' reads %s, which no earlier stage writes", st.Name, src)
		}
		return from
	}
	return nil // "": invalid, reported as C-006
}

// outputOf is what stage st writes, given what it read (from, nil when
// unknown).
func (ps *parser) outputOf(st *Stage, from *provider) *provider {
	p := ps.p
	_, outSchema := st.schemas(p.def)
	out := &provider{name: st.Name, schema: outSchema, declared: st.Context != nil || builtinRunner(st.Uses)}
	if (out.schema != "" && p.Protocols[out.schema] == nil) || (st.Uses != "" && !builtinRunner(st.Uses)) {
		out.unknown = true
	}
	if st.Uses == UsesGrade {
		// ka2.grade passes its input text on unchanged: it writes
		// what its source wrote.
		out = &provider{name: st.Name, unknown: true}
		if from != nil {
			out = &provider{name: st.Name, schema: from.schema, declared: from.declared, unknown: from.unknown, writer: from.owner()}
		}
	}
	return out
}

// noUpstream reports a stage reading upstream after a stage that sends its
// context elsewhere.
func (ps *parser) noUpstream(prev, st *Stage, pos diag.Pos) {
	sink := prev.sink()
	did := "discards its context (sink: discard)"
	fix := fmt.Sprintf("Set %s.context.source to fresh or shared:NAME, or %s.context.sink to downstream", st.Name, prev.Name)
	if sink.Kind == Shared {
		did = fmt.Sprintf("sends its context to %s, not downstream", sink)
		fix = fmt.Sprintf("Set %s.context.source to %s, or %s.context.sink to downstream", st.Name, sink, prev.Name)
	}
	ps.errorf(CodeNoUpstream, pos, fix, "stage '%s' reads upstream, but '%s' before it %s", st.Name, prev.Name, did)
}

// compatible reports one C-004 when the provider's output schema is not a
// subtype of the stage's input schema. A hand-off is checked whenever the
// stage declares an input schema: a provider that declares no output
// schema, has no context block at all (plain text), or is a run input
// without input_schema is a C-004 too, since nothing then says its output
// fits and the run would refuse it there. A stage without an input
// schema takes plain text and is never checked.
func (ps *parser) compatible(from *provider, st *Stage, pos diag.Pos) {
	want, _ := st.schemas(ps.p.def)
	if want == "" || from.unknown {
		return
	}
	wantP := ps.p.Protocols[want]
	if wantP == nil || wantP.broken {
		return // reported as C-002
	}
	via := ""
	if from.via != "" {
		via = " via " + from.via
	}
	pair := fmt.Sprintf("Context incompatible in pipeline '%s >> %s'%s", from.name, st.Name, via)
	switch {
	case from.schema == "" && from.owner() == InputStage:
		ps.errorf(CodeIncompatible, pos, fmt.Sprintf("Declare input_schema: %s at the top level of the pipeline file", want),
			"%s: the run input declares no input_schema, so nothing says it fits input_schema='%s'", pair, want)
		return
	case from.schema == "":
		fix := fmt.Sprintf("Declare %s.context.output_schema (a subtype of '%s'), or remove %s.context.input_schema", from.owner(), want, st.Name)
		if builtinRunner(st.Uses) {
			fix = fmt.Sprintf("Declare %s.context.output_schema (a subtype of '%s', which %s reads)", from.owner(), want, st.Uses)
		}
		says := "declares no output_schema"
		if !from.declared {
			// Plain text from a stage without a context block: the
			// run would refuse it at this stage's input, so say so now.
			says = "has no context block"
		}
		ps.errorf(CodeIncompatible, pos, fix,
			"%s: upstream %s, so nothing says '%s' writes what input_schema='%s' requires", pair, says, from.owner(), want)
		return
	case from.schema == TextInput:
		fix := fmt.Sprintf("Declare input_schema: %s at the top level, or remove %s.context.input_schema to take the text as it is", want, st.Name)
		if builtinRunner(st.Uses) {
			fix = fmt.Sprintf("Declare input_schema: %s at the top level; %s reads nothing else", want, st.Uses)
		}
		ps.errorf(CodeIncompatible, pos, fix,
			"%s: the run input is plain text (input_schema: %s), not input_schema='%s'", pair, TextInput, want)
		return
	}
	have := ps.p.Protocols[from.schema]
	if have == nil || have.broken {
		return // reported as C-002
	}
	ok, probs := ps.p.Protocols.Compatible(from.schema, want)
	if ok {
		return
	}
	fix := fmt.Sprintf("Align %s.context.output_schema with %s.context.input_schema", from.owner(), st.Name)
	if from.owner() == InputStage {
		fix = fmt.Sprintf("Align %s.context.input_schema with the run input (%s), or put a stage before '%s' that writes '%s'",
			st.Name, from.schema, st.Name, want)
	}
	ps.errorf(CodeIncompatible, pos, fix,
		"%s: output_schema='%s' is not a subtype of input_schema='%s' (%s)",
		pair, from.schema, want, strings.Join(probs, "; "))
}

// TextInput is the input_schema of a pipeline whose run input is plain
// text (ka2 pipeline run --input-text).
const TextInput = "string"

// RunInputSchema is the schema of the run input: the declared
// input_schema; otherwise RequestProtocol when the flow starts with a
// ka2.build stage, and "" (any JSON value, or text, unchecked) when it
// does not.
func (p *Pipeline) RunInputSchema() string {
	if p.InputSchema != "" {
		return p.InputSchema
	}
	if len(p.Flow) > 0 {
		if s := p.Stages[p.Flow[0].Stage]; s != nil && s.Uses == UsesBuild {
			return RequestProtocol
		}
	}
	return ""
}
