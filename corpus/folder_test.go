package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenFolder: the folder's files are read, a link inside it is
// followed, one that leaves it does not open, and a missing folder is an
// error.
func TestOpenFolder(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("out"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("in"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "inside.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "leaves.md")); err != nil {
		t.Fatal(err)
	}
	fsys, done, err := OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	for name, want := range map[string]string{"a.md": "in", "inside.md": "in"} {
		if got, err := fs.ReadFile(fsys, name); err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if got, err := fs.ReadFile(fsys, "leaves.md"); err == nil {
		t.Errorf("ReadFile(leaves.md) = %q through a link out of the folder, want an error", got)
	}
	if _, _, err := OpenFolder(filepath.Join(dir, "missing")); err == nil {
		t.Error("OpenFolder(missing) opened")
	}
}
