package corpus_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

func policyFile(id string) *fstest.MapFile {
	return &fstest.MapFile{Data: fmt.Appendf(nil, "---\nsource_id: %s\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\nBody of %s.\n", id, id)}
}

// A README.md without front matter breaks a load unless something names
// it; .ka2ignore files and Exclude patterns do, as .gitignore would.
func TestIgnore(t *testing.T) {
	readme := &fstest.MapFile{Data: []byte("# Our policies\n\nHow to add one.\n")}
	tests := []struct {
		name     string
		files    fstest.MapFS
		base     string
		patterns []string
		want     []string // source paths, or
		wantErr  string
	}{
		{
			name:    "a README breaks the load, and the error says how to exclude it",
			files:   fstest.MapFS{"a.md": policyFile("a"), "README.md": readme},
			wantErr: "README.md:1:1: missing front matter; start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in .ka2ignore",
		},
		{
			name:  ".ka2ignore keeps a README out",
			files: fstest.MapFS{"a.md": policyFile("a"), "README.md": readme, "sub/README.md": readme, ".ka2ignore": {Data: []byte("# not policies\nREADME.md\n")}},
			want:  []string{"a.md"},
		},
		{
			name:  "a nested .ka2ignore applies below its folder, and negation re-includes",
			files: fstest.MapFS{"a.md": policyFile("a"), "drafts/x.md": readme, "drafts/keep.md": policyFile("keep"), "drafts/.ka2ignore": {Data: []byte("*.md\r\n!keep.md\r\n")}, "x.md": policyFile("x")},
			want:  []string{"a.md", "drafts/keep.md", "x.md"},
		},
		{
			name:  "trailing spaces an editor left are dropped, an escaped hash is a name, as in git",
			files: fstest.MapFS{"a.md": policyFile("a"), "README.md": readme, "#notes.md": readme, ".ka2ignore": {Data: []byte("README.md  \n\\#notes.md\n")}},
			want:  []string{"a.md"},
		},
		{
			name:  "a class negated with ! and a ** after a literal, as git reads them",
			files: fstest.MapFS{"a.md": policyFile("a"), "b.md": readme, "old/x/c.md": readme, ".ka2ignore": {Data: []byte("[!a].md\nold**/c.md\n")}},
			want:  []string{"a.md"},
		},
		{
			name:  "a file in an excluded folder cannot be re-included",
			files: fstest.MapFS{"a.md": policyFile("a"), "drafts/keep.md": policyFile("keep"), ".ka2ignore": {Data: []byte("drafts/\n!drafts/keep.md\n")}},
			want:  []string{"a.md"},
		},
		{
			name:  "an ignored folder is not read",
			files: fstest.MapFS{"a.md": policyFile("a"), "templates/t.md": readme, ".ka2ignore": {Data: []byte("templates/\n")}},
			want:  []string{"a.md"},
		},
		{
			name:     "Exclude patterns relative to the project, the corpus at base",
			files:    fstest.MapFS{"a.md": policyFile("a"), "drafts/d.md": readme, "README.md": readme},
			base:     "policies",
			patterns: []string{"policies/drafts/", "README.md"},
			want:     []string{"a.md"},
		},
		{
			name:     "an anchored pattern of another folder does not match",
			files:    fstest.MapFS{"a.md": policyFile("a"), "drafts/d.md": policyFile("d")},
			base:     "policies",
			patterns: []string{"/drafts/"},
			want:     []string{"a.md", "drafts/d.md"},
		},
		{
			name:     "patterns of a folder the corpus is not in match nothing",
			files:    fstest.MapFS{"a.md": policyFile("a"), "b.md": policyFile("b")},
			base:     "../elsewhere",
			patterns: []string{"*.md"},
			want:     []string{"a.md", "b.md"},
		},
		{
			name:    "an unreadable .ka2ignore is a problem, not an empty list",
			files:   fstest.MapFS{"a.md": policyFile("a"), ".ka2ignore": {Mode: fs.ModeNamedPipe}},
			wantErr: ".ka2ignore: cannot read:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := corpus.Exclude(tt.files, tt.base, tt.patterns)
			c, err := corpus.Load(fsys)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load() error = %v", err)
			}
			var got []string
			for _, s := range c.Sources {
				got = append(got, s.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Load() sources mismatch (-want +got):\n%s", diff)
			}
			files, errs := corpus.Files(fsys)
			if len(errs) > 0 {
				t.Fatalf("Files() errors = %v", errs)
			}
			if diff := cmp.Diff(tt.want, files); diff != "" {
				t.Errorf("Files() mismatch (-want +got):\n%s", diff)
			}
			for p := range tt.files {
				if filepath.Ext(p) != ".md" {
					continue
				}
				ignored, err := corpus.Ignored(fsys, p)
				if err != nil {
					t.Fatalf("Ignored(%s) error = %v", p, err)
				}
				if want := !slices.Contains(tt.want, p); ignored != want {
					t.Errorf("Ignored(%s) = %v, want %v", p, ignored, want)
				}
			}
		})
	}
}

// On disk, through os.Root as the CLI reads a corpus, and with links: an
// ignored link is not followed, so it cannot be a problem either.
func TestIgnoreOnDisk(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", string(policyFile("a").Data))
	write("README.md", "# readme\n")
	write(".ka2ignore", "README.md\nout.md\n")
	if err := os.Symlink("../../etc/passwd", filepath.Join(dir, "out.md")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c, err := corpus.Load(root.FS())
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if len(c.Sources) != 1 || c.Sources[0].Path != "a.md" {
		t.Errorf("Load() = %v, want a.md only", c.Sources)
	}
}
