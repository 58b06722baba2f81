package corpus

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStampOf: a file's stamp is the same while it is left alone, and
// differs once it is written again or its time is moved; Changed is its
// modification time at the least.
func TestStampOf(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.md")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := func() Stamp {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return StampOf(info)
	}
	first := stamp()
	if again := stamp(); again != first {
		t.Errorf("stamp of an unchanged file changed: %+v then %+v", first, again)
	}
	if first.Size != 3 || !first.Mode.IsRegular() || first.Changed().Before(time.Unix(0, first.ModTime)) {
		t.Errorf("stamp = %+v, want size 3, a regular file, changed no earlier than modified", first)
	}
	if err := os.WriteFile(p, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if stamp() == first {
		t.Error("stamp unchanged after the file was written again")
	}
	later := time.Unix(0, first.ModTime).Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got := stamp(); got.ModTime != later.UnixNano() {
		t.Errorf("ModTime = %d, want %d", got.ModTime, later.UnixNano())
	}
}
