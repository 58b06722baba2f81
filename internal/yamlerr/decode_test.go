package yamlerr

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantLine  int // 0: no *Error
		wantCol   int
		wantMsg   string
		wantYAML  bool // a yaml.v3 syntax error
		wantEmpty bool
	}{
		{name: "one document", src: "a: 1\nb: [x, y]\n"},
		{name: "a leading document start", src: "# c\n---\na: 1\n"},
		{name: "a directive and a document start", src: "%YAML 1.1\n---\na: 1\n"},
		{name: "a document start with content", src: "--- x\n"},
		{name: "empty", src: "", wantEmpty: true},
		{name: "only comments", src: "# nothing\n", wantEmpty: true},
		{name: "document end drops what follows", src: "a: 1\n...\nb: 2\n", wantLine: 2, wantCol: 1, wantMsg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored"},
		{name: "document end with a comment", src: "a: 1\n... # end\nb: not: yaml\n", wantLine: 2, wantCol: 1, wantMsg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored"},
		{name: "document end at the very end", src: "a: 1\n...", wantLine: 2, wantCol: 1, wantMsg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored"},
		{name: "document end after a block scalar", src: "a: |\n  x\n...\nb: 2\n", wantLine: 3, wantCol: 1, wantMsg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored"},
		{name: "document end after CR line breaks", src: "a: 1\r...\rb: 2\r", wantLine: 2, wantCol: 1, wantMsg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored"},
		{name: "document end after a BOM", src: "\ufeffa: 1\n...\n", wantLine: 2, wantCol: 1, wantMsg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored"},
		{name: "a second document", src: "a: 1\n---\nb: 2\n", wantLine: 2, wantCol: 1, wantMsg: "a second YAML document starts here"},
		{name: "a second document after a leading start", src: "---\na: 1\n--- \nb: 2\n", wantLine: 3, wantCol: 1, wantMsg: "a second YAML document starts here"},
		{name: "dots inside a value are no marker", src: "a: x...\nb: '...'\nc: ----\nd: ...x\n"},
		{name: "a line starting with dots that is no marker", src: "a: |\n  ....\n"},
		{name: "binary tag", src: "a: 1\nb: !!binary aGk=\n", wantLine: 2, wantCol: 4, wantMsg: "YAML tag !!binary is not allowed"},
		{name: "str tag", src: "version: !!str 1\n", wantLine: 1, wantCol: 10, wantMsg: "YAML tag !!str is not allowed"},
		{name: "custom tag in a list", src: "a: [x, !foo y]\n", wantLine: 1, wantCol: 8, wantMsg: "YAML tag !foo is not allowed"},
		{name: "tag on a mapping", src: "a: !!map {x: 1}\n", wantLine: 1, wantCol: 4, wantMsg: "YAML tag !!map is not allowed"},
		{name: "the earlier problem first", src: "a: !x 1\n...\n", wantLine: 1, wantCol: 4, wantMsg: "YAML tag !x is not allowed"},
		{name: "syntax error", src: "a: [1\n", wantYAML: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Decode([]byte(tt.src))
			var e *Error
			switch {
			case tt.wantYAML:
				if err == nil || errors.As(err, &e) {
					t.Fatalf("Decode(%q) = %v, want a yaml.v3 error", tt.src, err)
				}
			case tt.wantLine > 0:
				if !errors.As(err, &e) {
					t.Fatalf("Decode(%q) = %v, want an *Error", tt.src, err)
				}
				if e.Line != tt.wantLine || e.Col != tt.wantCol || e.Msg != tt.wantMsg || e.Hint == "" {
					t.Errorf("Decode(%q) = %d:%d %q (hint %q), want %d:%d %q", tt.src, e.Line, e.Col, e.Msg, e.Hint, tt.wantLine, tt.wantCol, tt.wantMsg)
				}
			case err != nil:
				t.Fatalf("Decode(%q) = %v", tt.src, err)
			case tt.wantEmpty != (doc.Kind == 0):
				t.Errorf("Decode(%q) kind = %v, want empty %v", tt.src, doc.Kind, tt.wantEmpty)
			case !tt.wantEmpty && doc.Kind != yaml.DocumentNode:
				t.Errorf("Decode(%q) kind = %v, want a document", tt.src, doc.Kind)
			}
		})
	}
}

// FuzzDecode: Decode never panics, and whatever it accepts is one whole
// document that yaml.v3 reads to the same nodes.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: 1\n...\nb: 2\n", "---\na: 1\n---\n", "a: !!binary aGk=\n", "a: |\n  ...\n", "a: 1\r...\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := Decode(src)
		if err != nil {
			return
		}
		var want yaml.Node
		if err := yaml.Unmarshal(src, &want); err != nil {
			t.Fatalf("Decode(%q) accepted what yaml.Unmarshal refuses: %v", src, err)
		}
		if doc.Kind != want.Kind || len(doc.Content) != len(want.Content) {
			t.Fatalf("Decode(%q) = kind %v with %d children, yaml.Unmarshal kind %v with %d", src, doc.Kind, len(doc.Content), want.Kind, len(want.Content))
		}
		dec := yaml.NewDecoder(bytes.NewReader(src))
		var first, second yaml.Node
		if err := dec.Decode(&first); err == nil {
			if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
				t.Fatalf("Decode(%q) accepted a stream with more after the first document: %v", src, err)
			}
		}
	})
}
