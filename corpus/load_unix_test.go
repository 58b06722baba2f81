//go:build unix

package corpus_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

// TestLoadFIFO: a named pipe named *.md in a real folder is refused at
// once; it used to block the load for good. The load runs beside a
// deadline so that a regression fails instead of hanging.
func TestLoadFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hotel-v1.md"), []byte(doc(hotel, threeLines)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	want := []string{"[unreadable] pipe.md: cannot read: it is a named pipe (FIFO), not a regular file; ka2 reads only regular files; replace it with a regular file, or rename it so that it does not end in .md"}
	if diff := cmp.Diff(want, problems(t, loadWithin(t, dir))); diff != "" {
		t.Errorf("Load() mismatch (-want +got):\n%s", diff)
	}
}

// loadWithin loads the folder dir beside a deadline, so that a load that
// blocks fails the test instead of hanging it.
func loadWithin(t *testing.T, dir string) error {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	done := make(chan error, 1)
	go func() {
		_, err := corpus.Load(root.FS())
		done <- err
	}()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	select {
	case err := <-done:
		return err
	case <-deadline.C:
		t.Fatal("Load() still blocks after 30 s")
	case <-t.Context().Done():
		t.Fatal("test cancelled")
	}
	return nil
}

// TestIgnoreFileSpecial: a .ka2ignore that is a named pipe, or larger than
// any input ka2 reads, is refused at once and named, through inputfile
// like every other input.
func TestIgnoreFileSpecial(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  string
	}{
		{"fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
		}, "[unreadable] .ka2ignore: cannot read: it is a named pipe (FIFO), not a regular file; ka2 reads only regular files; make the .ka2ignore file a readable regular file, or remove it"},
		{"over 4 MiB", func(t *testing.T, p string) {
			if err := os.WriteFile(p, make([]byte, 4<<20+1), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "[unreadable] .ka2ignore: cannot read: it is larger than 4 MiB, the most ka2 reads from one file; make the .ka2ignore file a readable regular file, or remove it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "hotel-v1.md"), []byte(doc(hotel, threeLines)), 0o644); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, filepath.Join(dir, corpus.IgnoreFile))
			if diff := cmp.Diff([]string{tt.want}, problems(t, loadWithin(t, dir))); diff != "" {
				t.Errorf("Load() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
