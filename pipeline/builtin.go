package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ka2/ka2/contract"
)

// RequestProtocol is the built-in protocol of a run's input (see ParseInput):
// the question, subjects and dates a ka2.build stage builds a contract
// for. The run input hands it to the first stage, and ka2.build stages read
// it from upstream.
const RequestProtocol = "ka2-request-v1"

// UsesBuild is the uses value of a stage that runs ka2's contract builder
// in process.
const UsesBuild = "ka2.build"

// requestProtocol declares RequestProtocol. It mirrors the json tags of
// the canonical request a run input carries (see RequestInput), which a
// test holds it to.
func requestProtocol() *Protocol {
	str, date := Type{Kind: KindString}, Type{Kind: KindDate}
	return &Protocol{
		Name:   RequestProtocol,
		Origin: "the request document of ka2 pipeline run",
		Fields: []Field{
			{Name: "question", Type: str},
			{Name: "subjects", Type: Type{Kind: KindList, Elem: &str}},
			{Name: "dates", Type: Type{Kind: KindList, Elem: &date}},
			{Name: "lang", Type: str, Optional: true},
			{Name: "short", Type: Type{Kind: KindBoolean}, Optional: true},
			{Name: "require_evidence", Type: Type{Kind: KindBoolean}, Optional: true},
		},
	}
}

// Builtins returns the built-in protocols for a contract definition: the
// template's output schema as a protocol named after the template (for the
// embedded definition, ka2-context-v1), one protocol per nested object of
// that schema (ka2-context-v1.example, ka2-context-v1.evidence), and
// RequestProtocol. Values of the template protocol are also validated
// against the JSON Schema itself, so the generated protocol can never be
// looser than the definition at run time.
func Builtins(def *contract.Definition) (Protocols, error) {
	origin := "output_schema of contract template " + def.Template
	ps, err := ProtocolsFromSchema(def.Template, origin, def.Schema)
	if err != nil {
		return nil, err
	}
	sch, err := def.CompiledSchema()
	if err != nil {
		return nil, err
	}
	ps[def.Template].schema = sch
	if _, clash := ps[RequestProtocol]; clash {
		return nil, fmt.Errorf("%s: a nested object is named %s, which is the run input's protocol", origin, RequestProtocol)
	}
	ps[RequestProtocol] = requestProtocol()
	return ps, nil
}

// defaultBuiltins are the built-in protocols of contract.Default(),
// generated once.
var defaultBuiltins = sync.OnceValues(func() (*contract.Definition, Protocols) {
	def := contract.Default()
	ps, err := Builtins(def)
	if err != nil {
		panic("embedded contract definition: " + err.Error())
	}
	return def, ps
})

// schemaNode is the part of a JSON Schema that decides a protocol type.
type schemaNode struct {
	Type       json.RawMessage            `json:"type"`
	Const      json.RawMessage            `json:"const"`
	Enum       []json.RawMessage          `json:"enum"`
	Ref        string                     `json:"$ref"`
	Format     string                     `json:"format"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
	Items      json.RawMessage            `json:"items"`
	Defs       map[string]json.RawMessage `json:"$defs"`
}

// schemaKeywords are the keywords ProtocolsFromSchema understands: those
// that decide the type, and those that only narrow values of a type (they
// stay enforced by the JSON Schema, not by the protocol). Any other keyword
// (oneOf, anyOf, patternProperties, …) has no protocol equivalent and is an
// error, so nothing about the schema is lost without saying so.
var schemaKeywords = map[string]bool{
	"type": true, "const": true, "enum": true, "$ref": true, "format": true,
	"properties": true, "required": true, "items": true, "$defs": true,
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"additionalProperties": true, "minLength": true, "maxLength": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// ProtocolsFromSchema turns a JSON Schema of an object into protocols: the
// root named name, each object nested in a property or an array named
// name.PROPERTY, and each $defs entry named name.DEF. Required properties
// become required fields, in the order of "required"; the others become
// optional fields, sorted by name. origin names the schema in errors.
func ProtocolsFromSchema(name, origin string, schema []byte) (Protocols, error) {
	g := &schemaGen{root: name, origin: origin, out: Protocols{}}
	var root schemaNode
	if err := g.decode(schema, "#", &root); err != nil {
		return nil, err
	}
	g.defs = root.Defs
	if root.Properties == nil {
		return nil, g.errorf("#", "the root must be an object schema with properties")
	}
	if err := g.object(name, root, "#"); err != nil {
		return nil, err
	}
	return g.out, nil
}

type schemaGen struct {
	root, origin string
	defs         map[string]json.RawMessage
	out          Protocols
}

func (g *schemaGen) errorf(ptr, format string, args ...any) error {
	return fmt.Errorf("%s at %s: %s", g.origin, ptr, fmt.Sprintf(format, args...))
}

// decode reads one schema object and refuses keywords it cannot map.
func (g *schemaGen) decode(raw json.RawMessage, ptr string, n *schemaNode) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return g.errorf(ptr, "not a schema object: %v", err)
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !schemaKeywords[k] {
			return g.errorf(ptr, "keyword %q has no protocol equivalent", k)
		}
		if k == "$defs" && ptr != "#" {
			return g.errorf(ptr, "$defs is only read at the root")
		}
	}
	if err := json.Unmarshal(raw, n); err != nil {
		return g.errorf(ptr, "%v", err)
	}
	return nil
}

// object adds the protocol for an object schema.
func (g *schemaGen) object(name string, n schemaNode, ptr string) error {
	if _, dup := g.out[name]; dup {
		return g.errorf(ptr, "two objects would both be named %s", name)
	}
	p := &Protocol{Name: name, Origin: g.origin}
	g.out[name] = p
	required := map[string]bool{}
	for _, r := range n.Required {
		if _, ok := n.Properties[r]; !ok {
			return g.errorf(ptr, "required property %q has no schema in properties", r)
		}
		if required[r] {
			return g.errorf(ptr, "property %q is required twice", r)
		}
		required[r] = true
	}
	var optional []string
	for k := range n.Properties {
		if !required[k] {
			optional = append(optional, k)
		}
	}
	slices.Sort(optional)
	for _, k := range append(slices.Clone(n.Required), optional...) {
		t, err := g.typeOf(n.Properties[k], ptr+"/properties/"+k, name+"."+k)
		if err != nil {
			return err
		}
		p.Fields = append(p.Fields, Field{Name: k, Type: t, Optional: !required[k]})
	}
	return nil
}

// typeOf maps a property's schema to a field type. nested is the name an
// inline object schema gets.
func (g *schemaGen) typeOf(raw json.RawMessage, ptr, nested string) (Type, error) {
	var n schemaNode
	if err := g.decode(raw, ptr, &n); err != nil {
		return Type{}, err
	}
	if n.Ref != "" {
		def, ok := strings.CutPrefix(n.Ref, "#/$defs/")
		if !ok || g.defs[def] == nil {
			return Type{}, g.errorf(ptr, "$ref %q: only #/$defs/NAME references are read", n.Ref)
		}
		name := g.root + "." + def
		if _, done := g.out[name]; !done {
			var dn schemaNode
			if err := g.decode(g.defs[def], "#/$defs/"+def, &dn); err != nil {
				return Type{}, err
			}
			if err := g.object(name, dn, "#/$defs/"+def); err != nil {
				return Type{}, err
			}
		}
		return Type{Kind: KindProtocol, Name: name}, nil
	}
	typ := ""
	if len(n.Type) > 0 {
		if err := json.Unmarshal(n.Type, &typ); err != nil {
			return Type{}, g.errorf(ptr, "type must be one name; a list of types has no protocol equivalent")
		}
	}
	if typ == "" && n.Const != nil {
		typ = jsonValueType(n.Const)
	}
	if typ == "" && len(n.Enum) > 0 {
		typ = jsonValueType(n.Enum[0])
		for _, e := range n.Enum[1:] {
			if jsonValueType(e) != typ {
				typ = ""
				break
			}
		}
	}
	if typ == "" && n.Properties != nil {
		typ = "object"
	}
	switch typ {
	case "string":
		if n.Format == "date" {
			return Type{Kind: KindDate}, nil
		}
		return Type{Kind: KindString}, nil
	case "integer":
		return Type{Kind: KindInteger}, nil
	case "number":
		return Type{Kind: KindNumber}, nil
	case "boolean":
		return Type{Kind: KindBoolean}, nil
	case "array":
		if n.Items == nil {
			return Type{}, g.errorf(ptr, "an array without items has no protocol equivalent")
		}
		elem, err := g.typeOf(n.Items, ptr+"/items", nested)
		if err != nil {
			return Type{}, err
		}
		return Type{Kind: KindList, Elem: &elem}, nil
	case "object":
		if n.Properties == nil {
			return Type{}, g.errorf(ptr, "an object without properties has no protocol equivalent")
		}
		if err := g.object(nested, n, ptr); err != nil {
			return Type{}, err
		}
		return Type{Kind: KindProtocol, Name: nested}, nil
	case "":
		return Type{}, g.errorf(ptr, "no type: write type, const or properties")
	}
	return Type{}, g.errorf(ptr, "type %q has no protocol equivalent", typ)
}

// jsonValueType names the JSON Schema type of a literal value.
func jsonValueType(raw json.RawMessage) string {
	v, err := decodeJSON(bytes.TrimSpace(raw))
	if err != nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return ""
}
