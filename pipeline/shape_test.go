package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
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

// TestChapters: every check code is snake_case and has its own chapter
// number, C-001 to C-012 in the order of the format's documentation, and
// a diagnostic's message starts with it while its code stays the name.
func TestChapters(t *testing.T) {
	codes := []diag.Code{CodeSyntax, CodeUnknownProtocol, CodeUnknownStage, CodeIncompatible, CodeUnknownInherit, CodeBadEndpoint,
		CodeSharedUnwritten, CodeNoUpstream, CodeBadRunner, CodeBadValue, CodeDuplicate, CodeUnusedStage}
	if len(codes) != len(chapters) {
		t.Fatalf("%d codes listed here, %d with a chapter", len(codes), len(chapters))
	}
	for i, c := range codes {
		if want := fmt.Sprintf("C-%03d", i+1); Chapter(c) != want {
			t.Errorf("Chapter(%s) = %q, want %q", c, Chapter(c), want)
		}
	}
	if got := Chapter("C-004"); got != "" {
		t.Errorf(`Chapter("C-004") = %q, want "": the chapter is no code`, got)
	}
	p := parseString(t, "p.yaml", "stages: {a: {uses: ka2.build}}\nflow: a >> b\n")
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, string(d.Code)+" | "+d.Message)
	}
	want := []string{"unknown_stage | C-003: the flow names unknown stage 'b'"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse() diagnostics mismatch (-want +got):\n%s", diff)
	}
}
