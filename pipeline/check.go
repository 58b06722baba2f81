package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/suggest"
)

// provider is what hands a stage its context: the run input, an earlier
// stage's downstream sink, or the last writer of a shared store.
type provider struct {
	name   string // stage name, or InputStage
	schema string // its output schema, "" for plain text
	via    string // "" for a direct hand-off, or "shared:NAME"
}

// check runs the checks that need the whole file: the flow's stage names,
// the endpoints along it, and the compatibility of every hand-off.
func (ps *parser) check() {
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
			ps.report(SeverityWarning, CodeUnusedStage, p.Stages[name].Pos, "Add it to the flow or remove it",
				"stage '%s' is declared but the flow never runs it", name)
		}
	}

	input := &provider{name: InputStage, schema: RequestProtocol}
	var upstream *provider = input // what "upstream" means for the next stage
	var prev *Stage                // the stage before, when known
	writers := map[string]*provider{}
	for i, step := range p.Flow {
		st := p.Stages[step.Stage]
		if st == nil || dup[i] {
			upstream, prev = nil, nil // unknown: check nothing that depends on it
			continue
		}
		var from *provider
		src := st.source()
		srcPos := step.Pos
		if st.Context != nil && st.Context.SourcePos.Line > 0 {
			srcPos = st.Context.SourcePos
		}
		switch src.Kind {
		case "": // invalid, reported as C-006
		case Upstream:
			if prev != nil && prev.sink().Kind != Downstream {
				ps.noUpstream(prev, st, srcPos)
			}
			from = upstream
		case Fresh:
			from = input
		case Shared:
			from = writers[src.Name]
			if from == nil {
				hint := fmt.Sprintf("Set sink: %s on a stage that runs before '%s', or read another source", src, st.Name)
				ps.errorf(CodeSharedUnwritten, srcPos, hint,
					"stage '%s' reads %s, which no earlier stage writes", st.Name, src)
			}
		}
		if from != nil {
			ps.compatible(from, st, step.Pos)
		}
		out := &provider{name: st.Name, schema: st.outputSchema(p.def)}
		if p.Protocols[out.schema] == nil {
			out.schema = "" // unknown protocol, reported already
		}
		prev = st
		switch sink := st.sink(); sink.Kind {
		case Downstream:
			upstream = out
		case Shared:
			writers[sink.Name] = &provider{name: out.name, schema: out.schema, via: sink.String()}
			upstream = nil
		case Discard:
			upstream = nil
		default: // invalid, reported as C-006: check nothing after it
			upstream, prev = nil, nil
		}
	}
}

// noUpstream reports a stage reading upstream after a stage that sends its
// context elsewhere.
func (ps *parser) noUpstream(prev, st *Stage, pos Pos) {
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
// subtype of the stage's input schema. A hand-off is checked only when both
// sides declare a schema; plain text hand-off is never checked.
func (ps *parser) compatible(from *provider, st *Stage, pos Pos) {
	want := st.inputSchema()
	if from.schema == "" || want == "" {
		return
	}
	have, wantP := ps.p.Protocols[from.schema], ps.p.Protocols[want]
	if have == nil || wantP == nil || have.broken || wantP.broken {
		return // reported as C-002
	}
	ok, probs := ps.p.Protocols.Compatible(from.schema, want)
	if ok {
		return
	}
	via := ""
	if from.via != "" {
		via = " via " + from.via
	}
	fix := fmt.Sprintf("Align %s.context.output_schema with %s.context.input_schema", from.name, st.Name)
	if from.name == InputStage {
		fix = fmt.Sprintf("Align %s.context.input_schema with the run input (%s), or put a stage before '%s' that writes '%s'",
			st.Name, RequestProtocol, st.Name, want)
	}
	ps.errorf(CodeIncompatible, pos, fix,
		"Context incompatible in pipeline '%s >> %s'%s: output_schema='%s' is not a subtype of input_schema='%s' (%s)",
		from.name, st.Name, via, from.schema, want, strings.Join(probs, "; "))
}
