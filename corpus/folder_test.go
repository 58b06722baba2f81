package corpus_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/testutil"
)

// TestFolder: each load of a Folder opens the folder as it is then, so a
// link swapped in under it is followed by the next load; within one load
// every file comes from the one folder opened, even if the link is swapped
// mid-load; links resolve inside the folder only; Narrow filters what every
// load reads.
func TestFolder(t *testing.T) {
	base := t.TempDir()
	policy := func(id, text string) string {
		return "---\nsource_id: " + id + "\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\n" + text + "\n"
	}
	write := func(name, data string) { testutil.WriteFile(t, filepath.Join(base, filepath.FromSlash(name)), data) }
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	swap := func(target string) { // as a deploy does: a new link renamed over the old
		t.Helper()
		link(target, "next")
		if err := os.Rename(filepath.Join(base, "next"), filepath.Join(base, "current")); err != nil {
			t.Fatal(err)
		}
	}
	write("v1/a.md", policy("a", "One."))
	write("v1/sub/b.md", policy("b", "Bee."))
	write("v2/a.md", policy("a", "Two."))
	write("v2/sub/b.md", policy("b", "Bee two."))
	write("secret.md", policy("secret", "Secret."))
	link("v1", "current")
	write("v1/c.txt", policy("c", "Sea."))
	write("v2/c.txt", policy("c", "Sea two."))
	link("c.txt", filepath.Join("v1", "in.md"))
	link("c.txt", filepath.Join("v2", "in.md"))
	c := corpus.Folder(filepath.Join(base, "current"))

	texts := func(corp *corpus.Corpus) map[string]string {
		out := map[string]string{}
		for _, s := range corp.Sources {
			out[s.ID+" "+s.Path] = s.Text()
		}
		return out
	}
	var seen []fs.FS
	corp, err := c.LoadWith(func(fsys fs.FS) (*corpus.Corpus, error) {
		seen = append(seen, fsys)
		if err := fstest.TestFS(fsys, "a.md", "sub/b.md", "in.md", "c.txt"); err != nil {
			t.Fatal(err)
		}
		if got, err := fs.ReadLink(fsys, "in.md"); err != nil || got != "c.txt" {
			t.Errorf("ReadLink(in.md) = %q, %v, want c.txt", got, err)
		}
		first, err := fs.ReadFile(fsys, "a.md")
		if err != nil {
			t.Fatal(err)
		}
		swap("v2") // mid-load: this load still reads v1
		rest, err := fs.ReadFile(fsys, "sub/b.md")
		if err != nil || !strings.Contains(string(first), "One.") || !strings.Contains(string(rest), "Bee.\n") {
			t.Errorf("one load read a.md %q and sub/b.md %q (%v), want both from v1", first, rest, err)
		}
		return corpus.Load(fsys)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(corp)["a a.md"]; got != "One." {
		t.Errorf("first load: a.md = %q, want One.", got)
	}
	corp, err = c.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(corp)["a a.md"]; got != "Two." {
		t.Errorf("load after the swap: a.md = %q, want Two.", got)
	}

	// A link out of the folder is reported, not read.
	link(filepath.Join("..", "secret.md"), filepath.Join("v2", "out.md"))
	if _, err := c.Load(t.Context()); err == nil || !strings.Contains(err.Error(), "out.md") {
		t.Errorf("Load with a link out of the folder = %v, want a problem naming out.md", err)
	}

	// Narrow applies to every load, after the filters before it.
	narrowed := c.Narrow(func(fsys fs.FS) fs.FS { return corpus.Exclude(fsys, "", []string{"out.md"}) }).
		Narrow(func(fsys fs.FS) fs.FS { return corpus.Exclude(fsys, "", []string{"sub/"}) })
	for range 2 {
		corp, err := narrowed.Load(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got := texts(corp); len(got) != 2 || got["a a.md"] != "Two." || got["c in.md"] != "Sea two." {
			t.Errorf("narrowed load = %v, want a.md and in.md (v2) only", got)
		}
	}
	if len(seen) != 1 {
		t.Errorf("load func called %d times, want 1", len(seen))
	}
}
