package contract

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/provenance"
)

// RequestFile is a build request written as JSON, as `ka2 build --request`
// reads it. Every key is optional; what a key sets replaces the
// corresponding build flag, and what it leaves out keeps the flag's value.
// Unknown keys are an error.
//
//	{"subject": "lodging", "dates": ["2026-09-14"], "question": "…", "lang": "en",
//	 "items": [{"type": "tool_output", "source": "tool:order_lookup", "text": "…"}],
//	 "promote": [{"item": 0, "to": "evidence"}]}
//
// It is also the request document of `ka2 pipeline run` (package pipeline)
// and what `ka2 eval` tells a generator (package eval). Both marshal it, so
// the order of the fields is the order of the keys they write: question,
// subjects, dates, lang, short, require_evidence.
type RequestFile struct {
	Question string `json:"question,omitempty"`
	// Subject and Subjects name the question's subject(s); give one of them.
	Subject  string   `json:"subject,omitempty"`
	Subjects []string `json:"subjects,omitempty"`
	// Dates are the asked dates, YYYY-MM-DD.
	Dates []string `json:"dates,omitempty"`
	Lang  string   `json:"lang,omitempty"`
	// Short and RequireEvidence are the --short and --require-evidence
	// flags; nil leaves the flag as it is.
	Short           *bool `json:"short,omitempty"`
	RequireEvidence *bool `json:"require_evidence,omitempty"`
	// Items are extra typed items (see Request.Items); Promote transforms
	// them by their 0-based index in Items (see Request.Promote).
	Items   []RequestItem `json:"items,omitempty"`
	Promote []Promotion   `json:"promote,omitempty"`
	// Counter, Capacity and Reserve are the budget: the counter's name
	// and the limits W and R, nil or "" keeping the front end's own (see
	// RequestBudget, which bounds them). Provider names the model API
	// whose framing the budget counts (render.Lookup's names), in place
	// of the wrapper.
	Counter  string `json:"counter,omitempty"`
	Capacity *int   `json:"capacity,omitempty"`
	Reserve  *int   `json:"reserve,omitempty"`
	Provider string `json:"provider,omitempty"`
}

// RequestItem is one extra item of a request: its type (instruction,
// memory or tool_output), its source and its exact text.
type RequestItem struct {
	Type   provenance.Kind `json:"type"`
	Source string          `json:"source"`
	Text   string          `json:"text"`
}

// SubjectList returns the subjects the request names, or nil.
func (f *RequestFile) SubjectList() []string {
	if f.Subject != "" {
		return []string{f.Subject}
	}
	return f.Subjects
}

// Candidates returns the request's items as candidate items for
// Request.Items.
func (f *RequestFile) Candidates() []provenance.Item {
	out := make([]provenance.Item, len(f.Items))
	for i, it := range f.Items {
		out[i] = provenance.NewItem(it.Type, it.Source, it.Text, noTime)
	}
	return out
}

// CheckRemote refuses the request if it comes from a remote caller and
// asks for what the policy p (nil: provenance.DefaultPolicy()) does not
// grant remote callers: an item whose type or source the policy's remote
// section does not list, or a promotion to a type it does not list. The
// refusal is the *provenance.Error (errors.Is(err, provenance.ErrRefused)
// and provenance.ErrRemote hold), wrapped with the item's index. A
// request from the operator (`ka2 build --request`) is not checked.
func (f *RequestFile) CheckRemote(p *provenance.Policy) error {
	if p == nil {
		p = provenance.DefaultPolicy()
	}
	for i, it := range f.Items {
		if err := p.CheckRemote(it.Type, it.Source); err != nil {
			return fmt.Errorf("request items[%d] (%s from %s): %w", i, it.Type, it.Source, err)
		}
	}
	for j, pr := range f.Promote {
		if pr.Item < 0 || pr.Item >= len(f.Items) {
			continue // ParseRequestFile refuses it
		}
		it := f.Items[pr.Item]
		if err := p.CheckRemotePromote(it.Type, it.Source, pr.To); err != nil {
			return fmt.Errorf("request promote[%d] (items[%d], %s from %s, to %s): %w", j, pr.Item, it.Type, it.Source, pr.To, err)
		}
	}
	return nil
}

// RequestError is a problem in a request file: where it is, what is wrong
// and how to fix it. errors.Is(err, ErrBadRequest) holds for it.
type RequestError struct {
	Path string
	// Line and Col are 1-based; Col counts code points. 0 means unknown.
	Line, Col int
	// Field is the JSON path of the value concerned, e.g. "items[1].type".
	Field string
	Msg   string
	Hint  string
}

// Error formats the problem as "path:line:col: field: msg; hint".
func (e *RequestError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Is reports ErrBadRequest.
func (e *RequestError) Is(target error) bool { return target == ErrBadRequest }

// The keys of a request, at each level, in the order the unknown_key
// hint lists them.
var (
	requestMap = &strict.Map{Keys: []strict.Key{{Name: "capacity"}, {Name: "counter"}, {Name: "dates"}, {Name: "items"}, {Name: "lang"}, {Name: "promote"},
		{Name: "provider"}, {Name: "question"}, {Name: "require_evidence"}, {Name: "reserve"}, {Name: "short"}, {Name: "subject"}, {Name: "subjects"}}}
	itemMap    = &strict.Map{Keys: []strict.Key{{Name: "source"}, {Name: "text"}, {Name: "type"}}}
	promoteMap = &strict.Map{Keys: []strict.Key{{Name: "item"}, {Name: "to"}}}
)

// ParseRequestFile reads a JSON request. name is used in error messages.
// The file must hold one JSON object, in valid UTF-8, with no unknown or
// repeated keys; every problem is a *RequestError with its line and column,
// and every problem in the file is reported (errors.As finds the first).
func ParseRequestFile(name string, data []byte) (*RequestFile, error) {
	return parseRequest(name, data, false)
}

// ParseRequestExtended reads a request as ParseRequestFile does, but
// ignores keys a request does not have: it reads the output of a program
// whose protocol extends the request's, as a subtype may.
func ParseRequestExtended(name string, data []byte) (*RequestFile, error) {
	return parseRequest(name, data, true)
}

// ParseRequestNode reads a request from n, a mapping inside a YAML or JSON
// document read elsewhere (a case file's items and promote): the keys,
// values and checks of ParseRequestFile, aliases followed. Every problem is
// a *RequestError at its position in the document, which name names.
func ParseRequestNode(name string, n *yaml.Node) (*RequestFile, error) {
	p := &requestParser{name: name}
	f := p.request(strict.Deref(n))
	if err := p.err(); err != nil {
		return nil, err
	}
	return f, nil
}

func parseRequest(name string, data []byte, extended bool) (*RequestFile, error) {
	if err := CheckText(name, data); err != nil {
		return nil, err
	}
	if f, ok := fastRequest(data); ok {
		return f, nil
	}
	return parseRequestTree(name, data, extended)
}

// parseRequestTree reads a request, its text checked, from its node
// tree: every request fastRequest does not take, and every problem.
func parseRequestTree(name string, data []byte, extended bool) (*RequestFile, error) {
	p := &requestParser{name: name, extended: extended}
	doc, err := strict.ParseJSON(data)
	if je, ok := errors.AsType[*strict.JSONError](err); ok {
		e := &RequestError{Path: name, Line: je.Line, Col: je.Col}
		switch je.Problem {
		case strict.JSONEnd:
			e.Msg, e.Hint = "the request ends early", "close every { and ["
		case strict.JSONTrailing:
			e.Msg, e.Hint = "there is more after the request object", "keep one JSON object in the file"
		default:
			e.Msg = "invalid JSON: " + je.Err.Error()
		}
		return nil, e
	}
	f := p.request(strict.Root(doc))
	if err := p.err(); err != nil {
		return nil, err
	}
	return f, nil
}

type requestParser struct {
	name     string
	extended bool // unknown keys are ignored
	errs     []*RequestError
}

// at reports a problem of the value field whose key (or element) is n.
func (p *requestParser) at(n *yaml.Node, field, msg, hint string) {
	p.errs = append(p.errs, &RequestError{Path: p.name, Line: n.Line, Col: n.Column, Field: field, Msg: msg, Hint: hint})
}

// err returns the problems found, in the order of their positions.
func (p *requestParser) err() error {
	slices.SortStableFunc(p.errs, func(a, b *RequestError) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	switch len(p.errs) {
	case 0:
		return nil
	case 1:
		return p.errs[0]
	}
	return diag.Errors[*RequestError](p.errs)
}

// mapping checks an object's keys against m; field is the object's path.
func (p *requestParser) mapping(n *yaml.Node, m *strict.Map, field string) *strict.Fields {
	d := &strict.Decoder{Words: func(is strict.Issue, d *diag.Diagnostic) {
		switch is.Problem {
		case strict.UnknownKey:
			d.Message, d.Hint = fmt.Sprintf("unknown key %q", is.Key), diag.Fix("the keys are "+strings.Join(is.Known(), ", "))
		case strict.DuplicateKey:
			d.Message, d.Hint = fmt.Sprintf("key %q appears twice", is.Key), diag.Fix("keep one")
		}
	}}
	if p.extended {
		m = &strict.Map{Keys: m.Keys, AnyKey: true}
	}
	f := d.Mapping(n, m)
	for _, e := range d.Diags {
		p.errs = append(p.errs, &RequestError{Path: p.name, Line: e.Line, Col: e.Col, Field: field, Msg: e.Message, Hint: e.Hint.Text})
	}
	return f
}

// want reports a value of the wrong JSON type: what names the Go type
// the value is read into, as goType words it.
func (p *requestParser) want(key, v *yaml.Node, field, what string) {
	kind := strict.JSONKind(v)
	if kind == "number" && what == "a whole number" {
		kind += " " + v.Value
	}
	p.at(key, field, fmt.Sprintf("want %s, not a JSON %s", what, kind), "")
}

// str reads a string; null is the empty string. Like every reader here,
// it follows YAML aliases, which a JSON document has none of.
func (p *requestParser) str(key, v *yaml.Node, field string) (string, bool) {
	v = strict.Deref(v)
	switch {
	case strict.IsNull(v):
		return "", true
	case v.Kind != yaml.ScalarNode || v.Tag != "!!str":
		p.want(key, v, field, "a string")
		return "", false
	}
	return v.Value, true
}

// strs reads a list of strings; null is no list.
func (p *requestParser) strs(key, v *yaml.Node, field string) []string {
	v = strict.Deref(v)
	if strict.IsNull(v) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		p.want(key, v, field, "a list")
		return nil
	}
	out := []string{}
	for _, c := range v.Content {
		s, ok := p.str(key, c, field)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// boolean reads true or false; null leaves it unset.
func (p *requestParser) boolean(key, v *yaml.Node, field string) *bool {
	v = strict.Deref(v)
	switch {
	case strict.IsNull(v):
		return nil
	case v.Kind != yaml.ScalarNode || v.Tag != "!!bool":
		p.want(key, v, field, "true or false")
		return nil
	}
	b := v.Value == "true"
	return &b
}

// integer reads a whole number; null leaves it unset.
func (p *requestParser) integer(key, v *yaml.Node, field string) *int {
	if strict.IsNull(v) {
		return nil
	}
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		p.want(key, v, field, "a whole number")
		return nil
	}
	i, err := strconv.Atoi(v.Value)
	if err != nil {
		p.want(key, v, field, "a whole number")
		return nil
	}
	return &i
}

// objects reads a list of objects, calling each on every one with its
// path; null is no list.
func (p *requestParser) objects(key, v *yaml.Node, field string, each func(n *yaml.Node, field string)) {
	v = strict.Deref(v)
	if strict.IsNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.want(key, v, field, "a list")
		return
	}
	for i, c := range v.Content {
		elem := field + "[" + strconv.Itoa(i) + "]"
		c = strict.Deref(c)
		if c.Kind != yaml.MappingNode && !strict.IsNull(c) {
			p.want(c, c, elem, "an object")
			continue
		}
		each(c, elem)
	}
}

// object reads the entries of one element of a list of objects, checked
// against m, calling each with the entry and its path. It reports whether
// the element was read without a problem, so that its own checks run only
// on a clean one; null is an element with no keys, and is not clean.
func (p *requestParser) object(n *yaml.Node, m *strict.Map, field string, each func(e strict.Entry, sub string)) bool {
	if strict.IsNull(n) {
		return false
	}
	before := len(p.errs)
	for _, e := range p.mapping(n, m, field).All() {
		each(e, field+"."+e.Name)
	}
	return len(p.errs) == before
}

// request reads the request object and checks what it says.
func (p *requestParser) request(root *yaml.Node) *RequestFile {
	if root.Kind != yaml.MappingNode {
		p.at(root, "", "the request must be a JSON object {…}", `write {"subject": …, "dates": […], "question": …}`)
		return nil
	}
	f := &RequestFile{}
	var subjectsKey *yaml.Node
	var promoteNodes []*yaml.Node
	for _, e := range p.mapping(root, requestMap, "").All() {
		k, v := e.Key, e.Value
		switch e.Name {
		case "subject":
			f.Subject, _ = p.str(k, v, e.Name)
		case "subjects":
			f.Subjects, subjectsKey = p.strs(k, v, e.Name), k
			for i, s := range f.Subjects {
				if strings.TrimSpace(s) == "" {
					p.at(k, e.Name, fmt.Sprintf("subject %d is empty", i), "")
				}
			}
		case "dates":
			f.Dates = p.strs(k, v, e.Name)
			for _, d := range f.Dates {
				if _, err := corpus.ParseDate(d); err != nil {
					p.at(k, e.Name, err.Error(), "")
					break
				}
			}
		case "question":
			f.Question, _ = p.str(k, v, e.Name)
		case "lang":
			f.Lang, _ = p.str(k, v, e.Name)
		case "short":
			f.Short = p.boolean(k, v, e.Name)
		case "require_evidence":
			f.RequireEvidence = p.boolean(k, v, e.Name)
		case "counter":
			f.Counter, _ = p.str(k, v, e.Name)
		case "provider":
			f.Provider, _ = p.str(k, v, e.Name)
		case "capacity":
			f.Capacity = p.integer(k, v, e.Name)
		case "reserve":
			f.Reserve = p.integer(k, v, e.Name)
		case "items":
			p.objects(k, v, e.Name, func(n *yaml.Node, field string) {
				f.Items = append(f.Items, p.item(n, field))
			})
		case "promote":
			p.objects(k, v, e.Name, func(n *yaml.Node, field string) {
				f.Promote = append(f.Promote, p.promotion(n, field))
				promoteNodes = append(promoteNodes, n)
			})
		}
	}
	if f.Subject != "" && len(f.Subjects) > 0 {
		p.at(subjectsKey, "subjects", `give "subject" or "subjects", not both`, "")
	}
	for j, pr := range f.Promote {
		if pr.Item < 0 || pr.Item >= len(f.Items) {
			p.at(promoteNodes[j], fmt.Sprintf("promote[%d]", j), fmt.Sprintf("item %d: the request has %s, numbered from 0", pr.Item, plural.Count(len(f.Items), "item", "items")), "")
		} else if i := repeatedPromotion(f.Promote[:j], Promotion(pr)); i >= 0 {
			p.at(promoteNodes[j], fmt.Sprintf("promote[%d]", j), fmt.Sprintf("promote[%d] already promotes item %d to %s", i, pr.Item, pr.To), "remove one of the two")
		}
	}
	return f
}

// item reads and checks one extra item.
func (p *requestParser) item(n *yaml.Node, field string) RequestItem {
	var it RequestItem
	clean := p.object(n, itemMap, field, func(e strict.Entry, sub string) {
		switch e.Name {
		case "type":
			s, _ := p.str(e.Key, e.Value, sub)
			it.Type = provenance.Kind(s)
		case "source":
			it.Source, _ = p.str(e.Key, e.Value, sub)
		case "text":
			it.Text, _ = p.str(e.Key, e.Value, sub)
		}
	})
	if !clean {
		return it
	}
	switch {
	case !slices.Contains(requestKinds, it.Type):
		p.at(n, field, fmt.Sprintf("type %q: a request may add instruction, memory or tool_output items", it.Type),
			"evidence comes from the corpus, or from a tool_output item through promote")
	case provenance.CheckSource(it.Source) != nil:
		p.at(n, field, provenance.CheckSource(it.Source).Error(), "")
	case strings.TrimSpace(it.Text) == "":
		p.at(n, field, "the text is empty", "")
	}
	return it
}

// promotion reads and checks one promotion; its item index is checked
// once every item is read.
func (p *requestParser) promotion(n *yaml.Node, field string) Promotion {
	var pr Promotion
	clean := p.object(n, promoteMap, field, func(e strict.Entry, sub string) {
		switch e.Name {
		case "item":
			switch v := strict.Deref(e.Value); {
			case strict.IsNull(v):
			case v.Kind != yaml.ScalarNode || v.Tag != "!!int":
				p.want(e.Key, v, sub, "a whole number")
			default:
				i, err := strconv.Atoi(v.Value)
				if err != nil {
					p.want(e.Key, v, sub, "a whole number")
				}
				pr.Item = i
			}
		case "to":
			s, _ := p.str(e.Key, e.Value, sub)
			pr.To = provenance.Kind(s)
		}
	})
	if !clean {
		return pr
	}
	if _, err := provenance.ParseKind(string(pr.To)); err != nil {
		p.at(n, field, "to: "+err.Error(), "")
	}
	return pr
}

// CheckText refuses JSON input whose text encoding/json would silently
// change: bytes that are not UTF-8, and \u escapes of lone UTF-16
// surrogates, which it turns into U+FFFD. The problem is a *RequestError
// (errors.Is(err, ErrBadRequest)) with its line, column and field; name is
// the input's name for the message. Requests and contracts are checked
// with it before they are decoded.
func CheckText(name string, data []byte) error {
	e := jsontext.Check(data)
	if e == nil {
		return nil
	}
	return &RequestError{Path: name, Line: e.Line, Col: e.Col, Field: e.Describe(), Msg: "invalid text: " + e.Msg, Hint: e.Hint}
}
