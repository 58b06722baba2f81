package corpus_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/testutil"
)

// TestUpdate: Update, told the paths that changed, gives what Load gives
// for the tree: the same sources, digest and quotes, or the same errors.
func TestUpdate(t *testing.T) {
	tests := []struct {
		name          string
		change        func(t *testing.T, dir string)
		read, removed []string
		wantErr       string
	}{
		{
			name:   "edit",
			change: func(t *testing.T, dir string) { testutil.WritePolicy(t, dir, "a/p1.md", "p1", "Changed.") },
			read:   []string{"a/p1.md"},
		},
		{
			name: "add and remove",
			change: func(t *testing.T, dir string) {
				testutil.WritePolicy(t, dir, "b/new.md", "new", "New.")
				os.Remove(filepath.Join(dir, "a/p2.md"))
			},
			read: []string{"b/new.md"}, removed: []string{"a/p2.md"},
		},
		{
			name:   "clash",
			change: func(t *testing.T, dir string) { testutil.WritePolicy(t, dir, "b/p9.md", "p1", "Same id.") },
			read:   []string{"b/p9.md"},
			wantErr: "b/p9.md:2:1: source_id p1 is also used by a/p1.md; give each source its own source_id, " +
				"or set a different lang on each translation",
		},
		{
			name: "broken",
			change: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "a/p3.md"), []byte("no front matter\n"), 0o644)
			},
			read:    []string{"a/p3.md"},
			wantErr: "a/p3.md:1:1: missing front matter; start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in .ka2ignore",
		},
		{
			name: "all removed",
			change: func(t *testing.T, dir string) {
				os.RemoveAll(filepath.Join(dir, "a"))
			},
			removed: []string{"a/p0.md", "a/p1.md", "a/p2.md", "a/p3.md"},
			wantErr: "no policy files (*.md) found; point the corpus setting at the folder that holds the policy files",
		},
	}
	for _, tt := range tests {
		for _, fromNew := range []bool{false, true} {
			t.Run(fmt.Sprint(tt.name, " new=", fromNew), func(t *testing.T) {
				dir := t.TempDir()
				for i := range 4 {
					testutil.WritePolicy(t, dir, fmt.Sprintf("a/p%d.md", i), fmt.Sprintf("p%d", i), fmt.Sprintf("Rule %d.", i))
				}
				prev, err := loadDir(t, dir)
				if err != nil {
					t.Fatal(err)
				}
				if fromNew { // a corpus made from sources, not loaded
					if prev, err = corpus.New(prev.Sources); err != nil {
						t.Fatal(err)
					}
				}
				tt.change(t, dir)
				full, ferr := loadDir(t, dir)
				root, err := os.OpenRoot(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer root.Close()
				got, err := prev.Update(root.FS(), tt.read, tt.removed)
				if fmt.Sprint(ferr) != fmt.Sprint(err) || (tt.wantErr != "") != (err != nil) ||
					err != nil && err.Error() != tt.wantErr {
					t.Fatalf("Update() error = %v, Load() error = %v, want %q", err, ferr, tt.wantErr)
				}
				if err != nil {
					return
				}
				if diff := cmp.Diff(full.Sources, got.Sources, dateCmp); diff != "" {
					t.Errorf("Update() sources mismatch (-Load +Update):\n%s", diff)
				}
				if got.Digest != full.Digest {
					t.Errorf("Update() digest %s, want %s", got.Digest, full.Digest)
				}
			})
		}
	}
}

// TestReload: Reload takes prev's source for each file keep lets it keep,
// reads the others, and asks keep about every file, with a nil entry for
// a file reached through a linked folder.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	testutil.WritePolicy(t, dir, "a/p0.md", "p0", "Rule 0.")
	testutil.WritePolicy(t, dir, "a/p1.md", "p1", "Rule 1.")
	testutil.WritePolicy(t, dir, ".h/l/p2.md", "p2", "Rule 2.")
	if err := os.Symlink(filepath.Join(".h", "l"), filepath.Join(dir, "l")); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	prev, err := corpus.Load(root.FS())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asked := map[string]bool{} // path: had an entry
	keep := func(p string, d fs.DirEntry) bool {
		mu.Lock()
		defer mu.Unlock()
		asked[p] = d != nil
		return p != "a/p1.md"
	}
	got, err := corpus.Reload(context.Background(), root.FS(), prev, keep)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"a/p0.md": true, "a/p1.md": true, "l/p2.md": false}, asked); diff != "" {
		t.Errorf("Reload() asked keep (-want +got):\n%s", diff)
	}
	for i, s := range got.Sources {
		if kept := s == prev.Sources[i]; kept != (s.Path != "a/p1.md") {
			t.Errorf("source %s kept = %v", s.Path, kept)
		}
	}
	if got.Digest != prev.Digest {
		t.Errorf("Reload() digest %s, want %s", got.Digest, prev.Digest)
	}
	if q, err := got.Sources[0].Quote(got.Sources[0].Body()); err != nil || q != "Rule 0." {
		t.Errorf("Quote() of a kept source = %q, %v", q, err)
	}
}

func TestHasFolder(t *testing.T) {
	dir := t.TempDir()
	testutil.WritePolicy(t, dir, "a/b/p0.md", "p0", "Rule 0.")
	testutil.WritePolicy(t, dir, "ab.md", "p1", "Rule 1.")
	c, err := loadDir(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{"a": true, "a/b": true, "ab": false, "a/b/p0.md": false, "b": false} {
		if got := c.HasFolder(dir); got != want {
			t.Errorf("HasFolder(%q) = %v, want %v", dir, got, want)
		}
	}
}

// TestUpdateRandom: chains of Updates, each editing, adding, removing
// and renaming a few files at random (a source_id that moves its source
// elsewhere in Sources order, a translation of an existing id, a clash),
// give after every step what Load gives for the tree: the same sources
// in the same orders, the same digest, the same look-ups or the same
// errors.
func TestUpdateRandom(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 29))
			fsys := fstest.MapFS{}
			policy := func(id, lang, text string) *fstest.MapFile {
				l := ""
				if lang != "" {
					l = "lang: " + lang + "\n"
				}
				return &fstest.MapFile{Data: []byte("---\nsource_id: " + id + "\nversion: v1\nsubjects: [meals]\nvalid_from: 2024-01-01\n" + l + "---\n" + text + "\n")}
			}
			for i := range 40 {
				fsys[fmt.Sprintf("d%d/p%02d.md", i%4, i)] = policy(fmt.Sprintf("s%02d", i), "", "Text.")
			}
			c, err := corpus.Load(fsys)
			if err != nil {
				t.Fatal(err)
			}
			for step := range 60 {
				var read, removed []string
				seen := map[string]bool{}
				for range 1 + rng.IntN(4) {
					p := fmt.Sprintf("d%d/p%02d.md", rng.IntN(5), rng.IntN(50))
					if seen[p] {
						continue // read and removed name different paths
					}
					seen[p] = true
					switch rng.IntN(4) {
					case 0:
						delete(fsys, p)
						removed = append(removed, p)
						continue
					case 1: // a translation, or a clash with a source without lang
						fsys[p] = policy(fmt.Sprintf("s%02d", rng.IntN(50)), []string{"en", "zh"}[rng.IntN(2)], "Translated.")
					default:
						fsys[p] = policy(fmt.Sprintf("s%02d", rng.IntN(60)), "", fmt.Sprintf("Step %d.", step))
					}
					read = append(read, p)
				}
				got, gotErr := c.Update(fsys, read, removed)
				want, wantErr := corpus.Load(fsys)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("step %d: Update() error %v, Load() error %v", step, gotErr, wantErr)
				}
				if wantErr != nil {
					// Undo the step, so that the chain goes on from a corpus.
					for _, p := range slices.Concat(read, removed) {
						if s := sourceAt(c, p); s != nil {
							fsys[p] = policy(s.ID, s.Lang, s.Text())
						} else {
							delete(fsys, p)
						}
					}
					continue
				}
				if diff := cmp.Diff(want, got, dateCmp, cmpopts.IgnoreUnexported(corpus.Corpus{})); diff != "" {
					t.Fatalf("step %d: Update() mismatch (-Load +Update):\n%s", step, diff)
				}
				for _, s := range want.Sources {
					if g, err := got.Lookup(s.ID, s.Lang); err != nil || g.Path != s.Path {
						t.Fatalf("step %d: Lookup(%s, %q) = %v, %v; want the source at %s", step, s.ID, s.Lang, g, err, s.Path)
					}
				}
				c = got
			}
		})
	}
}

// sourceAt returns the source of c read from the file at p, or nil.
func sourceAt(c *corpus.Corpus, p string) *corpus.Source {
	for _, s := range c.Sources {
		if s.Path == p {
			return s
		}
	}
	return nil
}

// TestDiffSources: the merge names each source only one list holds, in
// order, and none that both hold; a source replaced by another of the
// same source_id, lang and path (a changed file) is gone and added.
func TestDiffSources(t *testing.T) {
	src := func(id, lang, path string) *corpus.Source { return &corpus.Source{ID: id, Lang: lang, Path: path} }
	a, b, c := src("a", "en", "a.md"), src("b", "en", "b.md"), src("c", "zh", "c.md")
	b2, d := src("b", "en", "b.md"), src("d", "", "d.md")
	name := func(s *corpus.Source) string {
		if s == b2 {
			return "b'"
		}
		return s.ID
	}
	for _, tc := range []struct {
		old, cur    []*corpus.Source
		gone, added string
	}{
		{nil, nil, "", ""},
		{[]*corpus.Source{a, b, c}, []*corpus.Source{a, b, c}, "", ""},
		{nil, []*corpus.Source{a, c}, "", "a c"},
		{[]*corpus.Source{a, c}, nil, "a c", ""},
		{[]*corpus.Source{a, b, c}, []*corpus.Source{a, c, d}, "b", "d"},
		{[]*corpus.Source{a, b, c}, []*corpus.Source{a, b2, c}, "b", "b'"},
		{[]*corpus.Source{b, d}, []*corpus.Source{a, b2, c}, "b d", "a b' c"},
	} {
		var gone, added []string
		corpus.DiffSources(tc.old, tc.cur, func(s *corpus.Source) { gone = append(gone, name(s)) }, func(s *corpus.Source) { added = append(added, name(s)) })
		if g, a := strings.Join(gone, " "), strings.Join(added, " "); g != tc.gone || a != tc.added {
			t.Errorf("DiffSources(%v, %v): gone %q, added %q; want %q, %q", len(tc.old), len(tc.cur), g, a, tc.gone, tc.added)
		}
	}
}
