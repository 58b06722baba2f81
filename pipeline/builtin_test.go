package pipeline

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/contract"
)

// fieldList writes a protocol's fields as "name: type" ("name?: type" for
// optional ones).
func fieldList(p *Protocol) []string {
	var out []string
	for _, f := range p.Fields {
		opt := ""
		if f.Optional {
			opt = "?"
		}
		out = append(out, f.Name+opt+": "+f.Type.String())
	}
	return out
}

// TestBuiltinContextProtocol holds the generated protocol to the embedded
// definition: its required fields are the definition's required fields,
// in order, and the nested objects become their own protocols.
func TestBuiltinContextProtocol(t *testing.T) {
	def := contract.Default()
	ps, err := Builtins(def)
	if err != nil {
		t.Fatal(err)
	}
	root := ps[def.Template]
	if root == nil {
		t.Fatalf("no protocol %s", def.Template)
	}
	var wantRequired, gotRequired []string
	for _, f := range def.Fields {
		if f.Required {
			wantRequired = append(wantRequired, f.Name)
		}
	}
	for _, f := range root.Fields {
		if !f.Optional {
			gotRequired = append(gotRequired, f.Name)
		}
	}
	if diff := cmp.Diff(wantRequired, gotRequired); diff != "" {
		t.Errorf("required fields of %s mismatch (-definition +protocol):\n%s", def.Template, diff)
	}
	want := map[string]string{
		"template":    "string",
		"instruction": "string",
		"example":     "ka2-context-v1.example",
		"evidence":    "list<ka2-context-v1.evidence>",
		"scope":       "ka2-context-v1.scope",
		"question":    "string",
	}
	for name, typ := range want {
		f, ok := root.Field(name)
		if !ok || f.Type.String() != typ {
			t.Errorf("field %s: got %v %v, want %s", name, f.Type, ok, typ)
		}
	}
	if diff := cmp.Diff([]string{"source_id: string", "version: string", "line_start: integer", "line_end: integer", "quote: string",
		"role?: string", "serves?: list<string>", "unit?: string", "valid_from?: date", "valid_until?: date"},
		fieldList(ps["ka2-context-v1.evidence"])); diff != "" {
		t.Errorf("ka2-context-v1.evidence mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"subjects: list<string>", "dates: list<date>"}, fieldList(ps["ka2-context-v1.scope"])); diff != "" {
		t.Errorf("ka2-context-v1.scope mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"question: string", "answer: string"}, fieldList(ps["ka2-context-v1.example"])); diff != "" {
		t.Errorf("ka2-context-v1.example mismatch (-want +got):\n%s", diff)
	}
}

// TestBuiltinFollowsDefinition shows the protocol is generated, not
// retyped: a definition with another output schema gives another protocol.
func TestBuiltinFollowsDefinition(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(ka2.ContractJSON, &doc); err != nil {
		t.Fatal(err)
	}
	schema := doc["output_schema"].(map[string]any)
	props := schema["properties"].(map[string]any)
	props["audience"] = map[string]any{"type": "string", "format": "date"}
	schema["required"] = append(schema["required"].([]any), "audience")
	defJSON, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	def, err := contract.ParseDefinition(defJSON, ka2.ContentYAML)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("changed.yaml", []byte(`
protocols:
  Wants: {audience: string}
stages:
  build: {uses: ka2.build}
  next: {exec: [./next], context: {input_schema: Wants}}
flow: build >> next
`), def)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := p.Protocols[def.Template].Field("audience")
	if !ok || f.Type.Kind != KindDate || f.Optional {
		t.Fatalf("audience = %+v, %v; want a required date field", f, ok)
	}
	if len(p.Diagnostics) != 1 || !strings.Contains(p.Diagnostics[0].Message, "field 'audience' is date, want string") {
		t.Errorf("diagnostics = %v, want one C-004 about audience", p.Diagnostics)
	}
}

// TestProtocolsFromSchema covers what a JSON Schema maps to, and refuses
// what it cannot map rather than dropping it.
func TestProtocolsFromSchema(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		want    map[string][]string
		wantErr string
	}{
		{
			name: "types, optional fields sorted after required ones",
			schema: `{"type":"object","required":["b","a"],"properties":{
				"a":{"type":"integer"},"b":{"type":"string"},"z":{"type":"number"},"y":{"type":"boolean"},
				"d":{"type":"string","format":"date"},"c":{"const":"x"},"e":{"enum":[1,2]},
				"l":{"type":"array","items":{"type":"array","items":{"type":"string"}}}}}`,
			want: map[string][]string{"T": {"b: string", "a: integer", "c?: string", "d?: date", "e?: integer",
				"l?: list<list<string>>", "y?: boolean", "z?: number"}},
		},
		{
			name: "nested objects and $defs",
			schema: `{"type":"object","required":["o","r"],"properties":{
				"o":{"type":"object","required":["x"],"properties":{"x":{"type":"string"}}},
				"r":{"type":"array","items":{"$ref":"#/$defs/rec"}}},
				"$defs":{"rec":{"type":"object","required":["self"],"properties":{"self":{"$ref":"#/$defs/rec"}}}}}`,
			want: map[string][]string{
				"T":     {"o: T.o", "r: list<T.rec>"},
				"T.o":   {"x: string"},
				"T.rec": {"self: T.rec"},
			},
		},
		{name: "oneOf", schema: `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]}}}`,
			wantErr: `test at #/properties/a: keyword "oneOf" has no protocol equivalent`},
		{name: "type list", schema: `{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
			wantErr: "test at #/properties/a: type must be one name; a list of types has no protocol equivalent"},
		{name: "array without items", schema: `{"type":"object","properties":{"a":{"type":"array"}}}`,
			wantErr: "test at #/properties/a: an array without items has no protocol equivalent"},
		{name: "free object", schema: `{"type":"object","properties":{"a":{"type":"object"}}}`,
			wantErr: "test at #/properties/a: an object without properties has no protocol equivalent"},
		{name: "external ref", schema: `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`,
			wantErr: `test at #/properties/a: $ref "other.json": only #/$defs/NAME references are read`},
		{name: "required without schema", schema: `{"type":"object","required":["a"],"properties":{}}`,
			wantErr: `test at #: required property "a" has no schema in properties`},
		{name: "root not an object", schema: `{"type":"string"}`,
			wantErr: "test at #: the root must be an object schema with properties"},
		{name: "null", schema: `{"type":"object","properties":{"a":{"type":"null"}}}`,
			wantErr: `test at #/properties/a: type "null" has no protocol equivalent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ProtocolsFromSchema("T", "test", []byte(tt.schema))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for name, p := range ps {
				got[name] = fieldList(p)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ProtocolsFromSchema() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequestProtocolMatchesInput holds ka2-request-v1 to the canonical
// request a run input carries (RequestInput): the keys of a request that
// sets everything, optional exactly where ParseInput accepts the request
// without the key; and the canonical request validates.
func TestRequestProtocolMatchesInput(t *testing.T) {
	full := contract.RequestFile{Question: "q", Subject: "lodging", Dates: []string{"2026-09-14"},
		Lang: "zh", Short: new(true), RequireEvidence: new(true)}
	doc := RequestInput(full).JSON
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	var want []string
	for name := range m {
		without := maps.Clone(m)
		delete(without, name)
		b, err := json.Marshal(without)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseInput(b); err == nil {
			name += "?"
		}
		want = append(want, name)
	}
	var got []string
	for _, f := range requestProtocol().Fields {
		name := f.Name
		if f.Optional {
			name += "?"
		}
		got = append(got, name)
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("ka2-request-v1 fields mismatch (-request +protocol):\n%s", diff)
	}
	ps := Protocols{RequestProtocol: requestProtocol()}
	if err := ps.Validate(RequestProtocol, doc); err != nil {
		t.Errorf("a request does not validate as %s: %v", RequestProtocol, err)
	}
}
