package yamlerr

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		wantLine int
		wantMsg  string
	}{
		{"scanner error", "a: 1\nb: \"open\n", 2, "found unexpected end of stream"},
		{"parser error, corrected to the line of the open bracket", "a: 1\nb: [1, 2\nc: 3\n", 2, "did not find expected ',' or ']'"},
		{"the end of the text is its last line", "rules: [\n", 1, "did not find expected node content"},
		{"tab indentation", "a:\n\tb: 1\n", 2, "found character that cannot start any token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(tt.doc), &n)
			if err == nil {
				t.Fatal("want a YAML error")
			}
			line, msg := Locate(err, []byte(tt.doc))
			if line != tt.wantLine || msg != tt.wantMsg {
				t.Errorf("Locate(%q) = %d, %q; want %d, %q", err, line, msg, tt.wantLine, tt.wantMsg)
			}
		})
	}
}
