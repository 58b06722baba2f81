package project_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/project"
)

func TestParse(t *testing.T) {
	four := 4096
	tests := []struct {
		name    string
		text    string
		want    *project.Config
		wantErr string
	}{
		{
			name: "every key",
			text: "corpus: policies\ncases: cases\ncontract: c/def.json\npolicy: /etc/ka2/policy.yaml\ncounter: o200k_base\ncapacity: 4096\nlang: zh\nexclude: [drafts/, '**/README.md']\n",
			want: &project.Config{Path: "p/ka2.yaml", Dir: "p", Corpus: "p/policies", Cases: "p/cases", Contract: "p/c/def.json", Policy: "/etc/ka2/policy.yaml",
				Counter: "o200k_base", Capacity: &four, Lang: "zh", Exclude: []string{"drafts/", "**/README.md"}},
		},
		{name: "content file", text: "content: ka2-context-content.yaml\n", want: &project.Config{Path: "p/ka2.yaml", Dir: "p", Content: "p/ka2-context-content.yaml"}},
		{name: "empty content", text: "content: ''\n", wantErr: `p/ka2.yaml:1:10: content is empty; write a path relative to this file`},
		{name: "empty file", text: "# nothing yet\n", want: &project.Config{Path: "p/ka2.yaml", Dir: "p"}},
		{name: "unknown key", text: "corpus: policies\ncorpsu: x\n", wantErr: `p/ka2.yaml:2:1: unknown key "corpsu"; did you mean corpus?`},
		{name: "bad counter", text: "counter: tokens\n", wantErr: `p/ka2.yaml:1:10: unknown counter "tokens"; use one of codepoint, cl100k_base, o200k_base`},
		{name: "capacity not a number", text: "capacity: lots\n", wantErr: `p/ka2.yaml:1:11: capacity "lots" is not a whole number; write a whole number`},
		{name: "exclude not a list", text: "exclude: drafts\n", wantErr: `p/ka2.yaml:1:10: exclude must be a list; write a list, such as [drafts/, '**/README.md']`},
		{name: "no value", text: "corpus:\n", wantErr: `p/ka2.yaml:1:8: corpus has no value; give it a value, or remove the key`},
		{name: "every problem at once", text: "lang: EN\nreserve: 1.5\n", wantErr: "p/ka2.yaml:1:7: lang \"EN\" is not a language tag; write a language tag such as en or zh\np/ka2.yaml:2:10: reserve \"1.5\" is not a whole number; write a whole number"},
		{name: "not a mapping", text: "- corpus\n", wantErr: "p/ka2.yaml:1:1: the project file is not a mapping of keys to values; write 'key: value' lines, such as 'corpus: policies'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := project.Parse(filepath.FromSlash("p/ka2.yaml"), []byte(tt.text))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Parse() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse() error = %v", err)
			}
			got.Pos = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _, err := project.Find(deep, nil); err != nil || got != "" {
		// A temporary folder has no project file above it, unless the
		// machine put one at its root; then this test says nothing.
		if err == nil {
			t.Skipf("a project file above the temporary folder: %s", got)
		}
		t.Fatalf("Find() error = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, project.FileName), []byte("corpus: policies\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := project.Find(deep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(deep, "..", "..", project.FileName); got != filepath.Clean(want) {
		t.Errorf("Find() = %q, want %q", got, want)
	}
	c, err := project.Load(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "policies"); c.Corpus != want {
		t.Errorf("Load().Corpus = %q, want %q", c.Corpus, want)
	}
	if c.Pos[project.KeyCorpus].Line != 1 {
		t.Errorf("Load().Pos[corpus] = %v, want line 1", c.Pos[project.KeyCorpus])
	}
}

// The project's exclusions apply to its corpus folders by their path in
// the project; the .ka2ignore beside ka2.yaml comes first, exclude after.
func TestFilter(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(project.FileName, "corpus: policies\nexclude: [policies/drafts/]\n")
	write(corpus.IgnoreFile, "README.md\n")
	c, err := project.Load(filepath.Join(dir, project.FileName), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"README.md", "policies/drafts/"}, c.Patterns()); diff != "" {
		t.Errorf("Patterns() mismatch (-want +got):\n%s", diff)
	}
	policy := func(id string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nsource_id: " + id + "\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\nText.\n")}
	}
	tree := fstest.MapFS{"a.md": policy("a"), "README.md": {Data: []byte("# hi\n")}, "drafts/d.md": {Data: []byte("draft\n")}}
	got, err := corpus.Load(c.Filter(c.Corpus, tree))
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if len(got.Sources) != 1 || got.Sources[0].Path != "a.md" {
		t.Errorf("Load() = %d sources, want a.md only", len(got.Sources))
	}
	// A folder outside the project is not filtered.
	if _, err := corpus.Load(c.Filter(filepath.Join(dir, "..", "elsewhere"), tree)); err == nil {
		t.Error("Load() of a folder outside the project applied the project's exclusions")
	}
}
