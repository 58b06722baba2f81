package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseType(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr string
	}{
		{in: "string", want: "string"},
		{in: " date ", want: "date"},
		{in: "list<integer>", want: "list<integer>"},
		{in: "list<list<Evidence>>", want: "list<list<Evidence>>"},
		{in: "list< boolean >", want: "list<boolean>"},
		{in: "ka2-context-v1.evidence", want: "ka2-context-v1.evidence"},
		{in: "list", wantErr: `type "list": say what the list holds, e.g. list<string>`},
		{in: "list<string", wantErr: `type "list<string": a list is written list<T>, with the closing >`},
		{in: "list<>", wantErr: `type "" is not string, integer, number, boolean, date, list<T> or a protocol name`},
		{in: "map[string]int", wantErr: `type "map[string]int" is not string, integer, number, boolean, date, list<T> or a protocol name`},
		{in: "", wantErr: `type "" is not string, integer, number, boolean, date, list<T> or a protocol name`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseType(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseType(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("ParseType(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	p := parseString(t, "v.yaml", `
protocols:
  Doc:
    title: string
    n: integer
    x: number
    ok: boolean
    when: date
    tags: list<string>
    parts: list<Part>
    note?: string
  Part:
    id: integer
stages:
  a: {exec: [./a], context: {output_schema: Doc}}
flow: a
`)
	if len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", p.Diagnostics)
	}
	tests := []struct {
		name string
		doc  string
		want []string // problems, or nil
	}{
		{name: "valid", doc: `{"title":"t","n":3,"x":1.5,"ok":true,"when":"2026-01-01","tags":[],"parts":[{"id":1}],"extra":null}`},
		{name: "integral float is an integer", doc: `{"title":"t","n":3.0,"x":1,"ok":false,"when":"2026-01-01","tags":["a"],"parts":[]}`},
		{name: "optional present", doc: `{"title":"t","n":1,"x":1,"ok":false,"when":"2026-01-01","tags":[],"parts":[],"note":"n"}`},
		{
			name: "everything wrong",
			doc:  `{"title":1,"n":1.5,"x":"1","ok":"yes","when":"2026-02-30","tags":[1],"parts":[{"id":"1"},{}],"note":null}`,
			want: []string{
				"/title is a number, want string",
				"/n is 1.5, want integer",
				"/x is a string, want number",
				"/ok is a string, want boolean",
				`/when is "2026-02-30", want a date (YYYY-MM-DD)`,
				"/tags/0 is a number, want string",
				"/parts/0/id is a string, want integer",
				"/parts/1/id: missing required field of Part",
				"/note is null, want string",
			},
		},
		{name: "missing fields", doc: `{}`, want: []string{
			"/title: missing required field of Doc", "/n: missing required field of Doc", "/x: missing required field of Doc",
			"/ok: missing required field of Doc", "/when: missing required field of Doc", "/tags: missing required field of Doc",
			"/parts: missing required field of Doc",
		}},
		{name: "not an object", doc: `[1]`, want: []string{"/ is an array, want Doc"}},
		{name: "not JSON", doc: `title: t`, want: []string{"not a JSON document"}},
		{name: "two values", doc: `{} {}`, want: []string{"not a JSON document: more than one JSON value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Protocols.Validate("Doc", []byte(tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("Validate() = %v, want ErrSchema", err)
			}
			got := strings.Split(strings.TrimPrefix(err.Error(), ErrSchema.Error()+": "), "; ")
			if len(tt.want) == 1 && strings.HasPrefix(tt.want[0], "not a JSON") {
				if !strings.HasPrefix(got[0], tt.want[0]) {
					t.Errorf("Validate() = %v, want %q", err, tt.want[0])
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateBuiltinUsesJSONSchema shows a value that fits the generated
// protocol but not the definition's JSON Schema is still refused.
func TestValidateBuiltinUsesJSONSchema(t *testing.T) {
	p := parseString(t, "b.yaml", "stages: {a: {exec: [./a]}}\nflow: a\n")
	doc := `{"template":"other","instruction":"i","example":{"question":"q","answer":"a"},"evidence":[],"scope":{"subjects":["s"],"dates":["2026-01-01"]},"question":"q"}`
	err := p.Protocols.Validate("ka2-context-v1", []byte(doc))
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "JSON Schema of ka2-context-v1") {
		t.Fatalf("Validate() = %v, want a JSON Schema violation", err)
	}
}

func TestProblemsAreBounded(t *testing.T) {
	var fields strings.Builder
	for i := range 30 {
		fields.WriteString("    f")
		fields.WriteString(strings.Repeat("x", i+1))
		fields.WriteString(": string\n")
	}
	p := parseString(t, "many.yaml", "protocols:\n  Many:\n"+fields.String()+"  None: {}\nstages:\n  a: {exec: [./a], context: {output_schema: None}}\n  b: {exec: [./b], context: {input_schema: Many}}\nflow: a >> b\n")
	if len(p.Diagnostics) != 1 || !strings.HasSuffix(p.Diagnostics[0].Message, "; and 20 more)") {
		t.Fatalf("diagnostics = %v, want one C-004 listing 10 problems and 20 more", p.Diagnostics)
	}
}
