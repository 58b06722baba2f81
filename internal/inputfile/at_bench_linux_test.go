//go:build linux

package inputfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// BenchmarkReadAt reads a policy-sized file (1.4 KB) with ReadAt: the
// figure beside its buffers' pool.
func BenchmarkReadAt(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte(strings.Repeat("a policy line\n", 100)), 0o644); err != nil {
		b.Fatal(err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(fd)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := ReadAt(fd, "p.md", MaxSize); !ok {
			b.Fatal("not read")
		}
	}
}
