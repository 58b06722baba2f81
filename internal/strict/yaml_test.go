package strict

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/yamlerr"
)

var testYAMLWords = YAMLWords{Code: "syntax", Refused: "in: ", Syntax: "not valid YAML: ",
	Hint: diag.Fix("fix the syntax"), Block: diag.Fix("check the brackets")}

func TestParseYAML(t *testing.T) {
	offset := testYAMLWords
	offset.LineOffset, offset.LineStart = 1, true
	tests := []struct {
		name     string
		words    YAMLWords
		src      string
		wantRoot string // the root's value, or "" for a mapping
		wantNil  bool   // no document
		want     *diag.Diagnostic
	}{
		{name: "a mapping", words: testYAMLWords, src: "a: 1\n"},
		{name: "a scalar", words: testYAMLWords, src: "--- x\n", wantRoot: "x"},
		{name: "empty", words: testYAMLWords, src: "", wantNil: true},
		{name: "only comments", words: testYAMLWords, src: "# nothing\n", wantNil: true},
		{name: "a tag: Decode's position and hint", words: testYAMLWords, src: "a: !!str 1\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml", Line: 1, Col: 4}, Code: "syntax",
				Message: "in: YAML tag !!str is not allowed", Hint: diag.Fix("remove the tag and write the value as plain text")}},
		{name: "a tag, offset", words: offset, src: "a: 1\nb: !x 2\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml", Line: 3, Col: 4}, Code: "syntax",
				Message: "in: YAML tag !x is not allowed", Hint: diag.Fix("remove the tag and write the value as plain text")}},
		{name: "a scanner error: the line, no column", words: testYAMLWords, src: "a: 1\nb: \"open\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml", Line: 2}, Code: "syntax",
				Message: "not valid YAML: found unexpected end of stream", Hint: diag.Fix("fix the syntax")}},
		{name: "a parser error: the block hint", words: testYAMLWords, src: "a: 1\nb: [1, 2\nc: 3\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml", Line: 2}, Code: "syntax",
				Message: "not valid YAML: did not find expected ',' or ']'", Hint: diag.Fix("check the brackets")}},
		{name: "a parser error without a block hint", words: YAMLWords{Hint: diag.Fix("fix it")}, src: "b: [1, 2\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml", Line: 1}, Message: "did not find expected ',' or ']'", Hint: diag.Fix("fix it")}},
		{name: "a syntax error, offset, at the line's start", words: offset, src: "a: 1\nb: \"open\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml", Line: 3, Col: 1}, Code: "syntax",
				Message: "not valid YAML: found unexpected end of stream", Hint: diag.Fix("fix the syntax")}},
		{name: "no line named: none given, whatever the offset", words: offset, src: "a: \x01\n",
			want: &diag.Diagnostic{Pos: diag.Pos{Path: "f.yaml"}, Code: "syntax",
				Message: "not valid YAML: control characters are not allowed", Hint: diag.Fix("fix the syntax")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, got := ParseYAML("f.yaml", []byte(tt.src), tt.words)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("ParseYAML(%q) problem mismatch (-want +got):\n%s", tt.src, diff)
			}
			switch {
			case tt.want != nil:
				if root != nil {
					t.Errorf("ParseYAML(%q) root = %v with a problem", tt.src, root)
				}
			case tt.wantNil != (root == nil):
				t.Errorf("ParseYAML(%q) root = %v, want nil %v", tt.src, root, tt.wantNil)
			case root != nil && root.Value != tt.wantRoot:
				t.Errorf("ParseYAML(%q) root value = %q, want %q", tt.src, root.Value, tt.wantRoot)
			}
		})
	}
}

// FuzzParseYAML: ParseYAML never panics; it refuses exactly what
// yamlerr.Decode refuses, with one problem worded by the format, in the
// file, at most at the text's last line; and it answers the same twice.
func FuzzParseYAML(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: !!binary aGk=\n", "a: 1\n...\nb: 2\n", "a: [1\n", "a: \x01\n", "a:\n\tb: 1\n", "", "# c\n"} {
		f.Add([]byte(s))
	}
	w := testYAMLWords
	w.LineOffset, w.LineStart = 1, true
	f.Fuzz(func(t *testing.T, src []byte) {
		root, got := ParseYAML("f.yaml", src, w)
		_, err := yamlerr.Decode(src)
		if (err != nil) != (got != nil) || (got != nil && root != nil) {
			t.Fatalf("ParseYAML(%q) = %v, %v; Decode error %v", src, root, got, err)
		}
		if got == nil {
			return
		}
		// YAML also breaks lines at CR, NEL, LS and PS: count every break
		// (a CRLF twice) for a bound.
		lines := 1
		for _, br := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
			lines += bytes.Count(src, []byte(br))
		}
		if got.Path != "f.yaml" || got.Code != w.Code || got.Line < 0 || got.Line > lines+w.LineOffset || got.Hint.IsZero() ||
			!(strings.HasPrefix(got.Message, w.Refused) || strings.HasPrefix(got.Message, w.Syntax)) {
			t.Fatalf("ParseYAML(%q) problem = %#v", src, got)
		}
		if _, again := ParseYAML("f.yaml", src, w); cmp.Diff(got, again) != "" {
			t.Fatalf("ParseYAML(%q) answers differently twice: %v, then %v", src, got, again)
		}
	})
}
