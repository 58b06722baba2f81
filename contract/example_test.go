package contract_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/testutil"
)

// mealsCorpus is a corpus about meals, with no travel-v1.
func mealsCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Load(fstest.MapFS{"meals.md": {Data: []byte("---\nsource_id: meals-2025\nversion: v1\nsubjects: [meals]\nvalid_from: 2025-01-01\nlang: en\nunit: EUR per day\n---\nScope: meals on trips.\nEffective from 2025-01-01.\nThe allowance is 45 EUR per day.\n")}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCheckExample: the embedded example cites travel-v1, which a corpus
// about meals does not have; an example citing the corpus's own source
// passes, and one citing lines past its body does not.
func TestCheckExample(t *testing.T) {
	tests := []struct {
		name   string
		answer string // "" is the embedded definition
		want   []string
	}{
		{name: "embedded example", want: []string{
			"ka2-context-content-v1.yaml: the worked example (en) cites [travel-v1:1-3], but the corpus has no source travel-v1: the generator is shown an address that is not in its corpus; write a content file whose example cites a source of this corpus, and name it with the content setting",
			"ka2-context-content-v1.yaml: the worked example (zh) cites [travel-v1:1-3], but the corpus has no source travel-v1: the generator is shown an address that is not in its corpus; write a content file whose example cites a source of this corpus, and name it with the content setting",
		}},
		{name: "own source", answer: "45 EUR per day [meals-2025:1-3]"},
		{name: "own source, one line", answer: "45 EUR per day [meals-2025:3]"},
		{name: "lines past the body", answer: "45 EUR [meals-2025:2-4]", want: []string{
			"content.yaml: the worked example (en) cites [meals-2025:2-4], but meals-2025 has 3 body lines: the generator is shown an address that is not in its corpus; write a content file whose example cites a source of this corpus, and name it with the content setting",
		}},
		{name: "two in one bracket, one unknown", answer: "45 EUR [meals-2025:1-3; lunch-v9:1]", want: []string{
			"content.yaml: the worked example (en) cites [lunch-v9:1-1], but the corpus has no source lunch-v9: the generator is shown an address that is not in its corpus; write a content file whose example cites a source of this corpus, and name it with the content setting",
		}},
		{name: "brackets that are not addresses", answer: "45 EUR [see the table] [Meals:1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := contract.Default()
			if tt.answer != "" {
				dir := t.TempDir()
				p := filepath.Join(dir, "content.yaml")
				testutil.WriteFile(t, p, "en:\n  instruction: Answer from the evidence.\n  example:\n    question: What was it?\n    answer: \""+tt.answer+"\"\n")
				t.Chdir(dir)
				var err error
				if def, err = contract.LoadDefinitionContent("", "content.yaml"); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, d := range def.CheckExample(mealsCorpus(t)) {
				got = append(got, d.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckExample() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadDefinitionContent: a content file replaces the one the
// definition names, embedded or from a file; a missing one is an error
// naming it.
func TestLoadDefinitionContent(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	testutil.WriteFile(t, "own.yaml", "en:\n  instruction: Answer from the evidence.\n  example:\n    question: Q?\n    answer: A [meals-2025:1-3]\n")
	def, err := contract.LoadDefinitionContent("", "own.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := def.Content["en"].Example.Answer; got != "A [meals-2025:1-3]" {
		t.Errorf("example answer = %q, want the content file's", got)
	}
	if _, ok := def.Content["zh"]; ok {
		t.Error("the embedded zh content is still there; the content file replaces it whole")
	}
	if def.ContentFile != "own.yaml" || def.Template != contract.Default().Template {
		t.Errorf("ContentFile, Template = %q, %q; want own.yaml and the embedded template", def.ContentFile, def.Template)
	}
	// The same through a Config, as a build loads it.
	b, err := contract.Config{Corpus: corpus.Embedded(), Content: "own.yaml"}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Definition.Content["en"].Example.Answer; got != "A [meals-2025:1-3]" {
		t.Errorf("Config.Builder() example answer = %q, want the content file's", got)
	}
	_, err = contract.LoadDefinitionContent("", "missing.yaml")
	if err == nil || !strings.Contains(err.Error(), "read contract content: ") || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("LoadDefinitionContent(missing) error = %v, want one naming the file", err)
	}
}
