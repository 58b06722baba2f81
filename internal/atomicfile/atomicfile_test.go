package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "golden.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "new" {
		t.Fatalf("after Write: %q, %v; want \"new\"", got, err)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	assertOnly(t, dir, "golden.json")
}

// A write that cannot finish leaves the old file as it was and no
// temporary file behind.
func TestWriteFailureLeavesFileAlone(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	// A non-empty directory cannot be replaced by a file: the rename fails.
	if err := os.MkdirAll(filepath.Join(target, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("new"), 0o644); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if info, err := os.Stat(filepath.Join(target, "keep")); err != nil || !info.IsDir() {
		t.Errorf("the directory was changed: %v", err)
	}
	assertOnly(t, dir, "target")

	if err := Write(filepath.Join(dir, "missing", "x"), []byte("new"), 0o644); err == nil {
		t.Error("Write into a missing folder succeeded")
	}
	assertOnly(t, dir, "target")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("folder holds %v, want only %v", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("folder holds %v, want only %v", got, names)
		}
	}
}
