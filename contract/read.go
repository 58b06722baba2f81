package contract

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/internal/strict"
)

// ErrBadContract is matched (errors.Is) by every error ReadContract
// returns for a document that is not a contract.
var ErrBadContract = errors.New("not a contract")

// defaultDefinition is the embedded definition, parsed once for readers.
var defaultDefinition = sync.OnceValue(Default)

// ReadContract is (*Definition).ReadContract under the embedded
// definition.
func ReadContract(name string, data []byte) (*Document, error) {
	return defaultDefinition().ReadContract(name, data)
}

// ReadContract reads a serialized contract, strictly, as every ka2 reader
// of a contract reads it (grade, eval, the pipeline's grade stage): the
// text must be valid UTF-8 and one JSON value (a final newline, as ka2
// build prints, is fine); no object may repeat a key, or hold two keys
// that differ only in case, which encoding/json would read as one field;
// no key may be unknown and every value must have its type; the document
// must validate against d's output schema; and each evidence record's
// quote must have as many lines as its range, its validity and the
// scope's dates must be dates. A variant of d's template (TEMPLATE+NAME,
// as ka2 eval writes one per condition) is read by the same rules, except
// that it may leave out the example (the no_example condition).
//
// name names the input in errors, which carry its line and column; every
// problem is reported, as a diag.List matching ErrBadContract.
func (d *Definition) ReadContract(name string, data []byte) (*Document, error) {
	r := contractReader{name: name}
	data = bytes.TrimSuffix(data, []byte("\n"))
	data = bytes.TrimSuffix(data, []byte("\r"))
	if e := jsontext.Check(data); e != nil {
		where := ""
		if f := e.Describe(); f != "" {
			where = f + ": "
		}
		r.at(e.Line, e.Col, diag.Fix(e.Hint), "%sinvalid text: %s", where, e.Msg)
		return nil, r.err()
	}
	doc, err := strict.ParseJSON(data)
	if err != nil {
		je, _ := errors.AsType[*strict.JSONError](err)
		switch {
		case je == nil:
			r.at(0, 0, diag.Hint{}, "not JSON: %v", err)
		case je.Problem == strict.JSONEnd:
			r.at(je.Line, je.Col, diag.Fix("close every { and ["), "not JSON: the document ends early")
		case je.Problem == strict.JSONTrailing:
			r.at(je.Line, je.Col, diag.Fix("keep one JSON object in the file"), "more than one JSON value")
		default:
			r.at(je.Line, je.Col, diag.Hint{}, "not JSON: %v", je.Err)
		}
		return nil, r.err()
	}
	root := strict.Root(doc)
	if isDefinition(root) {
		r.at(1, 1, diag.Fix("pass the contract ka2 build printed, not the contract definition"), "this is a contract definition (it has fields and an output_schema), not a contract")
		return nil, r.err()
	}
	c := r.document(root)
	if len(r.diags) > 0 {
		return nil, r.err()
	}
	r.schema(d, data, root, c.Template)
	if len(r.diags) > 0 {
		return nil, r.err()
	}
	r.consistent(root, c)
	if len(r.diags) > 0 {
		return nil, r.err()
	}
	return c, nil
}

// contractReader collects what is wrong with one contract.
type contractReader struct {
	name  string
	diags diag.List
}

func (r *contractReader) at(line, col int, hint diag.Hint, format string, args ...any) {
	r.diags = append(r.diags, &diag.Diagnostic{Pos: diag.Pos{Path: r.name, Line: line, Col: col},
		Message: "contract: " + fmt.Sprintf(format, args...), Hint: hint, Err: ErrBadContract})
}

func (r *contractReader) atNode(n *yaml.Node, hint diag.Hint, format string, args ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	r.at(line, col, hint, format, args...)
}

func (r *contractReader) err() error {
	r.diags.Sort()
	return r.diags.Mark(ErrBadContract)
}

// The contract's objects, with the keys of the ka2-context-v1 definition.
var (
	contractMap = &strict.Map{What: "the contract", Keys: []strict.Key{
		{Name: "template", Required: true, Kind: strict.Scalar},
		{Name: "instruction", Required: true, Kind: strict.Scalar},
		{Name: "example", Kind: strict.Mapping}, // required by the schema, but for a variant
		{Name: "memory", Kind: strict.Sequence},
		{Name: "evidence", Required: true, Kind: strict.Sequence},
		{Name: "tool_output", Kind: strict.Sequence},
		{Name: "scope", Kind: strict.Mapping},
		{Name: "question", Required: true, Kind: strict.Scalar},
	}}
	contractExampleMap = &strict.Map{What: "example", Keys: []strict.Key{
		{Name: "question", Required: true, Kind: strict.Scalar},
		{Name: "answer", Required: true, Kind: strict.Scalar},
	}}
	evidenceMap = &strict.Map{What: "an evidence record", Keys: []strict.Key{
		{Name: "source_id", Required: true, Kind: strict.Scalar},
		{Name: "version", Required: true, Kind: strict.Scalar},
		{Name: "valid_from", Kind: strict.Scalar},
		{Name: "valid_until", Kind: strict.Scalar},
		{Name: "unit", Kind: strict.Scalar},
		{Name: "role", Kind: strict.Scalar},
		{Name: "serves", Kind: strict.Sequence},
		{Name: "line_start", Required: true, Kind: strict.Scalar},
		{Name: "line_end", Required: true, Kind: strict.Scalar},
		{Name: "quote", Required: true, Kind: strict.Scalar},
	}}
	scopeMap = &strict.Map{What: "scope", Keys: []strict.Key{
		{Name: "subjects", Required: true, Kind: strict.Sequence},
		{Name: "dates", Required: true, Kind: strict.Sequence},
	}}
	textItemMap = &strict.Map{What: "a text record", Keys: []strict.Key{
		{Name: "source", Required: true, Kind: strict.Scalar},
		{Name: "text", Required: true, Kind: strict.Scalar},
	}}
)

// contractWords words a structural problem of a contract.
func contractWords(is strict.Issue, d *diag.Diagnostic) {
	d.Err = ErrBadContract
	switch is.Problem {
	case strict.NotMapping:
		d.Message, d.Hint = fmt.Sprintf("contract: %s is not a JSON object", is.Map.What), diag.Fix("a contract is the JSON object ka2 build prints")
	case strict.KeyNotScalar:
		d.Message = "contract: a key is not a string"
	case strict.UnknownKey:
		d.Message = fmt.Sprintf("contract: %s has no key %q", is.Map.What, is.Key)
		d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("the keys are "+strings.Join(is.Known(), ", ")))
	case strict.DuplicateKey:
		if is.CaseVariant() {
			d.Message = fmt.Sprintf("contract: key %q differs only in case from %q at %d:%d", is.Key, is.First.Value, is.First.Line, is.First.Column)
			d.Hint = diag.Fix("keep one: encoding/json reads keys that differ only in case as one field, other JSON readers as two")
		} else {
			d.Message = fmt.Sprintf("contract: key %q repeats the one at %d:%d", is.Key, is.First.Line, is.First.Column)
			d.Hint = diag.Fix("keep one: JSON readers differ on which of the two values a repeated key means")
		}
	case strict.MissingKey:
		d.Message = fmt.Sprintf("contract: %s has no %q", is.Map.What, is.Key)
		if is.Map == contractMap && is.Key == "template" {
			d.Message += ": this is not a ka2 contract"
		}
	case strict.WrongKind:
		d.Message = fmt.Sprintf("contract: %s holds %s, want %s", is.Key, strict.JSONKind(is.Node), jsonKindOf(is.Want))
	}
}

func jsonKindOf(k strict.Kind) string {
	switch k {
	case strict.Sequence:
		return "an array"
	case strict.Mapping:
		return "an object"
	}
	return "a string or number"
}

// document reads the structure of a contract; the schema is checked
// after.
func (r *contractReader) document(root *yaml.Node) *Document {
	dec := &strict.Decoder{Path: r.name, Words: contractWords}
	defer func() { r.diags = append(r.diags, dec.Diags...) }()
	top := dec.Mapping(root, contractMap)
	if top == nil {
		return nil
	}
	c := &Document{}
	r.str(top, "template", &c.Template)
	r.str(top, "instruction", &c.Instruction)
	if v := top.Value("example"); v != nil {
		if ex := dec.Mapping(v, contractExampleMap); ex != nil {
			r.str(ex, "question", &c.Example.Question)
			r.str(ex, "answer", &c.Example.Answer)
		}
	}
	c.Memory = r.textRecords(dec, top.Value("memory"))
	c.ToolOutput = r.textRecords(dec, top.Value("tool_output"))
	if v := top.Value("evidence"); v != nil {
		c.Evidence = make([]EvidenceRecord, 0, len(v.Content))
		for _, n := range v.Content {
			f := dec.Mapping(n, evidenceMap)
			if f == nil {
				continue
			}
			var e EvidenceRecord
			r.str(f, "source_id", &e.SourceID)
			r.str(f, "version", &e.Version)
			r.str(f, "valid_from", &e.ValidFrom)
			r.str(f, "valid_until", &e.ValidUntil)
			r.str(f, "unit", &e.Unit)
			r.str(f, "role", &e.Role)
			e.Serves = r.strs(f, "serves")
			r.whole(f, "line_start", &e.LineStart)
			r.whole(f, "line_end", &e.LineEnd)
			r.str(f, "quote", &e.Quote)
			c.Evidence = append(c.Evidence, e)
		}
	}
	if v := top.Value("scope"); v != nil {
		if f := dec.Mapping(v, scopeMap); f != nil {
			c.Scope = &ScopeRecord{Subjects: r.strs(f, "subjects"), Dates: r.strs(f, "dates")}
		}
	}
	r.str(top, "question", &c.Question)
	return c
}

func (r *contractReader) textRecords(dec *strict.Decoder, v *yaml.Node) []TextRecord {
	if v == nil {
		return nil
	}
	var out []TextRecord
	for _, n := range v.Content {
		if f := dec.Mapping(n, textItemMap); f != nil {
			var t TextRecord
			r.str(f, "source", &t.Source)
			r.str(f, "text", &t.Text)
			out = append(out, t)
		}
	}
	return out
}

// str reads key as a string, when it is written.
func (r *contractReader) str(f *strict.Fields, key string, into *string) {
	if n := f.Value(key); n != nil {
		if n.Tag != "!!str" {
			r.atNode(n, diag.Hint{}, "%s holds %s, want a string", key, strict.JSONKind(n))
			return
		}
		*into = n.Value
	}
}

// strs reads key as an array of strings, when it is written.
func (r *contractReader) strs(f *strict.Fields, key string) []string {
	n := f.Value(key)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, v := range n.Content {
		if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
			r.atNode(v, diag.Hint{}, "%s[%d] holds %s, want a string", key, i, strict.JSONKind(v))
			continue
		}
		out = append(out, v.Value)
	}
	return out
}

// whole reads key as a whole number, when it is written.
func (r *contractReader) whole(f *strict.Fields, key string, into *int) {
	n := f.Value(key)
	if n == nil {
		return
	}
	v, err := strconv.Atoi(n.Value)
	if n.Tag != "!!int" || err != nil {
		r.atNode(n, diag.Hint{}, "%s holds %s %s, want a whole number", key, strict.JSONKind(n), n.Value)
		return
	}
	*into = v
}

// variantRe is a template variant's name after the '+'.
var variantRe = regexp.MustCompile(`^[a-z0-9][a-z0-9:_-]*$`)

// schema validates the document against d's output schema; a variant of
// d's template is validated as the template.
func (r *contractReader) schema(d *Definition, data []byte, root *yaml.Node, template string) {
	sch, err := d.CompiledSchema()
	if err != nil {
		r.at(0, 0, diag.Hint{}, "cannot compile the contract schema: %v", err)
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		r.at(0, 0, diag.Hint{}, "not JSON: %v", err)
		return
	}
	if base, name, ok := strings.Cut(template, "+"); ok && base == d.Template && variantRe.MatchString(name) {
		if m, ok := inst.(map[string]any); ok {
			m["template"] = base
			// A variant may leave the example out (eval's no_example
			// condition); everything else is checked as written.
			if _, has := m["example"]; !has {
				m["example"] = map[string]any{"question": "-", "answer": "-"}
			}
		}
	}
	if err := sch.Validate(inst); err != nil {
		for _, u := range schemaErrors(err) {
			n := nodeAt(root, u.where)
			where := u.where
			if where == "" {
				where = "/"
			}
			r.atNode(n, diag.Fix("grade and check the contract ka2 build printed, unchanged"), "%s does not validate against the schema of %s: %s", where, d.Template, u.msg)
		}
	}
}

// consistent checks what the schema cannot say: that each quote has the
// lines its range names, and that every date is a date.
func (r *contractReader) consistent(root *yaml.Node, c *Document) {
	for i, e := range c.Evidence {
		where := fmt.Sprintf("/evidence/%d", i)
		n := nodeAt(root, where)
		if e.LineEnd < e.LineStart {
			r.atNode(n, diag.Hint{}, "evidence[%d] (%s): lines %d-%d are not a range of body lines", i, e.SourceID, e.LineStart, e.LineEnd)
			continue
		}
		if got := strings.Count(e.Quote, "\n") + 1; got != e.LineEnd-e.LineStart+1 {
			r.atNode(nodeAt(root, where+"/quote"), diag.Hint{}, "evidence[%d] (%s): the quote has %d line(s) but lines %d-%d are %d", i, e.SourceID, got, e.LineStart, e.LineEnd, e.LineEnd-e.LineStart+1)
		}
		for _, k := range []struct{ key, text string }{{"valid_from", e.ValidFrom}, {"valid_until", e.ValidUntil}} {
			if k.text == "" {
				continue
			}
			if _, err := corpus.ParseDate(k.text); err != nil {
				r.atNode(nodeAt(root, where+"/"+k.key), diag.Hint{}, "evidence[%d] (%s): %s: %v", i, e.SourceID, k.key, err)
			}
		}
		if e.ValidFrom != "" && e.ValidUntil != "" && e.ValidUntil <= e.ValidFrom {
			r.atNode(nodeAt(root, where+"/valid_until"), diag.Hint{}, "evidence[%d] (%s): valid_until %s is not after valid_from %s", i, e.SourceID, e.ValidUntil, e.ValidFrom)
		}
		if c.Scope != nil {
			for _, s := range e.Serves {
				if !slices.Contains(c.Scope.Subjects, s) {
					r.atNode(nodeAt(root, where+"/serves"), diag.Hint{}, "evidence[%d] (%s) serves %q, which the scope does not ask", i, e.SourceID, s)
				}
			}
		}
	}
	if c.Scope != nil {
		if _, err := c.Scope.scope(); err != nil {
			r.atNode(nodeAt(root, "/scope"), diag.Hint{}, "%v", err)
		}
	}
}

// isDefinition reports a contract definition file: an object with the
// definition's fields and output_schema keys, which a contract never has.
func isDefinition(root *yaml.Node) bool {
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	var fields, schema bool
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "fields":
			fields = true
		case "output_schema":
			schema = true
		}
	}
	return fields && schema
}

// nodeAt finds the node a JSON pointer names, or the nearest one above it
// that exists.
func nodeAt(root *yaml.Node, ptr string) *yaml.Node {
	n := root
	if ptr == "" || n == nil {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}
