//go:build linux

package inputfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadAt: ReadAt reads a plain regular file whole, at and past its
// buffer's edge, and leaves everything else to the careful way (ok
// false), saying whether it opened it; a named pipe never blocks it.
func TestReadAt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.md", "a policy\n")
	write("empty.md", "")
	write("edge.md", strings.Repeat("x", ReadAtBuffer))
	write("large.md", strings.Repeat("y", 3*ReadAtBuffer+5))
	if err := os.Symlink("small.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	for _, c := range []struct {
		name       string
		limit      int64
		want       string // when ok
		ok, opened bool
	}{
		{"small.md", MaxSize, "a policy\n", true, true},
		{"edge.md", MaxSize, strings.Repeat("x", ReadAtBuffer), true, true},
		{"large.md", MaxSize, strings.Repeat("y", 3*ReadAtBuffer+5), true, true},
		{"small.md", 4, "", false, true},            // over the limit
		{"large.md", ReadAtBuffer, "", false, true}, // over the limit, found by fstat
		{"empty.md", MaxSize, "", false, true},      // empty: the careful way reads it
		{"link.md", MaxSize, "", false, false},      // a link is not followed
		{"pipe.md", MaxSize, "", false, true},       // opens at once, refuses pread
		{"sub", MaxSize, "", false, true},           // a folder
		{"missing.md", MaxSize, "", false, false},
	} {
		data, ok, opened := ReadAt(fd, c.name, c.limit)
		if ok != c.ok || opened != c.opened || (ok && string(data) != c.want) {
			t.Errorf("ReadAt(%s, %d) = %d bytes, ok %v, opened %v; want ok %v, opened %v", c.name, c.limit, len(data), ok, opened, c.ok, c.opened)
		}
	}
	sub, err := OpenDirAt(fd, "sub")
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(sub)
	if err := os.Symlink("sub", filepath.Join(dir, "sublink")); err != nil {
		t.Fatal(err)
	}
	if fd2, err := OpenDirAt(fd, "sublink"); err == nil {
		syscall.Close(fd2)
		t.Error("OpenDirAt followed a link to a folder")
	}
}
