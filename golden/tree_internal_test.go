package golden

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestGoldenFoldersOpenAndClose: a run holds a folder's root only while
// the folder has cases left, reads through it what the tree's root
// reads, and holds nothing after close (cases a stopped run never
// reached included), so a run of many case files stays within the
// process's open-file limit.
func TestGoldenFoldersOpenAndClose(t *testing.T) {
	tree := t.TempDir()
	for _, name := range []string{"x/testdata/golden/one/a.golden", "x/testdata/golden/two/c.golden"} {
		p := filepath.Join(tree, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(rel string) *Case { return &Case{golden: inTree{root: tree, rel: "x/testdata/golden/" + rel}} }
	a, b, c := at("one/a.golden"), at("one/b.golden"), at("two/c.golden")
	f := newGoldenFolders([]*Case{a, b, c})

	if data, ok := f.read(a.golden); !ok || string(data) != "x/testdata/golden/one/a.golden" {
		t.Fatalf("read(a) = %q, %v", data, ok)
	}
	if _, ok := f.read(b.golden); ok {
		t.Fatal("read(b) = ok, want a missing golden left to inTree.read")
	}
	if _, err := b.golden.read(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("b.golden.read() = %v, want a missing golden", err)
	}
	if len(f.open) != 1 || len(f.trees) != 1 {
		t.Fatalf("after reading folder one: %d folders and %d trees open, want 1 and 1", len(f.open), len(f.trees))
	}
	f.done(a.golden)
	if len(f.open) != 1 {
		t.Fatalf("folder one closed with b still to run")
	}
	f.done(b.golden)
	if len(f.open) != 0 {
		t.Fatalf("folder one still open after its last case")
	}
	if _, ok := f.read(c.golden); !ok {
		t.Fatal("read(c) failed")
	}
	// c's case never reports done (a stopped run): close still closes.
	f.close()
	if len(f.open) != 0 || len(f.trees) != 0 {
		t.Errorf("after close: %d folders and %d trees open", len(f.open), len(f.trees))
	}
}
