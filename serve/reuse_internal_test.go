package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/testutil"
)

// loadedTree is a corpus and the file status its load took.
type loadedTree struct {
	*corpus.Corpus
	stats fileStats
}

func loadRoot(t *testing.T, dir string, prev *loadedTree, cutoff time.Time) (*loadedTree, error) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var c *corpus.Corpus
	var stats fileStats
	if prev != nil {
		c, stats = prev.Corpus, prev.stats
	}
	c, stats, err = loadReusing(t.Context(), root.FS(), c, stats, cutoff)
	if err != nil {
		return nil, err
	}
	return &loadedTree{c, stats}, nil
}

// TestLoadReusing: loadReusing a reload reuses the sources of unchanged files, reads
// changed, new and recently changed ones, drops removed ones, and always
// gives what a fresh Load gives.
func TestLoadReusing(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		testutil.WritePolicy(t, dir, fmt.Sprintf("d%d/p%02d.md", i%3, i), fmt.Sprintf("p%02d", i), fmt.Sprintf("Rule %d.", i))
	}
	first, err := loadRoot(t, dir, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	byID := func(c *loadedTree) map[string]*corpus.Source {
		m := map[string]*corpus.Source{}
		for _, s := range c.Sources {
			m[s.ID] = s
		}
		return m
	}
	// Changes: the same size with other bytes, another size, a new file, a
	// removed file.
	testutil.WritePolicy(t, dir, "d0/p00.md", "p00", "Rule X.")
	testutil.WritePolicy(t, dir, "d1/p01.md", "p01", "Rule 1, longer now.")
	testutil.WritePolicy(t, dir, "d2/new.md", "new", "New rule.")
	if err := os.Remove(filepath.Join(dir, "d2/p02.md")); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour) // every unchanged file counts as settled
	second, err := loadRoot(t, dir, first, future)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := loadRoot(t, dir, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fresh.Sources, second.Sources, cmp.AllowUnexported(corpus.Date{}, corpus.Source{})); diff != "" {
		t.Errorf("loadReusing() differs from Load() (-Load +loadReusing):\n%s", diff)
	}
	if second.Digest != fresh.Digest {
		t.Errorf("digest %s, want %s", second.Digest, fresh.Digest)
	}
	before, after := byID(first), byID(second)
	for id, s := range after {
		changed := id == "p00" || id == "p01" || id == "new"
		if reused := before[id] == s; reused == changed {
			t.Errorf("source %s: reused %v, want %v", id, reused, !changed)
		}
	}
	if _, ok := after["p02"]; ok {
		t.Error("the removed file's source is still there")
	}
	if q, _ := after["p05"].Quote(corpus.Range{Start: 1, End: 1}); q != "Rule 5." {
		t.Errorf("quote of a reused source = %q", q)
	}

	// Files changed after the cutoff are read again, even unchanged.
	third, err := loadRoot(t, dir, second, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for id, s := range byID(third) {
		if after[id] == s {
			t.Errorf("source %s reused although it changed after the cutoff", id)
		}
	}

	// A broken file fails the reload as it fails a load.
	if err := os.WriteFile(filepath.Join(dir, "d0/broken.md"), []byte("no front matter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadRoot(t, dir, third, future); err == nil {
		t.Error("loadReusing() with a broken file succeeded")
	}
}
