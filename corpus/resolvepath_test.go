package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ka2/ka2/internal/linkpath"
)

// TestResolvePath: every link on the path is followed (relative and
// absolute targets, out of any root), each is reported once it is
// passed, and a loop is ErrLinkLoop after linkpath.MaxLinks hops.
func TestResolvePath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "v2")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("v2", filepath.Join(base, "current")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(base, "current"), filepath.Join(base, "corpus")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(base, "loop")); err != nil {
		t.Fatal(err)
	}
	var seen []string
	got, err := ResolvePath(filepath.Join(base, "corpus"), func(l string) { seen = append(seen, l) })
	if err != nil || got != real {
		t.Fatalf("ResolvePath(corpus) = %q, %v; want %q", got, err, real)
	}
	if want := []string{filepath.Join(base, "corpus"), filepath.Join(base, "current")}; !slices.Equal(seen, want) {
		t.Errorf("links passed = %q, want %q", seen, want)
	}
	n := 0
	if _, err := ResolvePath(filepath.Join(base, "loop"), func(string) { n++ }); !errors.Is(err, ErrLinkLoop) || n != linkpath.MaxLinks {
		t.Errorf("ResolvePath(loop) error = %v after %d links, want ErrLinkLoop after %d", err, n, linkpath.MaxLinks)
	}
}
