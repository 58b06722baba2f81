package provenance_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
)

func TestDefaultPolicy(t *testing.T) {
	p := provenance.DefaultPolicy()
	if diff := cmp.Diff([]provenance.Kind{"instruction", "example", "evidence"}, p.Protected()); diff != "" {
		t.Errorf("Protected() mismatch (-want +got):\n%s", diff)
	}
	want := []provenance.Transition{
		{From: "tool_output", To: "evidence", Validators: []string{"non_empty", "tool_result_ok"}},
		{From: "evidence", To: "memory", Validators: []string{}},
	}
	if diff := cmp.Diff(want, p.Transitions()); diff != "" {
		t.Errorf("Transitions() mismatch (-want +got):\n%s", diff)
	}
	kinds, min := p.Wrapped()
	if diff := cmp.Diff([]provenance.Kind{"instruction"}, kinds); diff != "" || min != 20 {
		t.Errorf("Wrapped() = %v, %d", kinds, min)
	}
	if p.Name() != provenance.DefaultPolicyName || len(p.Digest()) != 64 {
		t.Errorf("Name() = %q, Digest() = %q", p.Name(), p.Digest())
	}
}

func TestPolicySources(t *testing.T) {
	p := mustPolicy(t, `
version: 1
protected: [instruction]
sources:
  "tool:*": [tool_output]
  tool:planner: [tool_output, memory]
  system: [instruction]
transitions: []
`)
	tests := []struct {
		source string
		want   []provenance.Kind
	}{
		{"tool:order_lookup", []provenance.Kind{"tool_output"}},
		{"tool:planner", []provenance.Kind{"memory", "tool_output"}}, // the exact rule wins
		{"system", []provenance.Kind{"instruction"}},
		{"user", nil},
		{"corpus:travel-v2", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, p.SourceTypes(tt.source)); diff != "" {
			t.Errorf("SourceTypes(%s) mismatch (-want +got):\n%s", tt.source, diff)
		}
	}
	if p.Allows("tool:order_lookup", "memory") || !p.Allows("tool:planner", "memory") {
		t.Error("Allows() disagrees with the rules")
	}
}

// TestPolicyRemote: what remote callers may ask for, from the default
// policy, a file without a remote section, and a file with its own.
func TestPolicyRemote(t *testing.T) {
	custom := mustPolicy(t, `
version: 1
protected: [instruction]
sources:
  tool:planner: [instruction]
transitions:
  - {from: tool_output, to: evidence}
remote:
  types: [instruction]
  sources: [tool:planner]
  promote: []
`)
	without := mustPolicy(t, "version: 1\nprotected: []\nsources: {}\ntransitions: [{from: tool_output, to: evidence}]\n")
	type check struct {
		kind   provenance.Kind
		source string
		to     provenance.Kind // a promotion when set
		ok     bool
	}
	tests := []struct {
		name   string
		policy *provenance.Policy
		checks []check
	}{
		{"default", provenance.DefaultPolicy(), []check{
			{kind: "instruction", source: "system"},
			{kind: "instruction", source: "tool:x"},
			{kind: "memory", source: "system"},
			{kind: "tool_output", source: "corpus:travel-v2"},
			{kind: "tool_output", source: "user"},
			{kind: "memory", source: "memory:prefs", ok: true},
			{kind: "tool_output", source: "tool:order_lookup", ok: true},
			{kind: "tool_output", source: "tool:x", to: "evidence", ok: true},
			{kind: "tool_output", source: "tool:x", to: "instruction"},
		}},
		{"no remote section", without, []check{
			{kind: "instruction", source: "system"},
			{kind: "memory", source: "memory:prefs", ok: true},
			{kind: "tool_output", source: "tool:x", to: "evidence", ok: true},
			{kind: "evidence", source: "tool:x", to: "memory"}, // no transition to memory
		}},
		{"own section", custom, []check{
			{kind: "instruction", source: "tool:planner", ok: true},
			{kind: "instruction", source: "tool:other"},
			{kind: "memory", source: "tool:planner"},
			{kind: "instruction", source: "tool:planner", to: "evidence"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range tt.checks {
				var err error
				if c.to != "" {
					err = tt.policy.CheckRemotePromote(c.kind, c.source, c.to)
				} else {
					err = tt.policy.CheckRemote(c.kind, c.source)
				}
				if c.ok != (err == nil) {
					t.Errorf("%+v: %v", c, err)
					continue
				}
				if err != nil && (!errors.Is(err, provenance.ErrRefused) || !errors.Is(err, provenance.ErrRemote) || provErr(t, err).Source != c.source) {
					t.Errorf("%+v: %v is not a remote refusal naming the source", c, err)
				}
			}
		})
	}
	if diff := cmp.Diff(provenance.Remote{Types: []provenance.Kind{"memory", "tool_output"}, Sources: []string{"memory:*", "tool:*"},
		Promote: []provenance.Kind{"memory", "evidence"}}, provenance.DefaultPolicy().Remote()); diff != "" {
		t.Errorf("Remote() mismatch (-want +got):\n%s", diff)
	}
}

func TestPolicyRoute(t *testing.T) {
	p := provenance.DefaultPolicy()
	tests := []struct {
		source string
		to     provenance.Kind
		want   []provenance.Kind
		ok     bool
	}{
		{"tool:x", "evidence", []provenance.Kind{"tool_output", "evidence"}, true},
		{"tool:x", "memory", []provenance.Kind{"tool_output", "evidence", "memory"}, true},
		{"memory:prefs", "memory", []provenance.Kind{"memory"}, true},
		{"corpus:a", "memory", []provenance.Kind{"evidence", "memory"}, true},
		{"memory:prefs", "evidence", nil, false},
		{"tool:x", "instruction", nil, false},
		{"user", "evidence", nil, false},
	}
	for _, tt := range tests {
		got, ok := p.Route(tt.source, tt.to)
		if ok != tt.ok {
			t.Errorf("Route(%s, %s) ok = %v, want %v", tt.source, tt.to, ok, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Route(%s, %s) mismatch (-want +got):\n%s", tt.source, tt.to, diff)
		}
	}
}

func TestParsePolicyErrors(t *testing.T) {
	const base = "version: 1\nprotected: [instruction]\nsources:\n  system: [instruction]\ntransitions: []\n"
	tests := []struct {
		name     string
		yaml     string
		wantLine int
		wantCol  int
		wantMsg  string
	}{
		{"empty", "", 0, 0, "the policy file is empty"},
		{"not YAML", "version: [1", 1, 0, "did not find expected"},
		{"two documents", base + "---\nversion: 1\n", 6, 1, "a second YAML document starts here"},
		{"a document end line", base + "...\nwrapped: {types: [instruction], min_codepoints: 5}\n", 6, 1, "a YAML document end line '...'"},
		{"a tag", strings.Replace(base, "version: 1", "version: !!str 1", 1), 1, 10, "YAML tag !!str is not allowed"},
		{"not a mapping", "- a\n", 1, 1, "the policy must be a mapping"},
		{"unknown key", base + "protect: [memory]\n", 6, 1, `unknown key "protect"`},
		{"missing key", "version: 1\nprotected: []\nsources: {}\n", 1, 1, `no "transitions" key`},
		{"bad version", strings.Replace(base, "version: 1", "version: 2", 1), 1, 10, `version "2" is not supported`},
		{"unknown type", strings.Replace(base, "protected: [instruction]", "protected: [instruction, evidnce]", 1), 2, 26, `"evidnce" is not a context type`},
		{"type twice", strings.Replace(base, "protected: [instruction]", "protected: [memory, memory]", 1), 2, 21, `"memory" is listed twice`},
		{"bad source", strings.Replace(base, "  system:", "  robot:", 1), 4, 3, `source "robot"`},
		{"bad pattern", strings.Replace(base, "  system:", `  "web:*":`, 1), 4, 3, `"web:*" is not a source pattern`},
		{"transition to itself", strings.Replace(base, "transitions: []", "transitions:\n  - {from: memory, to: memory}", 1), 6, 5, "memory → memory changes nothing"},
		{"transition twice", strings.Replace(base, "transitions: []", "transitions:\n  - {from: evidence, to: memory}\n  - {from: evidence, to: memory}", 1), 7, 5, "listed twice"},
		{"transition without to", strings.Replace(base, "transitions: []", "transitions:\n  - {from: evidence}", 1), 6, 5, `has no "to"`},
		{"unknown check", strings.Replace(base, "transitions: []", "transitions:\n  - from: tool_output\n    to: evidence\n    validate:\n      - check: looks_fine", 1), 9, 16, `unknown check "looks_fine"`},
		{"unknown validator key", strings.Replace(base, "transitions: []", "transitions:\n  - from: tool_output\n    to: evidence\n    validate:\n      - check: non_empty\n        markers: [x]", 1), 10, 9, `unknown key "markers"`},
		{"limit missing", strings.Replace(base, "transitions: []", "transitions:\n  - from: tool_output\n    to: evidence\n    validate:\n      - check: max_codepoints", 1), 9, 9, "needs a limit"},
		{"bad limit", strings.Replace(base, "transitions: []", "transitions:\n  - from: tool_output\n    to: evidence\n    validate:\n      - check: max_codepoints\n        limit: -3", 1), 10, 16, "at least 1"},
		{"bad min_codepoints", base + "wrapped: {types: [instruction], min_codepoints: 0}\n", 6, 49, "at least 1"},
		{"alias", "version: 1\nprotected: &p [instruction]\nsources:\n  system: *p\ntransitions: []\n", 4, 11, "aliases are not supported"},
		{"remote not a mapping", base + "remote: [memory]\n", 6, 9, "remote must be a mapping"},
		{"remote unknown key", base + "remote:\n  types: []\n  sources: []\n  promote: []\n  extra: 1\n", 10, 3, `remote: unknown key "extra"`},
		{"remote missing key", base + "remote:\n  types: []\n  sources: []\n", 7, 3, `remote has no "promote" key`},
		{"remote types not a list", base + "remote:\n  types: memory\n  sources: []\n  promote: []\n", 7, 10, "remote.types must be a list"},
		{"remote unknown type", base + "remote:\n  types: [memroy]\n  sources: []\n  promote: []\n", 7, 11, `"memroy" is not a context type`},
		{"remote evidence", base + "remote:\n  types: [memory, evidence]\n  sources: []\n  promote: []\n", 7, 19, "a request may add only instruction, memory, tool_output items"},
		{"remote bad source", base + "remote:\n  types: []\n  sources: [robot]\n  promote: []\n", 8, 13, `source "robot"`},
		{"remote bad pattern", base + "remote:\n  types: []\n  sources: [\"web:*\"]\n  promote: []\n", 8, 13, `"web:*" is not a source pattern`},
		{"remote source twice", base + "remote:\n  types: []\n  sources: [\"tool:*\", \"tool:*\"]\n  promote: []\n", 8, 23, `"tool:*" is listed twice`},
		{"remote promote without transition", base + "remote:\n  types: []\n  sources: []\n  promote: [evidence]\n", 9, 13, "no transition of the policy leads to evidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provenance.ParsePolicy("policy.yaml", []byte(tt.yaml))
			if !errors.Is(err, provenance.ErrPolicy) {
				t.Fatalf("ParsePolicy() = %v, want a policy error", err)
			}
			pe := provErr(t, err)
			if pe.Line != tt.wantLine || pe.Col != tt.wantCol || !strings.Contains(pe.Message, tt.wantMsg) || pe.Path != "policy.yaml" {
				t.Errorf("ParsePolicy() = %v (line %d col %d), want %d:%d %q", err, pe.Line, pe.Col, tt.wantLine, tt.wantCol, tt.wantMsg)
			}
		})
	}
	// The base parses.
	if _, err := provenance.ParsePolicy("policy.yaml", []byte(base)); err != nil {
		t.Fatalf("base policy: %v", err)
	}
}

// TestPolicyValidatorsConfigured: validators come from the file, and a
// transition without any passes everything it allows.
func TestPolicyValidatorsConfigured(t *testing.T) {
	p := mustPolicy(t, `
version: 1
protected: [evidence]
sources:
  "tool:*": [tool_output]
transitions:
  - from: tool_output
    to: evidence
    validate:
      - check: tool_result_ok
        markers: [rejected]
      - check: max_codepoints
        limit: 30
`)
	tests := []struct {
		text string
		want diag.Code
	}{
		{"Status: failed.", ""}, // "failed" is not a marker here
		{"Payment rejected.", provenance.CodeValidation},
		{`{"status":"pending"}`, provenance.CodeValidation}, // not a default OK status
		{"A result that is much longer than thirty code points.", provenance.CodeValidation},
	}
	for _, tt := range tests {
		s := provenance.NewStore(p)
		it := add(t, s, provenance.KindToolOutput, "tool:x", tt.text)
		_, err := s.Transform(it, provenance.KindEvidence)
		var got diag.Code
		if err != nil {
			got = provErr(t, err).Code
		}
		if got != tt.want {
			t.Errorf("Transform(%q) = %v, want code %q", tt.text, err, tt.want)
		}
	}
}

// TestPolicyFixturesParse: every policy file under testdata parses.
func TestPolicyFixturesParse(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := provenance.ParsePolicy(f, data); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// TestParsePolicyEveryProblem: the policy parser reports every problem in
// the file, in the order of their positions, not only the first.
func TestParsePolicyEveryProblem(t *testing.T) {
	src := "version: 2\nprotected: [evidnce]\nsources:\n  robot: [memory]\n  system: [instruction]\n  system: [memory]\ntransitions:\n  - {from: memory}\n  - {from: memory, to: memory}\nremote: {types: [], sources: []}\n"
	_, err := provenance.ParsePolicy("p.yaml", []byte(src))
	want := []string{
		`p.yaml:1:10: version "2" is not supported; write version: 1`,
		`p.yaml:2:13: protected: "evidnce" is not a context type`,
		`p.yaml:4:3: sources: source "robot"`,
		`p.yaml:6:3: sources: key "system" repeats line 5; keep one`,
		`p.yaml:8:5: transitions[0] has no "to"`,
		`p.yaml:9:5: transitions[1]: memory → memory changes nothing`,
		`p.yaml:10:9: remote has no "promote" key; write [] to grant none`,
	}
	got := strings.Split(fmt.Sprint(err), "\n")
	if len(got) != len(want) {
		t.Fatalf("ParsePolicy() =\n%v\nwant %d problems", err, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
	if !errors.Is(err, provenance.ErrPolicy) {
		t.Errorf("errors.Is(%v, ErrPolicy) = false", err)
	}
	if pe := provErr(t, err); pe.Line != 1 || pe.Code != provenance.CodePolicy {
		t.Errorf("errors.As finds %v, want the first problem", pe)
	}
}
