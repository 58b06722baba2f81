//go:build unix

package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles: a named pipe without a writer and character devices
// are refused at once, never read. Each read runs beside a deadline, so
// that a regression fails the test instead of hanging it.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("pipe.md", link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path, want string }{
		{"fifo", fifo, "a named pipe (FIFO)"},
		{"link to a fifo", link, "a named pipe (FIFO)"},
		{"/dev/zero", "/dev/zero", "a character device"},
		{"/dev/null", "/dev/null", "a character device"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 2)
			go func() {
				_, err := ReadFile(tt.path, MaxSize)
				done <- err
			}()
			go func() {
				_, _, err := ReadFS(os.DirFS(filepath.Dir(tt.path)), filepath.Base(tt.path), MaxSize)
				done <- err
			}()
			deadline := time.NewTimer(30 * time.Second)
			defer deadline.Stop()
			for range 2 {
				select {
				case err := <-done:
					if !errors.Is(err, ErrNotRegular) {
						t.Errorf("read %s: error %v, want ErrNotRegular", tt.path, err)
					} else if want := "it is " + tt.want + ", not a regular file"; !strings.Contains(err.Error(), want) {
						t.Errorf("read %s: error %q, want it to say %q", tt.path, err, want)
					}
				case <-deadline.C:
					t.Fatalf("read %s still blocks after 30 s", tt.path)
				case <-t.Context().Done():
					t.Fatal("test cancelled")
				}
			}
		})
	}
}
