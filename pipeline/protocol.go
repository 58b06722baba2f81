package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// TypeKind is the kind of a field type.
type TypeKind int

// The kinds of field types.
const (
	KindInvalid  TypeKind = iota // the zero value; no valid type has it
	KindString                   // a JSON string
	KindInteger                  // a JSON number without a fractional part
	KindNumber                   // any JSON number; an integer field fits where a number is wanted
	KindBoolean                  // true or false
	KindDate                     // a string holding a calendar date, YYYY-MM-DD
	KindList                     // a JSON array of Elem
	KindProtocol                 // a JSON object conforming to the protocol Name
)

// primitives maps the primitive type names to their kinds.
var primitives = map[string]TypeKind{
	"string": KindString, "integer": KindInteger, "number": KindNumber,
	"boolean": KindBoolean, "date": KindDate,
}

// primitiveNames lists the primitive type names, for hints.
var primitiveNames = []string{"boolean", "date", "integer", "number", "string"}

// Type is a field type: a primitive, list<T>, or a protocol by name.
type Type struct {
	Kind TypeKind
	// Elem is the element type of a list.
	Elem *Type
	// Name is the protocol name of a KindProtocol type.
	Name string
}

// String writes t as it is written in a pipeline file.
func (t Type) String() string {
	switch t.Kind {
	case KindString:
		return "string"
	case KindInteger:
		return "integer"
	case KindNumber:
		return "number"
	case KindBoolean:
		return "boolean"
	case KindDate:
		return "date"
	case KindList:
		return "list<" + t.Elem.String() + ">"
	case KindProtocol:
		return t.Name
	}
	return "invalid"
}

// protocolName is the syntax of a protocol name.
var protocolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// ParseType parses a type expression: string, integer, number, boolean,
// date, list<T>, or a protocol name. It does not check that the protocol
// exists.
func ParseType(s string) (Type, error) {
	s = strings.TrimSpace(s)
	if inner, ok := strings.CutPrefix(s, "list<"); ok {
		inner, ok = strings.CutSuffix(inner, ">")
		if !ok {
			return Type{}, fmt.Errorf("type %q: a list is written list<T>, with the closing >", s)
		}
		elem, err := ParseType(inner)
		if err != nil {
			return Type{}, err
		}
		return Type{Kind: KindList, Elem: &elem}, nil
	}
	if k, ok := primitives[s]; ok {
		return Type{Kind: k}, nil
	}
	if s == "list" {
		return Type{}, fmt.Errorf("type %q: say what the list holds, e.g. list<string>", s)
	}
	if !protocolName.MatchString(s) {
		return Type{}, fmt.Errorf("type %q is not string, integer, number, boolean, date, list<T> or a protocol name", s)
	}
	return Type{Kind: KindProtocol, Name: s}, nil
}

// Field is one field of a protocol.
type Field struct {
	Name string
	Type Type
	// Optional fields may be absent; a field is required unless its key is
	// written with a trailing "?" (or, for a protocol generated from a JSON
	// Schema, unless it is missing from "required").
	Optional bool
	// Pos is where the field's type is written; zero for built-in protocols.
	Pos diag.Pos
}

// Protocol is a named schema: fields, each with a type. A value conforms
// to a protocol when it is a JSON object with every required field, each
// field present having its type; other fields are allowed.
type Protocol struct {
	Name   string
	Fields []Field
	// Pos is where the protocol is declared; zero for built-in protocols.
	Pos diag.Pos
	// Origin names the file a built-in protocol was generated from; empty
	// for protocols declared in the pipeline file.
	Origin string

	// schema, when set, is the JSON Schema the protocol was generated from;
	// values are validated against it too.
	schema *jsonschema.Schema
	// broken marks a protocol that uses an unknown type, directly or
	// through another protocol. Broken protocols are reported once (C-002)
	// and never compared.
	broken bool
}

// Field returns the field called name.
func (p *Protocol) Field(name string) (Field, bool) {
	for _, f := range p.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Protocols is a set of protocols by name, built-in and declared.
type Protocols map[string]*Protocol

// maxProblems bounds the problems listed in one diagnostic or error; the
// rest are counted.
const maxProblems = 10

// problems collects problem texts up to maxProblems and counts the rest.
type problems struct {
	list []string
	more int
}

func (ps *problems) add(s string) {
	if len(ps.list) < maxProblems {
		ps.list = append(ps.list, s)
	} else {
		ps.more++
	}
}

func (ps *problems) empty() bool { return len(ps.list) == 0 }

// String joins the problems with "; " and counts the ones left out.
func (ps *problems) String() string {
	s := strings.Join(ps.list, "; ")
	if ps.more > 0 {
		s += fmt.Sprintf("; and %d more", ps.more)
	}
	return s
}

// problemAt is a problem relative to a protocol: the field path and what
// is wrong, kept apart so a nested comparison can be reused under another
// path.
type problemAt struct {
	path, kind, have, want string // kind: missing, optional, type
}

// String says what is wrong, as the C-004 message lists it.
func (p problemAt) String() string {
	switch p.kind {
	case "missing":
		return fmt.Sprintf("missing field '%s'", p.path)
	case "optional":
		return fmt.Sprintf("field '%s' is optional, want required", p.path)
	}
	return fmt.Sprintf("field '%s' is %s, want %s", p.path, p.have, p.want)
}

// comparer checks structural subtyping between protocols. Results are
// memoized per pair, so shared sub-protocols are compared once; a pair
// met again while it is being compared (a recursive protocol) is assumed
// compatible, which is the usual coinductive reading.
type comparer struct {
	ps      Protocols
	memo    map[[2]string][]problemAt
	working map[[2]string]bool
}

func newComparer(ps Protocols) *comparer {
	return &comparer{ps: ps, memo: map[[2]string][]problemAt{}, working: map[[2]string]bool{}}
}

// Compatible reports whether a value of protocol have is always a value of
// protocol want: have has every field want requires, with the same type
// (or integer where want has number, since every integer is a number),
// recursively. It lists what is missing or mistyped, by field path.
func (ps Protocols) Compatible(have, want string) (bool, []string) {
	probs := newComparer(ps).compare(have, want)
	var out problems
	for _, p := range probs {
		out.add(p.String())
	}
	if out.more > 0 {
		out.list = append(out.list, fmt.Sprintf("and %d more", out.more))
	}
	return len(probs) == 0, out.list
}

func (c *comparer) compare(have, want string) []problemAt {
	if have == want {
		return nil
	}
	key := [2]string{have, want}
	if probs, ok := c.memo[key]; ok {
		return probs
	}
	if c.working[key] {
		return nil
	}
	c.working[key] = true
	defer delete(c.working, key)

	h, w := c.ps[have], c.ps[want]
	if h == nil || w == nil {
		return nil // reported as C-002 elsewhere
	}
	var probs []problemAt
	add := func(p ...problemAt) {
		for _, q := range p {
			if len(probs) > 4*maxProblems {
				return
			}
			probs = append(probs, q)
		}
	}
	for _, wf := range w.Fields {
		hf, ok := h.Field(wf.Name)
		switch {
		case !ok && wf.Optional:
		case !ok:
			add(problemAt{path: wf.Name, kind: "missing"})
		case hf.Optional && !wf.Optional:
			add(problemAt{path: wf.Name, kind: "optional"})
		default:
			add(c.compareType(hf.Type, wf.Type, wf.Name)...)
		}
	}
	c.memo[key] = probs
	return probs
}

// compareType compares a field's types. Lists compare element-wise; two
// protocols compare structurally, with the field path extended; integer
// is a subtype of number, as Validate accepts every integer as a number.
func (c *comparer) compareType(have, want Type, path string) []problemAt {
	h, w, suffix := have, want, ""
	for h.Kind == KindList && w.Kind == KindList {
		h, w, suffix = *h.Elem, *w.Elem, suffix+"[]"
	}
	switch {
	case h.Kind == KindProtocol && w.Kind == KindProtocol:
		inner := c.compare(h.Name, w.Name)
		out := make([]problemAt, len(inner))
		for i, p := range inner {
			p.path = path + suffix + "." + p.path
			out[i] = p
		}
		return out
	case h.Kind == w.Kind && h.Kind != KindList && h.Kind != KindProtocol:
		return nil
	case h.Kind == KindInteger && w.Kind == KindNumber:
		return nil
	}
	return []problemAt{{path: path, kind: "type", have: have.String(), want: want.String()}}
}

// ErrSchema is matched by errors reporting a value that breaks its
// protocol: a stage's input or output.
var ErrSchema = errors.New("breaks its schema")

// Validate checks that data, a JSON document, conforms to the protocol
// name. It lists every problem (up to a bound) by JSON pointer.
func (ps Protocols) Validate(name string, data []byte) error {
	p := ps[name]
	if p == nil {
		return fmt.Errorf("unknown protocol %q", name)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return fmt.Errorf("%w: not a JSON document: %v", ErrSchema, err)
	}
	var probs problems
	ps.validate(v, Type{Kind: KindProtocol, Name: name}, "", &probs)
	if probs.empty() && p.schema != nil {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err == nil {
			err = p.schema.Validate(inst)
		}
		if err != nil {
			probs.add(fmt.Sprintf("JSON Schema of %s (%s): %s", name, p.Origin, oneLine(err.Error())))
		}
	}
	if !probs.empty() {
		return fmt.Errorf("%w: %s", ErrSchema, probs.String())
	}
	return nil
}

// decodeJSON reads exactly one JSON value, with numbers kept as written.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func (ps Protocols) validate(v any, t Type, path string, probs *problems) {
	at := path
	if at == "" {
		at = "/"
	}
	bad := func() { probs.add(fmt.Sprintf("%s is %s, want %s", at, jsonKind(v), t)) }
	switch t.Kind {
	case KindString:
		if _, ok := v.(string); !ok {
			bad()
		}
	case KindDate:
		s, ok := v.(string)
		if !ok {
			bad()
			return
		}
		if _, err := corpus.ParseDate(s); err != nil {
			probs.add(fmt.Sprintf("%s is %q, want a date (YYYY-MM-DD)", at, s))
		}
	case KindBoolean:
		if _, ok := v.(bool); !ok {
			bad()
		}
	case KindNumber:
		if _, ok := v.(json.Number); !ok {
			bad()
		}
	case KindInteger:
		n, ok := v.(json.Number)
		if !ok {
			bad()
			return
		}
		if f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven); err != nil || !f.IsInt() {
			probs.add(fmt.Sprintf("%s is %s, want integer", at, n))
		}
	case KindList:
		list, ok := v.([]any)
		if !ok {
			bad()
			return
		}
		for i, e := range list {
			ps.validate(e, *t.Elem, fmt.Sprintf("%s/%d", path, i), probs)
		}
	case KindProtocol:
		obj, ok := v.(map[string]any)
		if !ok {
			bad()
			return
		}
		p := ps[t.Name]
		if p == nil {
			probs.add(fmt.Sprintf("%s: unknown protocol %s", at, t.Name))
			return
		}
		for _, f := range p.Fields {
			fv, ok := obj[f.Name]
			if !ok {
				if !f.Optional {
					probs.add(fmt.Sprintf("%s/%s: missing required field of %s", path, pointerEscape(f.Name), p.Name))
				}
				continue
			}
			ps.validate(fv, f.Type, path+"/"+pointerEscape(f.Name), probs)
		}
	default:
		probs.add(fmt.Sprintf("%s: invalid type", at))
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// pointerEscape escapes a key for a JSON pointer (RFC 6901).
func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
