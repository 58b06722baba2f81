package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/diag"
	"maps"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/strict"
)

// InputStage is the name the run input goes by in the flow's hand-offs and
// diagnostics, as if it were a stage before the first one. No declared
// stage may use it.
const InputStage = "input"

// stageName is the syntax of a stage name.
var stageName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// storeName is the syntax of a shared store name.
var storeName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// Parse reads a pipeline file and checks it: its shape, names, runners,
// endpoints, and the structural compatibility of every hand-off. Every
// finding is in the returned pipeline's Diagnostics, with file:line:col;
// filename is only used to name the file in them.
//
// def supplies the built-in protocols and the builder's schema; nil means
// contract.Default(). Parse returns an error only when def's output schema
// cannot be turned into protocols, which is a problem of the definition,
// not of the file.
func Parse(filename string, src []byte, def *contract.Definition) (*Pipeline, error) {
	var builtins Protocols
	if def == nil {
		def, builtins = defaultBuiltins()
	} else {
		var err error
		if builtins, err = Builtins(def); err != nil {
			return nil, err
		}
	}
	p := &Pipeline{File: filename, Protocols: maps.Clone(builtins), Stages: map[string]*Stage{}, def: def}
	ps := &parser{p: p, src: src}
	ps.parse()
	if !ps.fatal {
		ps.check()
	}
	p.Diagnostics.sort()
	return p, nil
}

type parser struct {
	p   *Pipeline
	src []byte
	// fatal is set when the file cannot be read as a pipeline at all; the
	// semantic check is skipped then, so one mistake gives one diagnostic.
	fatal bool
	// stageOrder is the stages in the order the file declares them.
	stageOrder []string
}

func (ps *parser) at(n *yaml.Node) diag.Pos {
	return diag.Pos{Path: ps.p.File, Line: n.Line, Col: n.Column}
}

func (ps *parser) report(sev diag.Severity, code diag.Code, pos diag.Pos, suggestion, format string, args ...any) {
	if pos.Line <= 0 {
		pos = diag.Pos{Path: ps.p.File, Line: 1, Col: 1}
	}
	// yaml.v3 places the empty value of a last explicit key ("? k" with no
	// ": v") on the line after the end of the file; such a problem is at
	// the end of the last line.
	if last := lineCount(ps.src); pos.Line > last {
		pos.Line, pos.Col = last, 1
	}
	ps.p.Diagnostics = append(ps.p.Diagnostics, numbered(diag.Diagnostic{
		Code: code, Severity: sev, Pos: pos, Message: fmt.Sprintf(format, args...), Hint: diag.Fix(suggestion),
	}))
}

// lineCount is the number of the last line of src, counting line breaks
// as YAML does (CRLF, CR, LF, NEL, LS and PS).
func lineCount(src []byte) int {
	n := 1
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			n++
		case src[i] == '\n':
			n++
		case bytes.HasPrefix(src[i:], []byte("\u0085")), bytes.HasPrefix(src[i:], []byte("\u2028")), bytes.HasPrefix(src[i:], []byte("\u2029")):
			n++
		}
	}
	return n
}

func (ps *parser) errorf(code diag.Code, pos diag.Pos, suggestion, format string, args ...any) {
	ps.report(diag.SeverityError, code, pos, suggestion, format, args...)
}

// capitalize starts a suggestion with a capital letter, as pipeline
// suggestions do.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pipelineYAML words a pipeline file that is not one YAML document.
var pipelineYAML = strict.YAMLWords{Code: CodeSyntax, Syntax: "not valid YAML: ", LineStart: true,
	Hint:  diag.Fix("Fix the YAML syntax on this line"),
	Block: diag.Fix("Check the brackets and indentation of the block that starts on this line")}

func (ps *parser) parse() {
	if !utf8.Valid(ps.src) {
		ps.errorf(CodeSyntax, diag.Pos{}, "Save the file as UTF-8", "the file is not valid UTF-8")
		ps.fatal = true
		return
	}
	root, problem := strict.ParseYAML(ps.p.File, ps.src, pipelineYAML)
	if problem != nil {
		ps.errorf(problem.Code, problem.Pos, capitalize(problem.Hint.Text), "%s", problem.Message)
		ps.fatal = true
		return
	}
	if root == nil || strict.IsNull(root) {
		ps.errorf(CodeSyntax, diag.Pos{}, "Declare stages and a flow, e.g. stages: {build: {uses: ka2.build}} and flow: build",
			"the file is empty")
		ps.fatal = true
		return
	}
	if ps.refuseAliases(root) {
		ps.fatal = true
		return
	}
	entries, ok := ps.mapping(root, topMap)
	if !ok {
		ps.fatal = true
		return
	}
	byKey := map[string]entry{}
	for _, e := range entries {
		byKey[e.key] = e
	}
	if e, ok := byKey["protocols"]; ok {
		ps.protocols(e.v)
	}
	if e, ok := byKey["input_schema"]; ok {
		ps.runInputSchema(e.v)
	}
	if e, ok := byKey["hooks"]; ok {
		ps.pipelineHooks(e.v)
	}
	if e, ok := byKey["stages"]; ok {
		ps.stages(e.v)
	}
	if e, ok := byKey["flow"]; ok {
		ps.flow(e.v)
	} else {
		ps.fatal = true
	}
}

// The keys of a pipeline file, at each level. Protocols and stages are
// mappings of names the file chooses.
var (
	topMap = &strict.Map{What: "the top level", Keys: []strict.Key{
		{Name: "protocols"}, {Name: "input_schema"}, {Name: "hooks"}, {Name: "stages", Required: true}, {Name: "flow", Required: true}}}
	hooksMap     = &strict.Map{What: "hooks", Keys: []strict.Key{{Name: "before_stage"}, {Name: "after_stage"}}}
	protocolsMap = &strict.Map{What: "protocols", AnyKey: true}
	protocolMap  = &strict.Map{AnyKey: true}
	stagesMap    = &strict.Map{What: "stages", AnyKey: true}
	stageMap     = &strict.Map{Keys: []strict.Key{{Name: "uses"}, {Name: "exec"}, {Name: "system"}, {Name: "timeout"}, {Name: "context"},
		{Name: "before"}, {Name: "after"}, {Name: "on_fail"}, {Name: "max_output_bytes"}, {Name: "max_output_tokens"}}}
	contextMap = &strict.Map{Keys: []strict.Key{{Name: "source"}, {Name: "sink"}, {Name: "input_schema"}, {Name: "output_schema"},
		{Name: "max_history_turns"}, {Name: "inherit"}}}
)

// pipelineWords words the structural problems of a pipeline file.
func pipelineWords(is strict.Issue, d *diag.Diagnostic) {
	what := is.Map.What
	d.Code = CodeSyntax
	switch is.Problem {
	case strict.NotMapping:
		d.Message, d.Hint = fmt.Sprintf("%s must be a mapping, not %s", what, describe(is.Node)), diag.Fix("Write key: value pairs, one per line")
	case strict.KeyNotScalar:
		d.Message, d.Hint = fmt.Sprintf("a key in %s is %s, not a name", what, describe(is.Node)), diag.Fix("Use a plain name as the key")
	case strict.UnknownKey:
		d.Message = fmt.Sprintf("unknown key '%s' in %s", is.Key, what)
		d.Hint = diag.Fix("The keys are " + joinNames(is.Known()))
		if is.Suggestion != "" {
			d.Hint = diag.Hint{Kind: diag.HintDidYouMean, Suggestion: is.Suggestion,
				Text: fmt.Sprintf("Did you mean '%s'? The keys are %s", is.Suggestion, joinNames(is.Known()))}
		}
	case strict.DuplicateKey:
		d.Code, d.Hint = CodeDuplicate, diag.Fix("Remove one of them or rename it")
		d.Message = fmt.Sprintf("key '%s' in %s is written twice (first at line %d)", is.Key, what, is.First.Line)
	case strict.MissingKey:
		d.Message = fmt.Sprintf("missing key '%s'", is.Key)
		switch is.Key {
		case "stages":
			d.Hint = diag.Fix("Add stages: with at least one stage, e.g. build: {uses: ka2.build}")
		case "flow":
			d.Hint = diag.Fix("Add a flow naming the stages in order, e.g. flow: build >> answer")
		}
	}
}

// refuseAliases reports every anchor and alias. They would make one value
// appear at several places, so no position could name it; pipeline files
// write each value out.
func (ps *parser) refuseAliases(n *yaml.Node) bool {
	found := false
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch {
		case n.Kind == yaml.AliasNode:
			ps.errorf(CodeSyntax, ps.at(n), "Write the value out where it is used",
				"aliases (*%s) are not supported in pipeline files", n.Value)
			found = true
			return
		case n.Anchor != "":
			ps.errorf(CodeSyntax, ps.at(n), "Remove the anchor and write the value out where it is used",
				"anchors (&%s) are not supported in pipeline files", n.Anchor)
			found = true
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return found
}

// entry is one key and value of a mapping.
type entry struct {
	key  string
	k, v *yaml.Node
}

// mapping reads a mapping's entries in order through the strict
// decoder, reporting non-scalar, unknown and repeated keys and missing
// required ones. A null value counts as an empty mapping.
func (ps *parser) mapping(n *yaml.Node, m *strict.Map) ([]entry, bool) {
	if strict.IsNull(n) {
		return nil, true
	}
	d := &strict.Decoder{Path: ps.p.File, Words: pipelineWords}
	f := d.Mapping(n, m)
	for _, e := range d.Diags {
		ps.p.Diagnostics = append(ps.p.Diagnostics, numbered(*e))
	}
	if f == nil {
		return nil, false
	}
	out := make([]entry, len(f.Entries))
	for i, e := range f.All() {
		out[i] = entry{key: e.Name, k: e.Key, v: e.Value}
	}
	return out, true
}

func joinNames(names []string) string { return joinWith(names, "and") }

// joinWith writes a, b and c (or a, b or c).
func joinWith(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// scalar reads a scalar value. Any scalar is accepted as text, except null.
func (ps *parser) scalar(n *yaml.Node, what, hint string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		ps.errorf(CodeSyntax, ps.at(n), hint, "%s must be a single value, not %s", what, describe(n))
		return "", false
	}
	return n.Value, true
}

// scalarList reads a list of scalars; a single scalar is a list of one.
func (ps *parser) scalarList(n *yaml.Node, what, hint string) ([]string, []*yaml.Node, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}, []*yaml.Node{n}, true
	}
	if n.Kind == yaml.ScalarNode {
		return nil, nil, true
	}
	if n.Kind != yaml.SequenceNode {
		ps.errorf(CodeSyntax, ps.at(n), hint, "%s must be a list, not %s", what, describe(n))
		return nil, nil, false
	}
	vals := []string{}
	var nodes []*yaml.Node
	ok := true
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
			ps.errorf(CodeSyntax, ps.at(c), hint, "an item of %s must be a single value, not %s", what, describe(c))
			ok = false
			continue
		}
		vals = append(vals, c.Value)
		nodes = append(nodes, c)
	}
	return vals, nodes, ok
}

// flow reads the flow: stage names joined by >>.
func (ps *parser) flow(n *yaml.Node) {
	hint := "Write the stages in order on one line: flow: a >> b >> c"
	text, ok := ps.scalar(n, "flow", hint)
	if !ok {
		ps.fatal = true
		return
	}
	col, exact := ps.scalarColumn(n)
	offset := 0
	for i, part := range strings.Split(text, ">>") {
		name := strings.TrimSpace(part)
		lead := len(part) - len(strings.TrimLeft(part, " \t\r\n"))
		pos := ps.at(n)
		if exact {
			pos.Col = col + utf8.RuneCountInString(text[:offset+lead])
		}
		offset += len(part) + len(">>")
		if name == "" {
			if strings.TrimSpace(text) == "" {
				ps.errorf(CodeSyntax, pos, hint, "the flow is empty")
				ps.fatal = true
				return
			}
			ps.errorf(CodeSyntax, pos, hint, "the flow has no stage name at position %d", i+1)
			continue
		}
		ps.p.Flow = append(ps.p.Flow, FlowStep{Stage: name, Pos: pos})
	}
}

// scalarColumn finds the column where a one-line scalar's text starts, so
// each name in the flow gets its own column. It reports false when the
// text is not written verbatim on the node's line (folded or escaped).
func (ps *parser) scalarColumn(n *yaml.Node) (int, bool) {
	if strings.ContainsAny(n.Value, "\n") || n.Line < 1 {
		return 0, false
	}
	lines := splitLines(ps.src)
	if n.Line > len(lines) {
		return 0, false
	}
	runes := []rune(string(lines[n.Line-1]))
	col := n.Column
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		col++
	}
	if col-1 > len(runes) || col < 1 {
		return 0, false
	}
	if !strings.HasPrefix(string(runes[col-1:]), n.Value) {
		return 0, false
	}
	return col, true
}

// lineBreak matches a line break as YAML counts lines: CRLF, CR, LF, and
// the Unicode breaks NEL, LS and PS.
var lineBreak = regexp.MustCompile("\r\n|\r|\n|\u0085|\u2028|\u2029")

// splitLines splits src into lines the way the YAML parser numbers them.
func splitLines(src []byte) [][]byte {
	var out [][]byte
	for _, l := range lineBreak.Split(string(src), -1) {
		out = append(out, []byte(l))
	}
	return out
}

// errInternal reports a state the check should have made impossible.
var errInternal = errors.New("internal error")
