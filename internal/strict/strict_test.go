package strict

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/diag"
)

// plain words every issue the same way, naming its problem and key.
func plain(is Issue, d *diag.Diagnostic) {
	d.Message = fmt.Sprintf("%d %s", is.Problem, is.Key)
	switch is.Problem {
	case UnknownKey:
		d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("no suggestion"))
	case DuplicateKey:
		d.Message += fmt.Sprintf(" first %d", is.First.Line)
	case WrongKind:
		d.Message += " want " + is.Want.String()
	}
}

var testMap = &Map{What: "test", Keys: []Key{
	{Name: "name", Required: true, Kind: Scalar},
	{Name: "list", Kind: Sequence},
	{Name: "sub", Kind: Mapping},
	{Name: "any"},
	{Name: "items", Reserved: true},
}}

func TestMapping(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		offset  int
		want    []string
		entries []string
	}{
		{name: "every kind right", src: "name: a\nlist: [b]\nsub: {c: d}\nany: [e]\n", entries: []string{"name", "list", "sub", "any"}},
		{name: "null is no wrong kind", src: "name: ~\nlist:\n", entries: []string{"name", "list"}},
		{name: "all problems collected", src: "nmae: a\nname: b\nname: c\nlist: x\nitems: 1\n[k]: v\nzzzzzzzz: 1\n",
			want: []string{
				"p:1:1: 3 nmae; did you mean name?",
				"p:3:1: 5 name first 2",
				"p:4:7: 7 list want a list",
				"p:5:1: 4 items",
				"p:6:1: 2 ",
				"p:7:1: 3 zzzzzzzz; no suggestion",
			},
			entries: []string{"name"}},
		{name: "a duplicate of a wrong kind is still a duplicate", src: "name: [a]\nname: b\n",
			want: []string{"p:1:7: 7 name want a single value", "p:2:1: 5 name first 1"}},
		// encoding/json reads keys that differ only in case as one field:
		// a case variant repeats the key, known or not, first or second.
		{name: "case variant after the key", src: "name: a\nName: b\n", want: []string{"p:2:1: 5 Name first 1"}, entries: []string{"name"}},
		{name: "case variant before the key", src: "NAME: a\nname: b\n",
			want: []string{"p:1:1: 3 NAME; no suggestion", "p:2:1: 5 name first 1"}},
		{name: "case variant of an unknown key", src: "name: a\nzz: 1\nZZ: 2\n",
			want: []string{"p:2:1: 3 zz; no suggestion", "p:3:1: 5 ZZ first 2"}, entries: []string{"name"}},
		{name: "missing required", src: "list: []\n", want: []string{"p:1:1: 6 name"}, entries: []string{"list"}},
		{name: "line offset", src: "list: []\n", offset: 1, want: []string{"p:2:1: 6 name"}, entries: []string{"list"}},
		{name: "not a mapping", src: "- a\n", want: []string{"p:1:1: 1 "}},
		{name: "aliases are followed", src: "x: &a {name: n}\n", entries: []string{"name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.src), &doc); err != nil {
				t.Fatal(err)
			}
			root := Root(&doc)
			if tt.name == "aliases are followed" {
				root = &yaml.Node{Kind: yaml.AliasNode, Alias: root.Content[1]}
			}
			d := &Decoder{Path: "p", LineOffset: tt.offset, Words: plain}
			f := d.Mapping(root, testMap)
			var got []string
			for _, e := range d.Diags {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Mapping() problems mismatch (-want +got):\n%s", diff)
			}
			var names []string
			if f != nil {
				for _, e := range f.Entries {
					names = append(names, e.Name)
				}
			}
			if diff := cmp.Diff(tt.entries, names); diff != "" {
				t.Errorf("Mapping() entries mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFields(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("name: a\n"), &doc); err != nil {
		t.Fatal(err)
	}
	d := &Decoder{Words: plain}
	f := d.Mapping(Root(&doc), testMap)
	if f.Value("name").Value != "a" || f.Key("name").Column != 1 || !f.Has("name") {
		t.Errorf("Fields of name: %+v", f.Entries)
	}
	if f.Value("list") != nil || f.Key("list") != nil || f.Has("list") {
		t.Error("Fields has list, which is not written")
	}
	var none *Fields
	if none.Has("name") {
		t.Error("a nil Fields has name")
	}
	if Root(nil) != nil || Root(&yaml.Node{Kind: yaml.DocumentNode}) != nil {
		t.Error("Root of an empty document is not nil")
	}
	if Any.String() != "any value" || Mapping.String() != "a mapping" {
		t.Error("Kind.String")
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string // the tree as shape writes it
		wantErr string // "LINE:COL problem"
	}{
		{name: "object", src: "{\n  \"a\": 1,\n  \"b\": [true, null, \"x\", 1.5],\n  \"é\": {}\n}",
			want: "map@1:1{str(a)@2:3 int(1)@2:8 str(b)@3:3 seq@3:8[bool(true)@3:9 null(null)@3:15 str(x)@3:21 float(1.5)@3:26] str(é)@4:3 map@4:8{}}"},
		{name: "repeated keys are kept", src: `{"a": 1, "a": 2}`, want: "map@1:1{str(a)@1:2 int(1)@1:7 str(a)@1:10 int(2)@1:15}"},
		{name: "a column counts code points", src: `{"é": "ü", "b": 1}`, want: "map@1:1{str(é)@1:2 str(ü)@1:7 str(b)@1:12 int(1)@1:17}"},
		{name: "a scalar", src: ` "x" `, want: "str(x)@1:2"},
		{name: "a big number", src: `99999999999999999999`, want: "float(99999999999999999999)@1:1"},
		{name: "syntax", src: `{"a": }`, wantErr: "1:7 1"},
		{name: "ends early", src: "{\"a\": [1,\n", wantErr: "2:1 2"},
		{name: "trailing", src: "{} \n {}", wantErr: "2:2 3"},
		{name: "empty", src: "", wantErr: "1:1 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParseJSON([]byte(tt.src))
			if tt.wantErr != "" {
				e, ok := err.(*JSONError)
				if !ok {
					t.Fatalf("ParseJSON(%q) = %v, want a *JSONError", tt.src, err)
				}
				if got := fmt.Sprintf("%d:%d %d", e.Line, e.Col, e.Problem); got != tt.wantErr || e.Error() == "" {
					t.Errorf("ParseJSON(%q) error = %s (%v), want %s", tt.src, got, e, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseJSON(%q) = %v", tt.src, err)
			}
			if got := shape(Root(doc)); got != tt.want {
				t.Errorf("ParseJSON(%q) =\n%s\nwant\n%s", tt.src, got, tt.want)
			}
		})
	}
}

func shape(n *yaml.Node) string {
	at := fmt.Sprintf("@%d:%d", n.Line, n.Column)
	var kids string
	for i, c := range n.Content {
		if i > 0 {
			kids += " "
		}
		kids += shape(c)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "map" + at + "{" + kids + "}"
	case yaml.SequenceNode:
		return "seq" + at + "[" + kids + "]"
	}
	return fmt.Sprintf("%s(%s)%s", n.Tag[2:], n.Value, at)
}

func TestJSONKind(t *testing.T) {
	doc, err := ParseJSON([]byte(`[{}, [], "s", 1, 1.5, true, null]`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range Root(doc).Content {
		got = append(got, JSONKind(n))
	}
	want := []string{"object", "array", "string", "number", "number", "bool", "null"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSONKind() mismatch (-want +got):\n%s", diff)
	}
}

// FuzzParseJSON: ParseJSON never panics, and accepts exactly what
// encoding/json accepts as one value.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, "b", null]}`, `{"a": 1, "a": 2}`, `[`, `{} {}`, `"\u00e9"`, `1e400`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseJSON(data)
		if want := json.Valid(data); (err == nil) != want {
			t.Fatalf("ParseJSON(%q) = %v, but json.Valid says %v", data, err, want)
		}
	})
}

// TestMappingTypoOfRequired: a required key that is missing because it is
// misspelt is reported once, as the unknown key with a suggestion.
func TestMappingTypoOfRequired(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("nmae: a\n"), &doc); err != nil {
		t.Fatal(err)
	}
	d := &Decoder{Path: "p", Words: plain}
	d.Mapping(Root(&doc), testMap)
	if len(d.Diags) != 1 || d.Diags[0].Error() != "p:1:1: 3 nmae; did you mean name?" {
		t.Errorf("Mapping() problems = %v, want only the unknown key", d.Diags)
	}
}

// TestAllOfNoMapping: ranging over the fields of a node that was not a
// mapping gives nothing (Mapping reported it) instead of a nil
// dereference, which a lint configuration's `rules:` left empty once
// caused.
func TestAllOfNoMapping(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("rules:\n"), &n); err != nil {
		t.Fatal(err)
	}
	d := &Decoder{Path: "c.yaml", Words: func(_ Issue, e *diag.Diagnostic) { e.Message = "not a mapping" }}
	f := d.Mapping(n.Content[0].Content[1], &Map{})
	if f != nil || len(f.All()) != 0 {
		t.Fatalf("Mapping(null) = %v, want nil with no entries", f)
	}
	if len(d.Diags) != 1 {
		t.Fatalf("Diags = %v, want one problem", d.Diags)
	}
}

// TestParseJSONDepth: arrays and objects nested past MaxJSONDepth are a
// positioned error, read without a node (and a stack frame) per level of
// the whole text; MaxJSONDepth levels themselves are read.
func TestParseJSONDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":[`, 1<<17) // 768 KiB, 262,144 levels
	var err error
	allocs := testing.AllocsPerRun(1, func() { _, err = ParseJSON([]byte(deep)) })
	var je *JSONError
	if !errors.As(err, &je) || je.Problem != JSONSyntax || je.Offset != 5*MaxJSONDepth/2+MaxJSONDepth/2 || !strings.Contains(err.Error(), "nested more than 10000 deep") {
		t.Errorf("ParseJSON(262,144 levels) = %v (%+v), want a JSONSyntax error at level %d", err, je, MaxJSONDepth)
	}
	if allocs > 40*MaxJSONDepth {
		t.Errorf("ParseJSON(262,144 levels) made %.0f allocations, want at most %d", allocs, 40*MaxJSONDepth)
	}
	ok := strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth)
	if _, err := ParseJSON([]byte(ok)); err != nil {
		t.Errorf("ParseJSON(%d levels) = %v, want it read", MaxJSONDepth, err)
	}
}

// TestParseJSONSyntaxPosition: a character the JSON grammar refuses is
// placed at that character, not where the token stream last stopped
// (before the colon and space that precede it).
func TestParseJSONSyntaxPosition(t *testing.T) {
	for _, tt := range []struct {
		src       string
		line, col int
	}{
		{`{"template": ka2}`, 1, 14},
		{"{\"a\": 1,\n  \"b\":  x}", 2, 9},
		{`[1, ?]`, 1, 5},
	} {
		_, err := ParseJSON([]byte(tt.src))
		var je *JSONError
		if !errors.As(err, &je) || je.Problem != JSONSyntax || je.Line != tt.line || je.Col != tt.col {
			t.Errorf("ParseJSON(%q) = %v (%+v), want a syntax error at %d:%d", tt.src, err, je, tt.line, tt.col)
		}
	}
}
