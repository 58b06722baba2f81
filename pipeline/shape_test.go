package pipeline

import (
	"strings"
	"testing"
)

// TestParseShapeProblems: the structural problems the strict decoder finds
// in a pipeline file are worded in the pipeline's voice, each at its node.
func TestParseShapeProblems(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no stages", "flow: a\n", "p.yaml:1:1: C-001: missing key 'stages'\n\tSuggestion: Add stages: with at least one stage"},
		{"no flow", "stages: {a: {uses: ka2.build}}\n", "p.yaml:1:1: C-001: missing key 'flow'\n\tSuggestion: Add a flow naming the stages in order"},
		{"top level not a mapping", "[a, b]\n", "p.yaml:1:1: C-001: the top level must be a mapping, not a list"},
		{"a key that is a list", "stages: {a: {uses: ka2.build}}\nflow: a\n[x]: y\n", "p.yaml:3:1: C-001: a key in the top level is a list, not a name"},
		{"a stage not a mapping", "stages: {a: 3}\nflow: a\n", `p.yaml:1:13: C-001: stage 'a' must be a mapping, not "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("p.yaml", []byte(tt.src), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := diagnosticsText(p.Diagnostics)
			if !strings.Contains(got, tt.want) {
				t.Errorf("Parse(%q) diagnostics:\n%s\nwant one starting %q", tt.src, got, tt.want)
			}
		})
	}
}
