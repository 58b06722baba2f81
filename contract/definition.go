package contract

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/internal/suggest"
	"github.com/ka2/ka2/provenance"
)

// Definition is a contract template read from its definition file (such
// as ka2-context-contract-v1.json) and its content file.
type Definition struct {
	Template    string          `json:"template"`
	Description string          `json:"description"`
	ContentFile string          `json:"content"`
	Fields      []Field         `json:"fields"`
	Rules       json.RawMessage `json:"rules"`
	Budget      BudgetDefaults  `json:"budget"`
	Schema      json.RawMessage `json:"output_schema"`

	// Content is the instruction and example per language, from the
	// content file.
	Content map[string]Content `json:"-"`

	schemaCache
}

// Field is one top-level field of the serialized contract, in order.
type Field struct {
	Name string `json:"name"`
	// ContextType is "constant" for the template id, or an item Kind.
	ContextType string `json:"context_type"`
	// Required fields are always written; optional ones only when they
	// have items.
	Required bool `json:"required"`
}

// BudgetDefaults are the default counter and limits per counter.
type BudgetDefaults struct {
	DefaultCounter string                   `json:"default_counter"`
	Counters       map[string]budget.Limits `json:"counters"`
}

// Content is the instruction and worked example in one language.
type Content struct {
	Instruction string             `yaml:"instruction"`
	Example     provenance.Example `yaml:"example"`
	// Refusals are phrases that make an answer a refusal (ka2 grade
	// matches them case-insensitively as substrings). Optional: a
	// definition without them cannot tell a refusal.
	Refusals []string `yaml:"refusals,omitempty"`
}

// constantType is the context type of the template field.
const constantType = "constant"

// itemKinds are the context types a field may declare, and whether the
// field holds a list of items (serialized as a JSON array).
var itemKinds = map[provenance.Kind]bool{
	provenance.KindInstruction: false, provenance.KindExample: false, provenance.KindQuestion: false, provenance.KindScope: false,
	provenance.KindEvidence: true, provenance.KindMemory: true, provenance.KindToolOutput: true,
}

// The codes of the problems of a definition file and its content file.
const (
	// CodeDefinitionSyntax: the definition is not one JSON object in valid
	// text, or the content file is not one YAML document ka2 accepts.
	CodeDefinitionSyntax diag.Code = "definition_syntax"
	// CodeDefinitionUnknownKey: a key the format does not have (a typo).
	CodeDefinitionUnknownKey diag.Code = "definition_unknown_key"
	// CodeDefinitionDuplicateKey: a key written twice in one object or
	// mapping, anywhere in either file.
	CodeDefinitionDuplicateKey diag.Code = "definition_duplicate_key"
	// CodeDefinitionMissingKey: a required key is not written.
	CodeDefinitionMissingKey diag.Code = "definition_missing_key"
	// CodeDefinitionBadValue: a value of the wrong kind, or one no
	// contract can be assembled with.
	CodeDefinitionBadValue diag.Code = "definition_bad_value"
)

// The prefixes that say which of a definition's two files a message is
// about, kept from the messages users and scripts already know.
const (
	definitionPrefix = "contract definition: "
	contentPrefix    = "contract content: "
)

// Default returns the contract definition embedded in the binary. It
// panics when that definition has a problem: the embedded files are part
// of the build, and the tests parse them, so no released binary does.
func Default() *Definition {
	d, err := ParseDefinition(ka2.ContractJSON, ka2.ContentYAML)
	if err != nil {
		panic("embedded contract definition: " + err.Error())
	}
	return d
}

// ParseDefinition reads a definition file and its content file, and checks
// that they describe a contract ka2 can assemble. Problems name the files
// as the embedded ones are named (ka2.ContractFile and ka2.ContentFile);
// LoadDefinition names them by their paths.
//
// The definition must be one JSON object and the content file one YAML
// mapping of languages, each with known keys only, no key written twice
// (also inside rules and output_schema), and every value of its kind.
// Every problem in both files is reported, as a diag.List of
// *diag.Diagnostic with the file, line and column, a Code and a hint.
func ParseDefinition(defJSON, contentYAML []byte) (*Definition, error) {
	p := newDefinitionParser(ka2.ContractFile)
	p.definition(defJSON)
	p.contentFile(ka2.ContentFile, contentYAML)
	return p.result()
}

// definitionParser reads a definition's two files into d, collecting the
// problems of each file in its own Decoder.
type definitionParser struct {
	def, content *strict.Decoder
	d            *Definition
	// top is the definition's top-level object, nil when it has none.
	top *strict.Fields
}

func newDefinitionParser(defPath string) *definitionParser {
	return &definitionParser{def: &strict.Decoder{Path: defPath, Words: definitionWords(definitionPrefix, true)}, d: &Definition{}}
}

// result returns the definition, or every problem of both files.
func (p *definitionParser) result() (*Definition, error) {
	list := slices.Clone(p.def.Diags)
	if p.content != nil {
		list = append(list, p.content.Diags...)
	}
	if err := list.Err(); err != nil {
		return nil, err
	}
	return p.d, nil
}

// The keys of a definition file and of its content file, at each level.
var (
	definitionMap = &strict.Map{Keys: []strict.Key{
		{Name: "template", Required: true}, {Name: "description"}, {Name: "content"},
		{Name: "fields", Required: true, Kind: strict.Sequence}, {Name: "rules"},
		{Name: "budget", Required: true, Kind: strict.Mapping}, {Name: "output_schema"}}}
	fieldMap    = &strict.Map{Keys: []strict.Key{{Name: "name", Required: true}, {Name: "context_type", Required: true}, {Name: "required"}}}
	budgetMap   = &strict.Map{What: "budget", Keys: []strict.Key{{Name: "default_counter", Required: true}, {Name: "counters", Required: true, Kind: strict.Mapping}}}
	countersMap = &strict.Map{What: "budget.counters", AnyKey: true}
	limitsMap   = &strict.Map{Keys: []strict.Key{{Name: budget.LimitCapacity, Required: true}, {Name: budget.LimitReserve}, {Name: budget.LimitWrapper}}}
	languageMap = &strict.Map{AnyKey: true}
	contentMap  = &strict.Map{Keys: []strict.Key{{Name: "instruction", Required: true, Kind: strict.Scalar},
		{Name: "example", Required: true, Kind: strict.Mapping}, {Name: "refusals", Kind: strict.Sequence}}}
	exampleMap = &strict.Map{Keys: []strict.Key{{Name: "question", Required: true, Kind: strict.Scalar}, {Name: "answer", Required: true, Kind: strict.Scalar}}}
)

// contentYAML words a content file that is not one YAML document.
var contentYAML = strict.YAMLWords{Code: CodeDefinitionSyntax, Refused: contentPrefix, Syntax: contentPrefix + "not valid YAML: ",
	Hint: diag.Fix("fix the YAML syntax")}

// definitionWords words the structural problems of a definition's file:
// prefix names the file; isJSON words kinds as JSON names them.
func definitionWords(prefix string, isJSON bool) strict.Words {
	return func(is strict.Issue, d *diag.Diagnostic) {
		at := prefix
		if is.Map.What != "" {
			at += is.Map.What + ": "
		}
		switch is.Problem {
		case strict.NotMapping:
			what := cmp.Or(is.Map.What, "the file")
			d.Code, d.Message = CodeDefinitionBadValue, fmt.Sprintf("%s%s must be %s, not %s", prefix, what, kindWords(strict.Mapping, isJSON), nodeWords(is.Node, isJSON))
		case strict.KeyNotScalar:
			d.Code, d.Message, d.Hint = CodeDefinitionSyntax, at+"a key is not a plain string", diag.Fix("write each key as a plain word")
		case strict.UnknownKey:
			d.Code, d.Message = CodeDefinitionUnknownKey, fmt.Sprintf("%sunknown key %q", at, is.Key)
			d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("the keys are "+strings.Join(is.Known(), ", ")))
		case strict.DuplicateKey:
			d.Code, d.Message, d.Hint = CodeDefinitionDuplicateKey, fmt.Sprintf("%skey %q repeats line %d", at, is.Key, is.First.Line), diag.Fix("keep one")
		case strict.MissingKey:
			d.Code, d.Message, d.Hint = CodeDefinitionMissingKey, fmt.Sprintf("%sno %q key", at, is.Key), diag.Fix(fmt.Sprintf("add %q", is.Key))
		case strict.WrongKind:
			d.Code, d.Message = CodeDefinitionBadValue, fmt.Sprintf("%s%s must be %s, not %s", prefix, join(is.Map.What, is.Key), kindWords(is.Want, isJSON), nodeWords(is.Node, isJSON))
		}
	}
}

// kindWords names a kind of value as a message does.
func kindWords(k strict.Kind, isJSON bool) string {
	switch {
	case !isJSON:
		return k.String()
	case k == strict.Mapping:
		return "a JSON object"
	case k == strict.Sequence:
		return "a JSON array"
	}
	return k.String()
}

// nodeWords names what n is, for a message about a value of the wrong
// kind: "a JSON string", "a JSON number 1.5", "a list".
func nodeWords(n *yaml.Node, isJSON bool) string {
	switch {
	case n == nil:
		return "nothing"
	case !isJSON && n.Kind == yaml.MappingNode:
		return strict.Mapping.String()
	case !isJSON && n.Kind == yaml.SequenceNode:
		return strict.Sequence.String()
	case !isJSON:
		return strict.Scalar.String()
	}
	kind := strict.JSONKind(n)
	if kind == "number" {
		return "a JSON number " + n.Value
	}
	return "a JSON " + kind
}

// join names key in the mapping what: "budget.counters", or key alone at
// the top.
func join(what, key string) string {
	if what == "" {
		return key
	}
	return what + "." + key
}

// definition reads the definition file's text into p.d.
func (p *definitionParser) definition(data []byte) {
	if e := jsontext.Check(data); e != nil {
		where := e.Describe()
		if where != "" {
			where += ": "
		}
		p.def.Diags = append(p.def.Diags, &diag.Diagnostic{Pos: diag.Pos{Path: p.def.Path, Line: e.Line, Col: e.Col}, Code: CodeDefinitionSyntax,
			Message: definitionPrefix + where + "invalid text: " + e.Msg, Hint: diag.Fix(e.Hint)})
		return
	}
	doc, err := strict.ParseJSON(data)
	if err != nil {
		p.jsonProblem(err)
		return
	}
	top := p.def.Mapping(strict.Root(doc), definitionMap)
	if top == nil {
		return
	}
	p.top = top
	if t, ok := p.str(top, "template", ""); ok && t == "" && top.Has("template") {
		p.def.Report(top.Value("template"), CodeDefinitionBadValue, diag.Fix("write the template id, such as ka2-context-v1"), definitionPrefix+"template is empty")
	} else {
		p.d.Template = t
	}
	p.d.Description, _ = p.str(top, "description", "")
	p.d.ContentFile, _ = p.str(top, "content", "")
	p.fields(top)
	p.budget(top)
	for _, key := range []string{"rules", "output_schema"} {
		if v := top.Value(key); v != nil {
			p.noDuplicates(v, key)
		}
	}
	if len(p.def.Diags) > 0 {
		return
	}
	// The rules and the schema are kept as the text they are written in.
	// Every key of the file is known and written once, so encoding/json
	// reads the same two values the checks above saw.
	var raw struct {
		Rules  json.RawMessage `json:"rules"`
		Schema json.RawMessage `json:"output_schema"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		p.def.Report(nil, CodeDefinitionSyntax, diag.Fix("fix the JSON syntax"), definitionPrefix+"invalid JSON: "+err.Error())
		return
	}
	p.d.Rules, p.d.Schema = raw.Rules, raw.Schema
}

// jsonProblem reports text strict.ParseJSON cannot read.
func (p *definitionParser) jsonProblem(err error) {
	d := &diag.Diagnostic{Pos: diag.Pos{Path: p.def.Path}, Code: CodeDefinitionSyntax, Message: definitionPrefix + err.Error()}
	var je *strict.JSONError
	if errors.As(err, &je) {
		d.Line, d.Col = je.Line, je.Col
		switch je.Problem {
		case strict.JSONEnd:
			d.Hint = diag.Fix("close every { and [")
		case strict.JSONTrailing:
			d.Hint = diag.Fix("keep one JSON object in the file")
		default:
			d.Hint = diag.Fix("fix the JSON syntax")
		}
	}
	p.def.Diags = append(p.def.Diags, d)
}

// str reads the string key of f (what names f); null or not written is
// "". ok is false when the value is not a string (reported).
func (p *definitionParser) str(f *strict.Fields, key, what string) (s string, ok bool) {
	v := f.Value(key)
	switch {
	case v == nil || strict.IsNull(v):
		return "", true
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		return v.Value, true
	}
	p.wrongValue(v, join(what, key), "a JSON string")
	return "", false
}

// integer reads the whole-number key of f; null or not written is 0.
func (p *definitionParser) integer(f *strict.Fields, key, what string) (n int, ok bool) {
	v := f.Value(key)
	if v == nil || strict.IsNull(v) {
		return 0, true
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!int" {
		if n, err := strconv.Atoi(v.Value); err == nil {
			return n, true
		}
	}
	p.wrongValue(v, join(what, key), "a whole number")
	return 0, false
}

// boolean reads the true-or-false key of f; null or not written is false.
func (p *definitionParser) boolean(f *strict.Fields, key, what string) bool {
	v := f.Value(key)
	switch {
	case v == nil || strict.IsNull(v):
		return false
	case v.Kind == yaml.ScalarNode && v.Tag == "!!bool":
		return v.Value == "true"
	}
	p.wrongValue(v, join(what, key), "true or false")
	return false
}

func (p *definitionParser) wrongValue(v *yaml.Node, name, want string) {
	p.def.Report(v, CodeDefinitionBadValue, diag.Fix("write "+want), fmt.Sprintf("%s%s must be %s, not %s", definitionPrefix, name, want, nodeWords(v, true)))
}

// contextTypes are the context types a field may declare, for a
// did-you-mean.
var contextTypes = []string{constantType, string(provenance.KindInstruction), string(provenance.KindExample), string(provenance.KindMemory),
	string(provenance.KindEvidence), string(provenance.KindToolOutput), string(provenance.KindScope), string(provenance.KindQuestion)}

// fields reads the fields and checks that every one has its own name and
// a context type, and that the contract's four required kinds each have
// a field.
func (p *definitionParser) fields(top *strict.Fields) {
	v := top.Value("fields")
	if v == nil {
		return // not written, or not a list: reported
	}
	before := len(p.def.Diags)
	names := map[string]*yaml.Node{}
	for i, n := range strict.Deref(v).Content {
		what := fmt.Sprintf("fields[%d]", i)
		f := p.def.Mapping(n, fieldMap.Named(what))
		if f == nil {
			continue
		}
		name, nameOK := p.str(f, "name", what)
		ct, ctOK := p.str(f, "context_type", what)
		field := Field{Name: name, ContextType: ct, Required: p.boolean(f, "required", what)}
		switch nv := f.Value("name"); {
		case nv == nil || !nameOK:
		case name == "":
			p.def.Report(nv, CodeDefinitionBadValue, diag.Fix("name the field as the contract's key"), definitionPrefix+what+".name is empty")
		case names[name] != nil:
			p.def.Report(nv, CodeDefinitionBadValue, diag.Fix("give each field its own name"),
				fmt.Sprintf("%s%s: name %q repeats line %d", definitionPrefix, what, name, names[name].Line))
		default:
			names[name] = nv
		}
		switch cv := f.Value("context_type"); {
		case cv == nil || !ctOK:
		case ct == constantType && name != "template":
			p.def.Report(cv, CodeDefinitionBadValue, diag.Fix("give it an item context type, such as instruction"),
				fmt.Sprintf("%s%s: only the template field is constant", definitionPrefix, what))
		case ct != constantType && !itemKindOK(ct):
			p.def.Report(cv, CodeDefinitionBadValue, oneOf(ct, contextTypes), fmt.Sprintf("%s%s: unknown context_type %q", definitionPrefix, what, ct))
		}
		p.d.Fields = append(p.d.Fields, field)
	}
	if len(p.def.Diags) > before {
		return // a field that is not read says nothing of what is missing
	}
	for _, k := range []provenance.Kind{provenance.KindInstruction, provenance.KindExample, provenance.KindEvidence, provenance.KindQuestion} {
		if p.d.field(k) == nil {
			p.def.Report(top.Key("fields"), CodeDefinitionMissingKey, diag.Fix(fmt.Sprintf("add a field with context_type %s", k)),
				fmt.Sprintf("%sno field has context_type %s", definitionPrefix, k))
		}
	}
}

// oneOf hints at the one of names nearest to got, or lists them all.
func oneOf(got string, names []string) diag.Hint {
	if s := suggest.Closest(got, names); s != "" {
		return diag.Hint{Kind: diag.HintDidYouMean, Text: "did you mean " + s + "?", Suggestion: s}
	}
	return diag.Fix("use one of " + strings.Join(names, ", "))
}

func itemKindOK(ct string) bool {
	_, ok := itemKinds[provenance.Kind(ct)]
	return ok
}

// object checks the object under key in f against m; nil when it is not
// written, or not an object (reported).
func (p *definitionParser) object(f *strict.Fields, key string, m *strict.Map) *strict.Fields {
	v := f.Value(key)
	if v == nil {
		return nil
	}
	return p.def.Mapping(v, m)
}

// budget reads the default counter and the limits per counter, and checks
// them as the flags that override them are checked.
func (p *definitionParser) budget(top *strict.Fields) {
	f := p.object(top, "budget", budgetMap)
	if f == nil {
		return
	}
	def, defOK := p.str(f, "default_counter", "budget")
	p.d.Budget.DefaultCounter = def
	counters := p.object(f, "counters", countersMap)
	if counters == nil {
		return
	}
	p.d.Budget.Counters = map[string]budget.Limits{}
	for _, e := range counters.All() {
		if _, err := budget.Lookup(e.Name); err != nil {
			p.def.Diags = append(p.def.Diags, &diag.Diagnostic{Pos: p.def.Pos(e.Key), Code: CodeDefinitionBadValue, Hint: oneOf(e.Name, budget.Names()), Err: err,
				Message: fmt.Sprintf("%sbudget.counters: unknown counter %q", definitionPrefix, e.Name)})
			continue
		}
		what := "budget.counters." + e.Name
		lf := p.def.Mapping(e.Value, limitsMap.Named(what))
		if lf == nil {
			continue
		}
		before := len(p.def.Diags)
		var l budget.Limits
		l.Capacity, _ = p.integer(lf, budget.LimitCapacity, what)
		l.Reserve, _ = p.integer(lf, budget.LimitReserve, what)
		l.Wrapper, _ = p.integer(lf, budget.LimitWrapper, what)
		p.d.Budget.Counters[e.Name] = l
		if len(p.def.Diags) > before {
			continue
		}
		var list budget.RangeErrors
		if err := l.Validate(); errors.As(err, &list) {
			for _, re := range list {
				at := cmp.Or(lf.Value(re.Limit), lf.Node)
				hint := diag.Fix(fmt.Sprintf("write a %s from %d to %d", re.Limit, re.Min, re.Max))
				if re.Capacity > 0 {
					hint = diag.Fix("lower it, or raise the capacity")
				}
				p.def.Diags = append(p.def.Diags, &diag.Diagnostic{Pos: p.def.Pos(at), Code: CodeDefinitionBadValue, Err: re,
					Message: definitionPrefix + what + ": " + re.Error(), Hint: hint})
			}
		}
	}
	if _, ok := p.d.Budget.Counters[def]; defOK && f.Has("default_counter") && !ok {
		p.def.Report(f.Value("default_counter"), CodeDefinitionBadValue, diag.Fix("give it limits under budget.counters, or name a counter that has them"),
			fmt.Sprintf("%sbudget: default_counter %q has no limits", definitionPrefix, def))
	}
}

// noDuplicates refuses a key written twice in any object of n, where
// what names n: the rules and the schema are kept as text, and a reader
// of that text would take the last of two values without a word.
func (p *definitionParser) noDuplicates(n *yaml.Node, what string) {
	switch n.Kind {
	case yaml.MappingNode:
		f := p.def.Mapping(n, &strict.Map{What: what, AnyKey: true})
		for _, e := range f.All() {
			p.noDuplicates(e.Value, what+"."+e.Name)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p.noDuplicates(c, fmt.Sprintf("%s[%d]", what, i))
		}
	}
}

// contentFile reads the content file path into p.d.Content: one mapping
// per language, each with its instruction, example and refusal phrases.
func (p *definitionParser) contentFile(path string, data []byte) {
	p.content = &strict.Decoder{Path: path, Words: definitionWords(contentPrefix, false)}
	root, problem := strict.ParseYAML(path, data, contentYAML)
	if problem != nil {
		p.content.Diags = append(p.content.Diags, problem)
		return
	}
	noLanguage := func(at *yaml.Node) {
		p.content.Report(at, CodeDefinitionMissingKey, diag.Fix("write one mapping per language, such as en:, with its instruction and example"), contentPrefix+"no language")
	}
	if root == nil || strict.IsNull(root) {
		noLanguage(root)
		return
	}
	langs := p.content.Mapping(root, languageMap)
	if langs == nil {
		return
	}
	if len(langs.All()) == 0 {
		noLanguage(root)
		return
	}
	p.d.Content = make(map[string]Content, len(langs.All()))
	for _, e := range langs.All() {
		if c, ok := p.language(e.Name, strict.Deref(e.Value)); ok {
			p.d.Content[e.Name] = c
		}
	}
}

// language reads the content of one language.
func (p *definitionParser) language(lang string, v *yaml.Node) (Content, bool) {
	if strict.IsNull(v) {
		p.content.Report(v, CodeDefinitionBadValue, diag.Fix("write its instruction and example, or remove it"), contentPrefix+lang+" is empty")
		return Content{}, false
	}
	f := p.content.Mapping(v, contentMap.Named(lang))
	if f == nil {
		return Content{}, false
	}
	c := Content{Instruction: p.text(f, "instruction", lang)}
	if ev := f.Value("example"); ev != nil {
		what := lang + ".example"
		if ex := strict.Deref(ev); strict.IsNull(ex) {
			p.content.Report(ex, CodeDefinitionBadValue, diag.Fix("write its question and answer"), contentPrefix+what+" is empty")
		} else if ef := p.content.Mapping(ex, exampleMap.Named(what)); ef != nil {
			c.Example.Question, c.Example.Answer = p.text(ef, "question", what), p.text(ef, "answer", what)
		}
	}
	if rv := strict.Deref(f.Value("refusals")); rv != nil && !strict.IsNull(rv) {
		for i, r := range rv.Content {
			r = strict.Deref(r)
			what := fmt.Sprintf("%s.refusals[%d]", lang, i)
			switch {
			case r.Kind != yaml.ScalarNode:
				p.content.Report(r, CodeDefinitionBadValue, diag.Fix("write each phrase as a single line of text"),
					fmt.Sprintf("%s%s must be %s, not %s", contentPrefix, what, strict.Scalar, nodeWords(r, false)))
			case strict.IsNull(r) || r.Value == "":
				p.content.Report(r, CodeDefinitionBadValue, diag.Fix("remove it: an empty phrase would make every answer a refusal"), contentPrefix+what+" is empty")
			default:
				c.Refusals = append(c.Refusals, r.Value)
			}
		}
	}
	return c, true
}

// text reads the required text key of f; an empty one is reported.
func (p *definitionParser) text(f *strict.Fields, key, what string) string {
	v := strict.Deref(f.Value(key))
	if v == nil {
		return "" // not written, or not text: reported
	}
	if strict.IsNull(v) || v.Value == "" {
		p.content.Report(v, CodeDefinitionBadValue, diag.Fix("write the text"), contentPrefix+join(what, key)+" is empty")
		return ""
	}
	return v.Value
}

// field returns the field holding items of kind k, or nil.
func (d *Definition) field(k provenance.Kind) *Field {
	for i := range d.Fields {
		if d.Fields[i].ContextType == string(k) {
			return &d.Fields[i]
		}
	}
	return nil
}

// Langs lists the content languages, sorted.
func (d *Definition) Langs() []string {
	langs := make([]string, 0, len(d.Content))
	for l := range d.Content {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	return langs
}

// ContentFor returns the instruction and example for lang, or an error that
// lists the languages there are.
func (d *Definition) ContentFor(lang string) (Content, error) {
	c, ok := d.Content[lang]
	if !ok {
		return Content{}, fmt.Errorf("no instruction text for lang %q: use one of %s", lang, strings.Join(d.Langs(), ", "))
	}
	return c, nil
}

// Limits returns the default limits of a counter.
func (d *Definition) Limits(counter string) (budget.Limits, error) {
	l, ok := d.Budget.Counters[counter]
	if !ok {
		names := slices.Sorted(maps.Keys(d.Budget.Counters))
		return budget.Limits{}, fmt.Errorf("the contract sets no budget for counter %q: use one of %s", counter, strings.Join(names, ", "))
	}
	return l, nil
}
