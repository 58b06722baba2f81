package cli

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// TestInitContent: the content file ka2 init writes keeps the embedded
// instruction and refusal phrases, en and zh, and only its worked example
// differs: one that cites a source of the project's own corpus.
func TestInitContent(t *testing.T) {
	files, _, err := initFiles(VersionInfo{})
	if err != nil {
		t.Fatal(err)
	}
	data, ok := files["ka2-context-content.yaml"]
	if !ok {
		t.Fatal("init writes no ka2-context-content.yaml")
	}
	def, err := contract.ParseDefinition(ka2.ContractJSON, data)
	if err != nil {
		t.Fatal(err)
	}
	embedded := contract.Default()
	if diff := cmp.Diff(embedded.Langs(), def.Langs()); diff != "" {
		t.Errorf("languages mismatch (-embedded +init):\n%s", diff)
	}
	for _, lang := range embedded.Langs() {
		want, got := embedded.Content[lang], def.Content[lang]
		if got.Example == want.Example {
			t.Errorf("%s: the example is the embedded one", lang)
		}
		want.Example, got.Example = provenance.Example{}, provenance.Example{}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: instruction or refusals differ from the embedded ones (-embedded +init):\n%s", lang, diff)
		}
	}
	// The corpus init writes, without the README its .ka2ignore keeps out.
	policies := fstest.MapFS{}
	for rel, data := range files {
		if name, ok := strings.CutPrefix(rel, "policies/"); ok && name != "README.md" {
			policies[name] = &fstest.MapFile{Data: data}
		}
	}
	corp, err := corpus.Load(policies)
	if err != nil {
		t.Fatal(err)
	}
	if problems := def.CheckExample(corp); len(problems) > 0 {
		t.Errorf("init's example cites what its corpus lacks: %v", problems)
	}
	if problems := embedded.CheckExample(corp); len(problems) == 0 {
		t.Error("the embedded example passes against init's corpus; this test would not notice a regression")
	}
}
