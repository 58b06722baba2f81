package serve

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/testutil"
)

// TestLoadChangedMatchesLoad applies random sequences of edits, adds,
// deletes and renames of policy files (some broken, some clashing on
// source_id, some with CRLF, some in ignored places) to a tree, and after
// each step compares loadChanged, told the paths that changed since the
// last corpus it loaded, with a full Load of the tree: the same sources,
// digest and quotes, or the same errors. As a server does, a failed load
// keeps the previous corpus, and its paths are passed again next time.
func TestLoadChangedMatchesLoad(t *testing.T) {
	for seed := range 12 {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			checkDeltaSequence(t, uint64(seed), 50)
		})
	}
}

// deltaNames are the paths the random steps write: *.md files in folders,
// and names the walk ignores.
var deltaNames = func() []string {
	var names []string
	for i := range 16 {
		names = append(names, fmt.Sprintf("%s/p%02d.md", []string{"a", "b", "a/c", "d/e/f"}[i%4], i))
	}
	for i := range 6 {
		names = append(names, fmt.Sprintf("top%d.md", i))
	}
	return append(names, "notes.txt", ".hidden/p.md", "a/.tmp.md", "b/readme")
}()

func deltaPolicy(rng *rand.Rand) string {
	id := fmt.Sprintf("s%02d", rng.IntN(20)) // a small pool, so ids clash now and then
	lang := []string{"", "", "en", "de"}[rng.IntN(4)]
	front := fmt.Sprintf("source_id: %s\nversion: v%d\nsubjects: [s%d, t]\nvalid_from: 2026-0%d-01\n",
		id, rng.IntN(9), rng.IntN(3), 1+rng.IntN(9))
	if lang != "" {
		front += "lang: " + lang + "\n"
	}
	body := fmt.Sprintf("Rule %d.\nSecond line %d.\n", rng.IntN(1000), rng.IntN(1000))
	data := "---\n" + front + "---\n" + body
	switch rng.IntN(12) {
	case 0: // broken: no valid_from
		data = strings.Replace(data, "valid_from", "valid_frm", 1)
	case 1: // broken front matter
		data = "---\nsource_id: [\n"
	case 2:
		data = strings.ReplaceAll(data, "\n", "\r\n")
	}
	return data
}

func checkDeltaSequence(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	fsys := openRoot(t, dir)
	write := func(name, data string) {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		return err == nil
	}
	for i := range 8 {
		write(deltaNames[i], fmt.Sprintf("---\nsource_id: init%d\nversion: v1\nsubjects: [s0]\nvalid_from: 2026-01-01\n---\nRule.\n", i))
	}
	prev, prevStats, err := loadReusing(t.Context(), fsys, nil, fileStats{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for step := range steps {
		var did []string
		for range 1 + rng.IntN(3) {
			name := deltaNames[rng.IntN(len(deltaNames))]
			switch op := rng.IntN(4); {
			case op == 0 || !exists(name): // add or edit
				write(name, deltaPolicy(rng))
				did = append(did, "write "+name)
			case op == 1:
				write(name, deltaPolicy(rng))
				did = append(did, "edit "+name)
			case op == 2:
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
					t.Fatal(err)
				}
				did = append(did, "delete "+name)
			default:
				to := deltaNames[rng.IntN(len(deltaNames))]
				if to == name {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(to))), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(dir, filepath.FromSlash(name)), filepath.Join(dir, filepath.FromSlash(to))); err != nil {
					t.Fatal(err)
				}
				pending = append(pending, to)
				did = append(did, "rename "+name+" "+to)
			}
			pending = append(pending, name)
		}
		full, ferr := corpus.Load(fsys)
		delta, stats, derr, ok := loadDelta(fsys, prev, prevStats, pending)
		if !ok {
			t.Fatalf("step %d (%v): loadChanged would walk for plain file changes %v", step, did, pending)
		}
		if fmt.Sprint(ferr) != fmt.Sprint(derr) {
			t.Fatalf("step %d (%v): errors differ:\nLoad:\n%v\nloadChanged:\n%v", step, did, ferr, derr)
		}
		if ferr != nil {
			continue // prev keeps serving; pending stays to be passed again
		}
		compareCorpora(t, fmt.Sprintf("step %d (%v)", step, did), full, delta)
		// The statuses kept are those a full load would take now.
		_, fullStats := loadFull(t, fsys)
		if diff := cmp.Diff(fullStats.flat(), stats.flat(), cmp.AllowUnexported(corpus.Stamp{})); diff != "" {
			t.Fatalf("step %d (%v): file statuses mismatch (-full load +loadChanged):\n%s", step, did, diff)
		}
		prev, prevStats, pending = delta, stats, nil
	}
}

func compareCorpora(t *testing.T, what string, full, delta *corpus.Corpus) {
	t.Helper()
	if diff := cmp.Diff(full.Sources, delta.Sources, cmp.AllowUnexported(corpus.Date{}, corpus.Source{})); diff != "" {
		t.Fatalf("%s: sources differ (-Load +loadChanged):\n%s", what, diff)
	}
	if full.Digest != delta.Digest {
		t.Fatalf("%s: digest %s, want %s", what, delta.Digest, full.Digest)
	}
	for i, s := range full.Sources {
		q1, err1 := s.Quote(s.Body())
		q2, err2 := delta.Sources[i].Quote(s.Body())
		if q1 != q2 || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("%s: quote of %s: %q, %v; want %q, %v", what, s.Path, q2, err2, q1, err1)
		}
		got, err := delta.Lookup(s.ID, s.Lang)
		if err != nil || got.Path != s.Path {
			t.Fatalf("%s: Lookup(%s, %s) = %v, %v", what, s.ID, s.Lang, got, err)
		}
	}
}

// TestLoadChangedFallsBack: changes the delta cannot resolve (a renamed
// folder, the root, a link) make loadChanged walk, and it still gives what
// Load gives.
func TestLoadChangedFallsBack(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		testutil.WritePolicy(t, dir, fmt.Sprintf("d%d/p%d.md", i%2, i), fmt.Sprintf("p%d", i), "Rule.")
	}
	fsys := openRoot(t, dir)
	prev, prevStats := loadFull(t, fsys)
	if err := os.Rename(filepath.Join(dir, "d0"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	testutil.WritePolicy(t, dir, "linked.txt", "linked", "Rule.")
	if err := os.Symlink("linked.txt", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, changed := range [][]string{{"d0"}, {"moved"}, {"."}, {"link.md"}, {"d0/p0.md"}} {
		if _, _, _, ok := loadDelta(fsys, prev, prevStats, changed); ok {
			t.Errorf("loadDelta(%v) resolved a change it cannot", changed)
		}
	}
	full, err := corpus.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	delta, _, err := loadChanged(t.Context(), fsys, prev, prevStats, []string{"d0", "moved"}, time.Now().Add(-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	compareCorpora(t, "folder rename", full, delta)
	if want := 7; len(delta.Sources) != want || !slices.ContainsFunc(delta.Sources, func(s *corpus.Source) bool { return s.Path == "link.md" }) {
		t.Fatalf("got %d sources, want %d with link.md", len(delta.Sources), want)
	}
}

// A file a .ka2ignore names is not read when it changes, and a changed
// .ka2ignore reloads in full: loadChanged gives what Load gives.
func TestLoadChangedIgnoreFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "---\nsource_id: a\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\nText.\n")
	write("README.md", "# not a policy\n")
	write(corpus.IgnoreFile, "README.md\n")
	fsys := openRoot(t, dir)
	c, stats := loadFull(t, fsys)
	write("README.md", "# still not a policy\n")
	c2, stats2, err := loadChanged(t.Context(), fsys, c, stats, []string{"README.md"}, time.Time{})
	if err != nil || len(c2.Sources) != 1 {
		t.Fatalf("loadChanged(README.md) = %v, %v; want the one policy", c2, err)
	}
	if err := os.Remove(filepath.Join(dir, corpus.IgnoreFile)); err != nil {
		t.Fatal(err)
	}
	_, _, err = loadChanged(t.Context(), fsys, c2, stats2, []string{corpus.IgnoreFile}, time.Time{})
	_, want := corpus.Load(fsys)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("loadChanged(.ka2ignore) error = %v, want Load's %v", err, want)
	}
}

// openRoot opens dir as a file system confined to it, for the test's
// length.
func openRoot(tb testing.TB, dir string) fs.FS {
	tb.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { root.Close() })
	return root.FS()
}

// loadFull loads the corpus in fsys from nothing, as a server's first
// load does.
func loadFull(tb testing.TB, fsys fs.FS) (*corpus.Corpus, fileStats) {
	tb.Helper()
	c, stats, err := loadReusing(tb.Context(), fsys, nil, fileStats{}, time.Time{})
	if err != nil {
		tb.Fatalf("loadReusing() error = %v", err)
	}
	return c, stats
}

// flat is every status s knows, by path, checked against get and len.
func (s fileStats) flat() map[string]corpus.Stamp {
	m := map[string]corpus.Stamp{}
	for p := range s.base {
		m[p] = s.base[p]
	}
	for p, c := range s.over {
		if c.gone {
			delete(m, p)
		} else {
			m[p] = c.st
		}
	}
	for p, st := range m {
		if got, ok := s.get(p); !ok || got != st {
			panic(fmt.Sprintf("get(%q) = %v, %v; want %v", p, got, ok, st))
		}
	}
	if len(m) != s.len() {
		panic(fmt.Sprintf("len() = %d, but it holds %d statuses", s.len(), len(m)))
	}
	return m
}

// TestFileStatsWith: a long run of delta reloads, each setting and
// removing a few files, keeps exactly the statuses a plain map would,
// across the folds of the changes into a new base, and leaves every
// earlier fileStats as it was.
func TestFileStatsWith(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := make([]string, 400)
	for i := range paths {
		paths[i] = fmt.Sprintf("p/%d.md", i)
	}
	model := map[string]corpus.Stamp{}
	for _, p := range paths[:200] {
		model[p] = corpus.Stamp{Size: 1}
	}
	s := newFileStats(maps.Clone(model))
	for step := range 3000 {
		set := map[string]corpus.Stamp{}
		var removed []string
		for range 1 + rng.IntN(4) {
			p := paths[rng.IntN(len(paths))]
			if _, dup := set[p]; dup || slices.Contains(removed, p) {
				continue
			}
			if _, ok := model[p]; ok && rng.IntN(3) == 0 {
				removed = append(removed, p)
			} else {
				set[p] = corpus.Stamp{Size: int64(step), Inode: uint64(rng.IntN(9))}
			}
		}
		prevModel, prev := maps.Clone(model), s
		for _, p := range removed {
			delete(model, p)
		}
		maps.Copy(model, set)
		s = s.with(set, removed)
		// maps.Equal first: cmp.Diff on every step was most of the test's
		// time; it only words a mismatch.
		if got := s.flat(); !maps.Equal(model, got) {
			t.Fatalf("step %d: statuses mismatch (-map +fileStats):\n%s", step, cmp.Diff(model, got, cmp.AllowUnexported(corpus.Stamp{})))
		}
		for _, p := range paths {
			want, wantOK := model[p]
			if got, ok := s.get(p); got != want || ok != wantOK {
				t.Fatalf("step %d: get(%q) = %v, %v; want %v, %v", step, p, got, ok, want, wantOK)
			}
		}
		if got := prev.flat(); !maps.Equal(prevModel, got) {
			t.Fatalf("step %d: the previous statuses changed (-before +after):\n%s", step, cmp.Diff(prevModel, got, cmp.AllowUnexported(corpus.Stamp{})))
		}
		if len(s.over) > 64+4*20 { // 20 ≥ the square root of 400 paths
			t.Fatalf("step %d: %d changes on top of the base were not folded into it", step, len(s.over))
		}
	}
}
