package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// Problem is one thing Verify found wrong with a contract.
type Problem struct {
	// Code is a stable machine name: schema, template, lang, unknown_source,
	// version, quote, shifted_range, order, duplicate, not_canonical, budget.
	Code string `json:"code"`
	// Where is a JSON pointer into the contract, e.g. "/evidence/1/quote".
	Where   string `json:"where"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Where == "" {
		return p.Code + ": " + p.Message
	}
	return p.Where + ": " + p.Code + ": " + p.Message
}

// Verification is what Verify found: the problems, the language it checked
// the contract in, and the budget accounting when the contract could be
// counted.
type Verification struct {
	Problems []Problem
	Lang     string
	Budget   *budget.Report
}

// OK reports whether no problem was found.
func (v Verification) OK() bool { return len(v.Problems) == 0 }

// wire is the serialized contract, read back.
type wire struct {
	Template    string         `json:"template"`
	Instruction string         `json:"instruction"`
	Example     Example        `json:"example"`
	Evidence    []wireEvidence `json:"evidence"`
	Question    string         `json:"question"`
}

type wireEvidence struct {
	SourceID  string `json:"source_id"`
	Version   string `json:"version"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Quote     string `json:"quote"`
}

// CompiledSchema compiles the definition's output schema. It is compiled once per
// definition.
func (d *Definition) CompiledSchema() (*jsonschema.Schema, error) {
	d.schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Schema))
		if err != nil {
			d.schemaErr = fmt.Errorf("output_schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		const url = "ka2:output_schema.json"
		if err := c.AddResource(url, doc); err != nil {
			d.schemaErr = fmt.Errorf("output_schema: %w", err)
			return
		}
		d.schema, d.schemaErr = c.Compile(url)
	})
	return d.schema, d.schemaErr
}

// Verify checks a serialized contract against the corpus it claims to quote:
// the schema, that every quote equals the lines its address names, the
// ordering rule, no duplicate records, the canonical serialization, and the
// budget. It lists every problem, in the order of the contract. lang may be
// empty: it is then found from the instruction text. A trailing newline (as
// ka2 build prints) is ignored.
func (b *Builder) Verify(data []byte, lang string) Verification {
	var v Verification
	add := func(code, where, format string, args ...any) {
		v.Problems = append(v.Problems, Problem{Code: code, Where: where, Message: fmt.Sprintf(format, args...)})
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	data = bytes.TrimSuffix(data, []byte("\r"))

	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		add("schema", "", "not a JSON document: %v", err)
		return v
	}
	sch, err := b.Definition.CompiledSchema()
	if err != nil {
		add("schema", "", "cannot compile the contract schema: %v", err)
		return v
	}
	if err := sch.Validate(inst); err != nil {
		for _, u := range schemaErrors(err) {
			add("schema", u.where, "%s", u.msg)
		}
		return v
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		add("schema", "", "%v", err)
		return v
	}

	v.Lang = lang
	if v.Lang == "" {
		for _, l := range b.Definition.Langs() {
			if b.Definition.Content[l].Instruction == w.Instruction {
				v.Lang = l
			}
		}
		if v.Lang == "" {
			add("lang", "/instruction", "the instruction matches no language of the contract definition; pass --lang")
		}
	}
	if c, ok := b.Definition.Content[v.Lang]; ok {
		if c.Instruction != w.Instruction {
			add("instruction", "/instruction", "the instruction differs from the %s text of template %s", v.Lang, b.Definition.Template)
		}
		if c.Example != w.Example {
			add("example", "/example", "the example differs from the %s example of template %s", v.Lang, b.Definition.Template)
		}
	}

	c := b.Index.Corpus()
	items := []Item{NewItem(KindInstruction, "system", w.Instruction, noTime), NewExample(w.Example, noTime)}
	var prev *corpus.Source
	seen := map[string]int{}
	for i, e := range w.Evidence {
		where := fmt.Sprintf("/evidence/%d", i)
		addr := corpus.Address{SourceID: e.SourceID, Range: corpus.Range{Start: e.LineStart, End: e.LineEnd}}
		it := NewItem(KindEvidence, "corpus:"+e.SourceID, e.Quote, noTime)
		it.Ref = Ref{SourceID: e.SourceID, Version: e.Version, Lines: addr.Range}
		items = append(items, it)
		if j, dup := seen[addr.String()]; dup {
			add("duplicate", where, "%s is also record %d", addr, j)
		}
		seen[addr.String()] = i
		s, err := c.Lookup(e.SourceID, v.Lang)
		if err != nil {
			add("unknown_source", where+"/source_id", "%v", err)
			continue
		}
		if s.Version != e.Version {
			add("version", where+"/version", "%s has version %s in the corpus, not %s", s.ID, s.Version, e.Version)
		}
		quote, err := s.Quote(addr.Range)
		switch {
		case err != nil:
			add("quote", where, "%s: %v", addr, err)
		case quote != e.Quote:
			if r, ok := findLines(s, e.Quote); ok {
				add("shifted_range", where, "the quote is lines %s of %s, not %s", r, s.ID, addr.Range)
			} else {
				add("quote", where+"/quote", "the quote differs from %s: %s", addr, firstDifference(quote, e.Quote))
			}
		}
		if prev != nil && selector.Compare(prev, s) > 0 {
			add("order", where, "%s (valid_from %s) must come before %s (valid_from %s): order is valid_from descending, then source_id",
				s.ID, s.ValidFrom, prev.ID, prev.ValidFrom)
		}
		prev = s
	}
	items = append(items, NewItem(KindQuestion, "user", w.Question, noTime))

	if w.Template != b.Definition.Template {
		add("template", "/template", "template is %q, want %q", w.Template, b.Definition.Template)
		return v
	}
	text, spans, err := Assemble(b.Definition, items)
	if err != nil {
		add("schema", "", "%v", err)
		return v
	}
	if !bytes.Equal(text, data) {
		add("not_canonical", "", "the contract is not in ka2's compact form (whitespace, key order or escaping differ), so its cost cannot be checked as sent")
	}
	rep := budget.Account(b.Counter, string(text), spans, b.Limits)
	v.Budget = &rep
	if !rep.Fits() {
		add("budget", "", "%v", (&budget.OverError{Report: rep}).Error())
	}
	return v
}

var noTime time.Time

// findLines looks for the quote's lines elsewhere in the source, to tell a
// shifted range from an edited quote.
func findLines(s *corpus.Source, quote string) (corpus.Range, bool) {
	n := strings.Count(quote, "\n") + 1
	for start := 1; start+n-1 <= len(s.Lines); start++ {
		r := corpus.Range{Start: start, End: start + n - 1}
		if q, _ := s.Quote(r); q == quote {
			return r, true
		}
	}
	return corpus.Range{}, false
}

// firstDifference describes the first line where two quotes differ.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("quote line %d is %q, the source has %q", i+1, g, w)
		}
	}
	return "they differ"
}

type schemaProblem struct{ where, msg string }

// schemaErrors flattens a validation error into its leaf causes, sorted.
func schemaErrors(err error) []schemaProblem {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []schemaProblem{{"", err.Error()}}
	}
	var out []schemaProblem
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			out = append(out, schemaProblem{u.InstanceLocation, u.Error.String()})
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.BasicOutput())
	slices.SortFunc(out, func(a, b schemaProblem) int {
		return strings.Compare(a.where+"\x00"+a.msg, b.where+"\x00"+b.msg)
	})
	return slices.Compact(out)
}

// schemaCache lives in Definition; declared here with the code that uses it.
type schemaCache struct {
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
}
