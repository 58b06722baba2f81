package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/suggest"
)

// protocols reads the protocols block.
func (ps *parser) protocols(n *yaml.Node) {
	entries, _ := ps.mapping(n, protocolsMap)
	for _, e := range entries {
		name := e.key
		switch {
		case !protocolName.MatchString(name):
			ps.errorf(CodeSyntax, ps.at(e.k), "Start with a letter or _, then use letters, digits, _, . and -",
				"protocol name '%s' is not a name", name)
			continue
		case primitives[name] != KindInvalid || name == "list":
			ps.errorf(CodeDuplicate, ps.at(e.k), "Pick another name", "'%s' is a type name and cannot name a protocol", name)
			continue
		case ps.p.Protocols[name] != nil:
			ps.errorf(CodeDuplicate, ps.at(e.k), "Pick another name, or use the built-in protocol as it is",
				"protocol '%s' is built in (%s)", name, ps.p.Protocols[name].Origin)
			continue
		case strings.HasPrefix(name, "ka2-"):
			ps.errorf(CodeDuplicate, ps.at(e.k), "Pick a name that does not start with ka2-",
				"protocol names starting with ka2- are reserved for built-in protocols")
			continue
		}
		p := &Protocol{Name: name, Pos: ps.at(e.k)}
		fields, _ := ps.mapping(e.v, protocolMap.Named("protocol '"+name+"'"))
		seen := map[string]int{}
		for _, f := range fields {
			fname, optional := strings.CutSuffix(f.key, "?")
			if fname == "" {
				ps.errorf(CodeSyntax, ps.at(f.k), "Name the field", "a field of protocol '%s' has no name", name)
				continue
			}
			if line, dup := seen[fname]; dup {
				ps.errorf(CodeDuplicate, ps.at(f.k), "Keep one of them",
					"field '%s' of protocol '%s' is declared twice (first at line %d)", fname, name, line)
				continue
			}
			seen[fname] = f.k.Line
			text, ok := ps.scalar(f.v, "the type of field '"+fname+"'",
				"Write one type: string, integer, number, boolean, date, list<T> or a protocol name")
			if !ok {
				p.broken = true
				continue
			}
			t, err := ParseType(text)
			if err != nil {
				ps.errorf(CodeUnknownProtocol, ps.at(f.v), "Write string, integer, number, boolean, date, list<T> or a protocol name",
					"field '%s' of protocol '%s': %v", fname, name, err)
				p.broken = true
				continue
			}
			p.Fields = append(p.Fields, Field{Name: fname, Type: t, Optional: optional, Pos: ps.at(f.v)})
		}
		ps.p.Protocols[name] = p
	}
	ps.resolveProtocols()
}

// resolveProtocols reports field types that name no protocol, and marks
// every protocol that depends on a broken one, so no comparison runs on it.
func (ps *parser) resolveProtocols() {
	names := slices.Sorted(maps.Keys(ps.p.Protocols))
	for _, name := range names {
		p := ps.p.Protocols[name]
		if p.Origin != "" {
			continue
		}
		for _, f := range p.Fields {
			ref := protocolOf(f.Type)
			if ref == "" || ps.p.Protocols[ref] != nil {
				continue
			}
			ps.errorf(CodeUnknownProtocol, f.Pos, ps.protocolHint(ref, true),
				"field '%s' of protocol '%s' has unknown type '%s'", f.Name, name, ref)
			p.broken = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, name := range names {
			p := ps.p.Protocols[name]
			if p.broken {
				continue
			}
			for _, f := range p.Fields {
				if ref := protocolOf(f.Type); ref != "" && ps.p.Protocols[ref] != nil && ps.p.Protocols[ref].broken {
					p.broken, changed = true, true
					break
				}
			}
		}
	}
}

// protocolOf names the protocol a type refers to, through lists, or "".
func protocolOf(t Type) string {
	for t.Kind == KindList {
		t = *t.Elem
	}
	if t.Kind == KindProtocol {
		return t.Name
	}
	return ""
}

func (ps *parser) protocolHint(name string, types bool) string {
	candidates := slices.Sorted(maps.Keys(ps.p.Protocols))
	if types {
		candidates = append(candidates, primitiveNames...)
	}
	if s := suggest.Closest(name, candidates); s != "" {
		return fmt.Sprintf("Did you mean '%s'? Or declare protocol '%s' under protocols", s, name)
	}
	return fmt.Sprintf("Declare protocol '%s' under protocols, or use a built-in protocol: %s",
		name, joinWith(ps.builtinNames(), "or"))
}

func (ps *parser) builtinNames() []string {
	var out []string
	for name, p := range ps.p.Protocols {
		if p.Origin != "" && !strings.Contains(name, ".") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// stages reads the stages block.
func (ps *parser) stages(n *yaml.Node) {
	entries, ok := ps.mapping(n, stagesMap)
	if !ok {
		return
	}
	for _, e := range entries {
		// A stage with a bad name is still read, so the flow does not
		// report it again as unknown.
		switch {
		case e.key == InputStage:
			ps.errorf(CodeDuplicate, ps.at(e.k), "Rename the stage",
				"stage name '%s' is reserved for the run input", InputStage)
		case !stageName.MatchString(e.key):
			ps.errorf(CodeSyntax, ps.at(e.k), "Use letters, digits, _, . and -, starting with a letter, digit or _",
				"stage name '%s' is not a name", e.key)
		}
		st := &Stage{Name: e.key, Pos: ps.at(e.k)}
		ps.stage(st, e)
		ps.p.Stages[st.Name] = st
		ps.stageOrder = append(ps.stageOrder, st.Name)
	}
}

func (ps *parser) stage(st *Stage, se entry) {
	entries, ok := ps.mapping(se.v, stageMap.Named("stage '"+st.Name+"'"))
	if !ok {
		return
	}
	at := ps.stageKeys(st, entries)
	ps.stageRunner(st, at)
	if builtinRunner(st.Uses) && st.Timeout != 0 {
		ps.errorf(CodeBadValue, at.timeout, "Remove timeout; it limits exec stages",
			"stage '%s' runs %s in process, which takes no timeout", st.Name, st.Uses)
	}
	checks := st.Uses == UsesVerify || st.Uses == UsesGrade
	if st.OnFail != "" && !checks {
		ps.errorf(CodeBadValue, at.onFail, "Remove on_fail; only a "+UsesVerify+" or "+UsesGrade+" stage takes it",
			"stage '%s' is not a %s or %s stage, so on_fail means nothing", st.Name, UsesVerify, UsesGrade)
	}
	if st.OnFail == "" && checks {
		st.OnFail = OnFailStop
	}
	if st.Uses == UsesGrade {
		ps.gradeStage(st)
	} else if in, out, ok := builtinSchemas(st.Uses, ps.p.def); ok && st.Context != nil {
		c := st.Context
		if c.InputSchema != "" && c.InputSchema != in {
			ps.errorf(CodeBadValue, c.InputSchemaPos, "Remove input_schema, or write "+in,
				"stage '%s' runs %s, which reads %s, not '%s'", st.Name, st.Uses, in, c.InputSchema)
		}
		if c.OutputSchema != "" && c.OutputSchema != out {
			ps.errorf(CodeBadValue, c.OutputSchemaPos, "Remove output_schema, or write "+out,
				"stage '%s' runs %s, which writes %s, not '%s'", st.Name, st.Uses, out, c.OutputSchema)
		}
	}
	if in, _ := st.schemas(ps.p.def); st.MaxOutputTokens == ReserveTokens && in != ps.p.def.Template {
		ps.errorf(CodeBadValue, at.tokens, "Declare input_schema: "+ps.p.def.Template+", or write a number of units",
			"stage '%s' has max_output_tokens: reserve, but its input is not a %s contract, so there is no reserve to hold it to",
			st.Name, ps.p.def.Template)
	}
}

// stagePos is where a stage's keys stand, for the checks that relate one
// key to others; runnerOK is false when uses or exec is written but
// unreadable.
type stagePos struct {
	uses, exec, timeout, onFail, tokens diag.Pos
	runnerOK                            bool
}

// stageKeys reads each key of a stage into st, checking each on its own.
func (ps *parser) stageKeys(st *Stage, entries []entry) stagePos {
	at := stagePos{runnerOK: true}
	for _, e := range entries {
		switch e.key {
		case "uses":
			var ok bool
			st.Uses, ok = ps.scalar(e.v, "uses", "Write uses: "+UsesBuild)
			at.runnerOK = at.runnerOK && ok
			at.uses = ps.at(e.v)
		case "exec":
			at.exec = ps.at(e.k)
			var ok bool
			st.Exec, _, ok = ps.scalarList(e.v, "exec", "Write exec: [program, arg, …]")
			at.runnerOK = at.runnerOK && ok
		case "system":
			st.System, _ = ps.scalar(e.v, "system", "Write the stage's system message as one string")
		case "timeout":
			s, ok := ps.scalar(e.v, "timeout", "Write a duration such as 30s or 2m")
			if !ok {
				continue
			}
			at.timeout = ps.at(e.v)
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				ps.errorf(CodeBadValue, ps.at(e.v), "Write a positive duration such as 30s or 2m",
					"timeout '%s' of stage '%s' is not a positive duration", s, st.Name)
				continue
			}
			st.Timeout = d
		case "context":
			st.Context = ps.context(st, e)
		case "before", "after":
			h := ps.hook(e, e.key, "stage '"+st.Name+"'")
			if e.key == "before" {
				st.Before = h
			} else {
				st.After = h
			}
		case "on_fail":
			s, ok := ps.scalar(e.v, "on_fail", "Write on_fail: stop or on_fail: continue")
			if !ok {
				continue
			}
			at.onFail = ps.at(e.v)
			if s != OnFailStop && s != OnFailContinue {
				ps.errorf(CodeBadValue, at.onFail, "Write on_fail: stop (the default) or on_fail: continue",
					"on_fail '%s' of stage '%s' is not stop or continue", s, st.Name)
				continue
			}
			st.OnFail = s
		case "max_output_bytes":
			if n, ok := ps.positiveInt(e.v, e.key, st.Name, "bytes", "remove the key"); ok {
				st.MaxOutputBytes = n
			}
		case "max_output_tokens":
			s, ok := ps.scalar(e.v, e.key, "Write reserve, or a whole number of units, 1 or more")
			if !ok {
				continue
			}
			at.tokens = ps.at(e.v)
			if s == "reserve" {
				st.MaxOutputTokens = ReserveTokens
				continue
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				ps.errorf(CodeBadValue, at.tokens, "Write reserve (the contract's output reserve), or a whole number of units, 1 or more",
					"max_output_tokens '%s' of stage '%s' is not reserve or a whole number of 1 or more", s, st.Name)
				continue
			}
			st.MaxOutputTokens = n
		}
	}
	return at
}

// stageRunner checks that a stage runs exactly one thing ka2 can run.
func (ps *parser) stageRunner(st *Stage, at stagePos) {
	switch {
	case !at.runnerOK:
	case st.Uses == "" && st.Exec == nil:
		ps.errorf(CodeBadRunner, st.Pos, "Add uses: "+UsesBuild+" or exec: [program, arg, …]",
			"stage '%s' has nothing to run", st.Name)
	case st.Uses != "" && st.Exec != nil:
		ps.errorf(CodeBadRunner, at.exec, "Keep uses or exec, not both",
			"stage '%s' has both uses and exec", st.Name)
	case st.Uses != "" && !builtinRunner(st.Uses):
		hint := "The uses values are " + joinWith(builtinRunners, "and") + "; run other programs with exec: [program, arg, …]"
		if m := suggest.Closest(st.Uses, builtinRunners); m != "" {
			hint = fmt.Sprintf("Did you mean '%s'? %s", m, hint)
		}
		ps.errorf(CodeBadRunner, at.uses, hint, "stage '%s' uses '%s', which ka2 does not provide", st.Name, st.Uses)
	case st.Exec != nil && (len(st.Exec) == 0 || st.Exec[0] == ""):
		ps.errorf(CodeBadRunner, at.exec, "Name the program first: exec: [program, arg, …]",
			"stage '%s' has an empty exec", st.Name)
	}
}

// gradeStage checks what only a ka2.grade stage needs: it grades against
// the contract it inherits, so it must inherit artifacts, and it reads
// the answer as text and passes it on as it came, so it declares no
// schemas.
func (ps *parser) gradeStage(st *Stage) {
	c := st.Context
	if c == nil || !c.Inherit.Artifacts {
		pos := st.Pos
		if c != nil {
			pos = c.Pos
		}
		ps.errorf(CodeBadValue, pos, "Add context: {inherit: [artifacts]} to it, and to every stage between it and the "+UsesBuild+" stage whose contract it grades",
			"stage '%s' runs %s, which grades against the inherited \"contract\" artifact, but it does not inherit artifacts", st.Name, UsesGrade)
	}
	if c == nil {
		return
	}
	if c.InputSchema != "" {
		ps.errorf(CodeBadValue, c.InputSchemaPos, "Remove input_schema; declare the answer's protocol on the stage that writes it",
			"stage '%s' runs %s, which reads the answer as text, so it takes no input_schema", st.Name, UsesGrade)
	}
	if c.OutputSchema != "" {
		ps.errorf(CodeBadValue, c.OutputSchemaPos, "Remove output_schema; the stage passes on what its upstream wrote, under that stage's output_schema",
			"stage '%s' runs %s, which passes the answer on unchanged, so it takes no output_schema", st.Name, UsesGrade)
	}
}

// builtinRunners are the uses values ka2 provides.
var builtinRunners = []string{UsesBuild, UsesVerify, UsesGrade}

func builtinRunner(uses string) bool { return slices.Contains(builtinRunners, uses) }

// hook reads a hook declaration: a command line, like exec. An empty one
// is a bad runner (C-009).
func (ps *parser) hook(e entry, kind, owner string) *Hook {
	argv, _, ok := ps.scalarList(e.v, kind, "Write "+kind+": [program, arg, …]")
	if !ok {
		return nil
	}
	if len(argv) == 0 || argv[0] == "" {
		ps.errorf(CodeBadRunner, ps.at(e.k), "Name the program first: "+kind+": [program, arg, …], or remove the hook",
			"hook '%s' of %s has an empty command", kind, owner)
		return nil
	}
	return &Hook{Kind: kind, Exec: argv, Pos: ps.at(e.k)}
}

// pipelineHooks reads the top-level hooks block.
func (ps *parser) pipelineHooks(n *yaml.Node) {
	entries, _ := ps.mapping(n, hooksMap)
	for _, e := range entries {
		h := ps.hook(e, e.key, "the pipeline")
		if e.key == "before_stage" {
			ps.p.Hooks.BeforeStage = h
		} else {
			ps.p.Hooks.AfterStage = h
		}
	}
}

// runInputSchema reads the top-level input_schema: a protocol name, or
// string for plain text.
func (ps *parser) runInputSchema(n *yaml.Node) {
	s, ok := ps.scalar(n, "input_schema", "Write a protocol name, or string for a plain-text input")
	if !ok {
		return
	}
	ps.p.InputSchema, ps.p.InputSchemaPos = s, ps.at(n)
	if s != TextInput && ps.p.Protocols[s] == nil {
		ps.errorf(CodeUnknownProtocol, ps.at(n), ps.protocolHint(s, false),
			"input_schema of the pipeline names unknown protocol '%s'", s)
	}
}

func (ps *parser) context(st *Stage, ce entry) *Context {
	c := &Context{Pos: ps.at(ce.k), Source: Endpoint{Kind: Upstream}, Sink: Endpoint{Kind: Downstream}}
	entries, _ := ps.mapping(ce.v, contextMap.Named("the context of stage '"+st.Name+"'"))
	for _, e := range entries {
		switch e.key {
		case "source":
			if s, ok := ps.scalar(e.v, "source", "Write upstream, fresh or shared:NAME"); ok {
				c.SourcePos = ps.at(e.v)
				c.Source, _ = ps.endpoint(st, s, c.SourcePos, true)
			}
		case "sink":
			if s, ok := ps.scalar(e.v, "sink", "Write downstream, discard or shared:NAME"); ok {
				c.SinkPos = ps.at(e.v)
				c.Sink, _ = ps.endpoint(st, s, c.SinkPos, false)
			}
		case "input_schema", "output_schema":
			s, ok := ps.scalar(e.v, e.key, "Write a protocol name")
			if !ok {
				continue
			}
			pos := ps.at(e.v)
			if ps.p.Protocols[s] == nil {
				ps.errorf(CodeUnknownProtocol, pos, ps.protocolHint(s, false),
					"%s of stage '%s' names unknown protocol '%s'", e.key, st.Name, s)
			}
			if e.key == "input_schema" {
				c.InputSchema, c.InputSchemaPos = s, pos
			} else {
				c.OutputSchema, c.OutputSchemaPos = s, pos
			}
		case "max_history_turns":
			if n, ok := ps.positiveInt(e.v, e.key, st.Name, "turns", "remove the key to keep every turn"); ok {
				c.MaxHistoryTurns = n
			}
		case "inherit":
			vals, nodes, _ := ps.scalarList(e.v, "inherit", "Write a list of messages, artifacts and tool_results")
			for i, v := range vals {
				switch v {
				case "messages":
					c.Inherit.Messages = true
				case "artifacts":
					c.Inherit.Artifacts = true
				case "tool_results":
					c.Inherit.ToolResults = true
				default:
					parts := []string{"messages", "artifacts", "tool_results"}
					hint := "Inherit any of messages, artifacts and tool_results"
					if s := suggest.Closest(v, parts); s != "" {
						hint = fmt.Sprintf("Did you mean '%s'? %s", s, hint)
					}
					ps.errorf(CodeUnknownInherit, ps.at(nodes[i]), hint,
						"stage '%s' inherits unknown part '%s'", st.Name, v)
				}
			}
		}
	}
	return c
}

// endpoint parses a source (isSource) or a sink.
func (ps *parser) endpoint(st *Stage, s string, pos diag.Pos, isSource bool) (Endpoint, bool) {
	what, valid := "sink", "downstream, discard or shared:NAME"
	if isSource {
		what, valid = "source", "upstream, fresh or shared:NAME"
	}
	if name, ok := strings.CutPrefix(s, "shared:"); ok {
		if !storeName.MatchString(name) {
			ps.errorf(CodeBadEndpoint, pos, "Name the store with letters, digits, _, . and -, e.g. shared:notes",
				"%s '%s' of stage '%s' has no valid store name", what, s, st.Name)
			return Endpoint{}, false
		}
		return Endpoint{Kind: Shared, Name: name}, true
	}
	switch EndpointKind(s) {
	case Upstream, Fresh:
		if isSource {
			return Endpoint{Kind: EndpointKind(s)}, true
		}
	case Downstream, Discard:
		if !isSource {
			return Endpoint{Kind: EndpointKind(s)}, true
		}
	}
	hint := "Write " + valid
	wrongSide := EndpointKind(s) == Downstream || EndpointKind(s) == Discard
	if !isSource {
		wrongSide = EndpointKind(s) == Upstream || EndpointKind(s) == Fresh
	}
	if wrongSide {
		hint = fmt.Sprintf("'%s' is not a %s value; write %s", s, what, valid)
	} else if m := suggest.Closest(s, strings.Split(strings.ReplaceAll(valid, " or", ","), ", ")); m != "" && m != "shared:NAME" {
		hint = fmt.Sprintf("Did you mean '%s'? Write %s", m, valid)
	}
	ps.errorf(CodeBadEndpoint, pos, hint, "%s '%s' of stage '%s' is not %s", what, s, st.Name, valid)
	return Endpoint{}, false
}

// positiveInt reads the value v of a stage's key as a whole number of 1 or
// more units; ok is false, with the problem reported, when it is not.
// orElse is the other way out the hint offers.
func (ps *parser) positiveInt(v *yaml.Node, key, stage, unit, orElse string) (int, bool) {
	want := "Write a whole number of " + unit + ", 1 or more"
	s, ok := ps.scalar(v, key, want)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		ps.errorf(CodeBadValue, ps.at(v), want+", or "+orElse,
			"%s '%s' of stage '%s' is not a whole number of 1 or more", key, s, stage)
		return 0, false
	}
	return n, true
}
