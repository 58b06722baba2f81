package contract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/provenance"
)

// minimalDefinition and minimalContent are the smallest definition and
// content file ka2 assembles a contract with; each case below changes one
// thing in one of them.
const (
	minimalDefinition = `{
  "template": "t",
  "content": "c.yaml",
  "fields": [
    {"name": "template", "context_type": "constant", "required": true},
    {"name": "instruction", "context_type": "instruction"},
    {"name": "example", "context_type": "example"},
    {"name": "evidence", "context_type": "evidence"},
    {"name": "question", "context_type": "question"}
  ],
  "rules": {"order": ["valid_from"]},
  "budget": {"default_counter": "codepoint", "counters": {"codepoint": {"capacity": 100, "reserve": 10}}},
  "output_schema": {"type": "object", "properties": {"template": {"const": "t"}}}
}
`
	minimalContent = `en:
  instruction: Answer from the evidence.
  example:
    question: Q?
    answer: A [a:1]
  refusals: [cannot answer]
`
)

// definitionProblemTests are definitions with problems, and every problem
// ParseDefinition reports, as "file:line:col: message; hint [code]".
// FuzzParseDefinition is seeded with them.
var definitionProblemTests = []struct {
	name    string
	def     string // "" is minimalDefinition
	content string // "" is minimalContent
	want    []string
}{
	// The definition file.
	{name: "duplicate key", def: edit(minimalDefinition, `"template": "t",`, `"template": "t", "template": "evil",`), want: []string{
		`ka2-context-contract-v1.json:2:20: contract definition: key "template" repeats line 2; keep one [definition_duplicate_key]`}},
	{name: "duplicate key inside the schema", def: edit(minimalDefinition, `{"const": "t"}`, `{"const": "t", "const": "u"}`), want: []string{
		`ka2-context-contract-v1.json:13:81: contract definition: output_schema.properties.template: key "const" repeats line 13; keep one [definition_duplicate_key]`}},
	{name: "duplicate key inside the rules", def: edit(minimalDefinition, `"rules": {"order"`, `"rules": {"order": 1, "order"`), want: []string{
		`ka2-context-contract-v1.json:11:25: contract definition: rules: key "order" repeats line 11; keep one [definition_duplicate_key]`}},
	{name: "unknown key", def: edit(minimalDefinition, `"template": "t"`, `"templat": "t"`), want: []string{
		`ka2-context-contract-v1.json:2:3: contract definition: unknown key "templat"; did you mean template? [definition_unknown_key]`}},
	{name: "unknown key of a field", def: edit(minimalDefinition, `"question", "context_type"`, `"question", "contexttype"`), want: []string{
		`ka2-context-contract-v1.json:9:26: contract definition: fields[4]: unknown key "contexttype"; did you mean context_type? [definition_unknown_key]`}},
	{name: "unknown key far from every key", def: edit(minimalDefinition, `"rules"`, `"zzzzzzzzzz"`), want: []string{
		`ka2-context-contract-v1.json:11:3: contract definition: unknown key "zzzzzzzzzz"; the keys are template, description, content, fields, rules, budget, output_schema [definition_unknown_key]`}},
	{name: "wrong kind", def: edit(minimalDefinition, `"counters": {"codepoint": {"capacity": 100, "reserve": 10}}`, `"counters": []`), want: []string{
		`ka2-context-contract-v1.json:12:58: contract definition: budget.counters must be a JSON object, not a JSON array [definition_bad_value]`}},
	{name: "wrong JSON type", def: edit(minimalDefinition, `"capacity": 100`, `"capacity": "100"`), want: []string{
		`ka2-context-contract-v1.json:12:85: contract definition: budget.counters.codepoint.capacity must be a whole number, not a JSON string; write a whole number [definition_bad_value]`}},
	{name: "not a whole number", def: edit(minimalDefinition, `"reserve": 10`, `"reserve": 1e1`), want: []string{
		`ka2-context-contract-v1.json:12:101: contract definition: budget.counters.codepoint.reserve must be a whole number, not a JSON number 1e1; write a whole number [definition_bad_value]`}},
	{name: "template not a string", def: edit(minimalDefinition, `"template": "t",`, `"template": ["t"],`), want: []string{
		`ka2-context-contract-v1.json:2:15: contract definition: template must be a JSON string, not a JSON array; write a JSON string [definition_bad_value]`}},
	{name: "not an object", def: `["template"]`, want: []string{
		`ka2-context-contract-v1.json:1:1: contract definition: the file must be a JSON object, not a JSON array [definition_bad_value]`}},
	{name: "missing key", def: edit(minimalDefinition, `"default_counter": "codepoint", `, ``), want: []string{
		`ka2-context-contract-v1.json:12:13: contract definition: budget: no "default_counter" key; add "default_counter" [definition_missing_key]`}},
	{name: "missing template", def: edit(minimalDefinition, `"template": "t",`, ``), want: []string{
		`ka2-context-contract-v1.json:1:1: contract definition: no "template" key; add "template" [definition_missing_key]`}},
	{name: "empty template", def: edit(minimalDefinition, `"template": "t",`, `"template": null,`), want: []string{
		`ka2-context-contract-v1.json:2:15: contract definition: template is empty; write the template id, such as ka2-context-v1 [definition_bad_value]`}},
	{name: "fields: every problem", def: edit(edit(edit(minimalDefinition,
		`"question", "context_type": "question"`, `"question", "context_type": "questoin"`),
		`"evidence", "context_type": "evidence"`, `"template", "context_type": "evidence"`),
		`"example", "context_type": "example"`, `"example", "context_type": "constant"`), want: []string{
		`ka2-context-contract-v1.json:7:41: contract definition: fields[2]: only the template field is constant; give it an item context type, such as instruction [definition_bad_value]`,
		`ka2-context-contract-v1.json:8:14: contract definition: fields[3]: name "template" repeats line 5; give each field its own name [definition_bad_value]`,
		`ka2-context-contract-v1.json:9:42: contract definition: fields[4]: unknown context_type "questoin"; did you mean question? [definition_bad_value]`}},
	{name: "no question field", def: edit(minimalDefinition, `,
    {"name": "question", "context_type": "question"}`, ``), want: []string{
		`ka2-context-contract-v1.json:4:3: contract definition: no field has context_type question; add a field with context_type question [definition_missing_key]`}},
	{name: "counters", def: edit(minimalDefinition, `"counters": {"codepoint": {"capacity": 100, "reserve": 10}}`,
		`"counters": {"codepoin": {"capacity": 100}, "o200k_base": {"capacity": 0}}`), want: []string{
		`ka2-context-contract-v1.json:12:33: contract definition: budget: default_counter "codepoint" has no limits; give it limits under budget.counters, or name a counter that has them [definition_bad_value]`,
		`ka2-context-contract-v1.json:12:59: contract definition: budget.counters: unknown counter "codepoin"; did you mean codepoint? [definition_bad_value]`,
		`ka2-context-contract-v1.json:12:117: contract definition: budget.counters.o200k_base: capacity 0 is out of range 1..100000000; write a capacity from 1 to 100000000 [definition_bad_value]`}},
	{name: "not JSON", def: "{\n  \"template\": }", want: []string{
		`ka2-context-contract-v1.json:2:15: contract definition: invalid JSON: invalid character '}' looking for beginning of value; fix the JSON syntax [definition_syntax]`}},
	{name: "ends early", def: "{\n  \"template\": \"t\"", want: []string{
		`ka2-context-contract-v1.json:2:18: contract definition: the JSON text ends early; close every { and [ [definition_syntax]`}},
	{name: "more after the object", def: minimalDefinition + "{}", want: []string{
		`ka2-context-contract-v1.json:15:1: contract definition: there is more after the JSON value; keep one JSON object in the file [definition_syntax]`}},
	{name: "invalid text", def: edit(minimalDefinition, `"template": "t"`, "\"template\": \"t\xff\""), want: []string{
		`ka2-context-contract-v1.json:2:17: contract definition: template: invalid text: invalid UTF-8 byte 0xff; encode the text as UTF-8 [definition_syntax]`}},

	// The content file.
	{name: "content: duplicate language", content: minimalContent + "en:\n  instruction: again\n", want: []string{
		`ka2-context-content-v1.yaml:7:1: contract content: key "en" repeats line 1; keep one [definition_duplicate_key]`}},
	{name: "content: duplicate key", content: edit(minimalContent, "  example:", "  instruction: again\n  example:"), want: []string{
		`ka2-context-content-v1.yaml:3:3: contract content: en: key "instruction" repeats line 2; keep one [definition_duplicate_key]`}},
	{name: "content: unknown key", content: edit(minimalContent, "refusals:", "refusal:"), want: []string{
		`ka2-context-content-v1.yaml:6:3: contract content: en: unknown key "refusal"; did you mean refusals? [definition_unknown_key]`}},
	{name: "content: misspelt required key", content: edit(minimalContent, "instruction:", "instrucion:"), want: []string{
		`ka2-context-content-v1.yaml:2:3: contract content: en: unknown key "instrucion"; did you mean instruction? [definition_unknown_key]`}},
	{name: "content: wrong kind", content: edit(minimalContent, "  example:\n    question: Q?\n    answer: A [a:1]", "  example: Q? A"), want: []string{
		`ka2-context-content-v1.yaml:3:12: contract content: en.example must be a mapping, not a single value [definition_bad_value]`}},
	{name: "content: missing key", content: edit(minimalContent, "    answer: A [a:1]\n", ""), want: []string{
		`ka2-context-content-v1.yaml:4:5: contract content: en.example: no "answer" key; add "answer" [definition_missing_key]`}},
	{name: "content: empty texts", content: edit(edit(minimalContent, "Answer from the evidence.", `""`), "[cannot answer]", `[cannot answer, ""]`), want: []string{
		`ka2-context-content-v1.yaml:2:16: contract content: en.instruction is empty; write the text [definition_bad_value]`,
		`ka2-context-content-v1.yaml:6:29: contract content: en.refusals[1] is empty; remove it: an empty phrase would make every answer a refusal [definition_bad_value]`}},
	{name: "content: a refusal is a list", content: edit(minimalContent, "[cannot answer]", "[[cannot answer]]"), want: []string{
		`ka2-context-content-v1.yaml:6:14: contract content: en.refusals[0] must be a single value, not a list; write each phrase as a single line of text [definition_bad_value]`}},
	{name: "content: a language without texts", content: minimalContent + "zh:\n", want: []string{
		`ka2-context-content-v1.yaml:7:4: contract content: zh is empty; write its instruction and example, or remove it [definition_bad_value]`}},
	{name: "content: no language", content: "# nothing yet\n", want: []string{
		`ka2-context-content-v1.yaml: contract content: no language; write one mapping per language, such as en:, with its instruction and example [definition_missing_key]`}},
	{name: "content: not a mapping", content: "- en\n", want: []string{
		`ka2-context-content-v1.yaml:1:1: contract content: the file must be a mapping, not a list [definition_bad_value]`}},
	{name: "content: not YAML", content: "en: [\n", want: []string{
		`ka2-context-content-v1.yaml:1: contract content: not valid YAML: did not find expected node content; fix the YAML syntax [definition_syntax]`}},

	// Both files: every problem, sorted by file.
	{name: "both files", def: edit(minimalDefinition, `"rules"`, `"rule"`), content: edit(minimalContent, "refusals:", "refusal:"), want: []string{
		`ka2-context-content-v1.yaml:6:3: contract content: en: unknown key "refusal"; did you mean refusals? [definition_unknown_key]`,
		`ka2-context-contract-v1.json:11:3: contract definition: unknown key "rule"; did you mean rules? [definition_unknown_key]`}},
}

// edit replaces the one old in s with new, so that a case says what it
// changes.
func edit(s, old, new string) string {
	if strings.Count(s, old) != 1 {
		panic(fmt.Sprintf("edit: %q is not in the text once", old))
	}
	return strings.Replace(s, old, new, 1)
}

// problems lists err's diagnostics as the table writes them.
func problems(err error) []string {
	var out []string
	for _, d := range diag.As(err) {
		out = append(out, fmt.Sprintf("%s [%s]", d.Error(), d.Code))
	}
	return out
}

func TestParseDefinitionProblems(t *testing.T) {
	for _, tt := range definitionProblemTests {
		t.Run(tt.name, func(t *testing.T) {
			def, content := cmpOr(tt.def, minimalDefinition), cmpOr(tt.content, minimalContent)
			d, err := contract.ParseDefinition([]byte(def), []byte(content))
			if err == nil {
				t.Fatalf("ParseDefinition() = %+v, want problems", d)
			}
			var list diag.List
			if !errors.As(err, &list) {
				t.Errorf("ParseDefinition() error is %T, want a diag.List", err)
			}
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Errorf("ParseDefinition() problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestParseDefinitionMinimal(t *testing.T) {
	d, err := contract.ParseDefinition([]byte(minimalDefinition), []byte(minimalContent))
	if err != nil {
		t.Fatal(err)
	}
	want := &contract.Definition{
		Template:    "t",
		ContentFile: "c.yaml",
		Fields: []contract.Field{{Name: "template", ContextType: "constant", Required: true}, {Name: "instruction", ContextType: "instruction"},
			{Name: "example", ContextType: "example"}, {Name: "evidence", ContextType: "evidence"}, {Name: "question", ContextType: "question"}},
		Rules:  json.RawMessage(`{"order": ["valid_from"]}`),
		Budget: contract.BudgetDefaults{DefaultCounter: "codepoint", Counters: map[string]budget.Limits{"codepoint": {Capacity: 100, Reserve: 10}}},
		Schema: json.RawMessage(`{"type": "object", "properties": {"template": {"const": "t"}}}`),
		Content: map[string]contract.Content{"en": {Instruction: "Answer from the evidence.",
			Example: provenance.Example{Question: "Q?", Answer: "A [a:1]"}, Refusals: []string{"cannot answer"}}},
	}
	if diff := cmp.Diff(want, d, cmpopts.IgnoreUnexported(contract.Definition{})); diff != "" {
		t.Errorf("ParseDefinition() mismatch (-want +got):\n%s", diff)
	}
}

// TestLoadDefinitionNamesFiles checks that LoadDefinition names each file
// by its path, and reads the content file the definition names.
func TestLoadDefinitionNamesFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, text)
		return p
	}
	write("c.yaml", minimalContent)
	write("typo.yaml", edit(minimalContent, "refusals:", "refusal:"))
	slash := filepath.ToSlash(dir)
	tests := []struct {
		name, def string
		want      []string // problems; nil: the definition loads
		wantErr   string   // an error that is not a problem of the files
	}{
		{name: "loads", def: minimalDefinition},
		{name: "content problem", def: edit(minimalDefinition, "c.yaml", "typo.yaml"), want: []string{
			slash + `/typo.yaml:6:3: contract content: en: unknown key "refusal"; did you mean refusals? [definition_unknown_key]`}},
		{name: "no content named", def: edit(minimalDefinition, `"content": "c.yaml",`, ``), want: []string{
			slash + `/def.json:1:1: contract definition: no content file named in "content"; name the content file beside it, such as "content": "ka2-context-content-v1.yaml" [definition_missing_key]`}},
		{name: "content empty", def: edit(minimalDefinition, `"content": "c.yaml"`, `"content": ""`), want: []string{
			slash + `/def.json:3:14: contract definition: no content file named in "content"; name the content file beside it, such as "content": "ka2-context-content-v1.yaml" [definition_missing_key]`}},
		{name: "content not a string", def: edit(minimalDefinition, `"content": "c.yaml"`, `"content": 1`), want: []string{
			slash + `/def.json:3:14: contract definition: content must be a JSON string, not a JSON number 1; write a JSON string [definition_bad_value]`}},
		{name: "definition and content problems", def: edit(edit(minimalDefinition, "c.yaml", "typo.yaml"), `"rules"`, `"rule"`), want: []string{
			slash + `/def.json:11:3: contract definition: unknown key "rule"; did you mean rules? [definition_unknown_key]`,
			slash + `/typo.yaml:6:3: contract content: en: unknown key "refusal"; did you mean refusals? [definition_unknown_key]`}},
		{name: "content file missing", def: edit(minimalDefinition, "c.yaml", "none.yaml"), wantErr: "read contract content: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := contract.LoadDefinition(write("def.json", tt.def))
			switch {
			case tt.want == nil && tt.wantErr == "":
				if err != nil || d.Template != "t" || d.Content["en"].Instruction == "" {
					t.Fatalf("LoadDefinition() = %+v, %v; want the definition", d, err)
				}
				return
			case tt.wantErr != "":
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("LoadDefinition() error = %v, want %s…", err, tt.wantErr)
				}
			default:
				if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
					t.Errorf("LoadDefinition() problems mismatch (-want +got):\n%s", diff)
				}
			}
			var ce *contract.ConfigError
			if !errors.As(err, &ce) || ce.Setting != contract.SettingContract {
				t.Errorf("LoadDefinition() error = %#v, want a contract ConfigError", err)
			}
		})
	}
}

// FuzzParseDefinition checks that ParseDefinition never panics, reports
// every problem in one of its two files with a code, and accepts only what
// encoding/json (refusing unknown fields) and yaml.v3 read the same way.
func FuzzParseDefinition(f *testing.F) {
	f.Add(ka2.ContractJSON, ka2.ContentYAML)
	f.Add([]byte(minimalDefinition), []byte(minimalContent))
	for _, tt := range definitionProblemTests {
		f.Add([]byte(cmpOr(tt.def, minimalDefinition)), []byte(cmpOr(tt.content, minimalContent)))
	}
	f.Fuzz(func(t *testing.T, defJSON, contentYAML []byte) {
		d, err := contract.ParseDefinition(defJSON, contentYAML)
		d2, err2 := contract.ParseDefinition(defJSON, contentYAML)
		if fmt.Sprint(err) != fmt.Sprint(err2) || (d == nil) != (d2 == nil) {
			t.Fatalf("ParseDefinition() twice: %v, then %v", err, err2)
		}
		if err != nil {
			list := diag.As(err)
			if len(list) == 0 {
				t.Fatalf("ParseDefinition() error %v holds no diagnostic", err)
			}
			for _, p := range list {
				if (p.Path != ka2.ContractFile && p.Path != ka2.ContentFile) || p.Code == "" || p.Message == "" {
					t.Errorf("problem %+v names no file of the definition, or has no code", p)
				}
			}
			return
		}
		// What is accepted reads the same through the decoders that read
		// definitions before: no key was dropped or taken twice.
		var old contract.Definition
		dec := json.NewDecoder(bytes.NewReader(defJSON))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&old); err != nil {
			t.Fatalf("ParseDefinition() accepts a definition encoding/json refuses: %v", err)
		}
		if err := yaml.Unmarshal(contentYAML, &old.Content); err != nil {
			t.Fatalf("ParseDefinition() accepts content yaml.v3 refuses: %v", err)
		}
		opts := cmp.Options{cmpopts.IgnoreUnexported(contract.Definition{}), cmpopts.EquateEmpty(), cmp.Transformer("raw", func(r json.RawMessage) string { return string(r) })}
		if diff := cmp.Diff(&old, d, opts); diff != "" {
			t.Errorf("ParseDefinition() differs from encoding/json and yaml.v3 (-old +new):\n%s", diff)
		}
		if d.Template == "" || len(d.Content) == 0 {
			t.Errorf("ParseDefinition() accepted %+v without a template or content", d)
		}
	})
}
