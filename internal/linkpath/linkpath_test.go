package linkpath_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/linkpath"
)

func link(target string) *fstest.MapFile {
	return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
}

// chain is a tree of n links, l0 → l1 → … → l(n-1) → f.
func chain(n int) fstest.MapFS {
	fsys := fstest.MapFS{"f": {Data: []byte("x")}}
	for i := range n {
		to := fmt.Sprintf("l%d", i+1)
		if i == n-1 {
			to = "f"
		}
		fsys[fmt.Sprintf("l%d", i)] = link(to)
	}
	return fsys
}

// TestIn: a path inside a root, each link followed from its own folder;
// links that loop, take too many hops, are absolute or climb out of the
// root are errors, each of its kind.
func TestIn(t *testing.T) {
	tree := fstest.MapFS{
		"..2026_11_30/en/travel.md": {Data: []byte("policy")},
		"..data":                    link("..2026_11_30"),
		"en":                        link("..data/en"),
		"d/e/f.md":                  {Data: []byte("x")},
		"d/x.md":                    {Data: []byte("x")},
		"deep":                      link("d/e"),
		"up":                        link("d/e/../x.md"),
		"self":                      link("./self"),
		"a":                         link("b"),
		"b":                         link("a"),
		"abs":                       link("/etc/passwd"),
		"out.md":                    link("../secret.md"),
		"d/out":                     link("../../x"),
		"d/in":                      link("../en/travel.md"),
	}
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		path    string
		opts    linkpath.Options
		want    string
		wantErr error
	}{
		{"no link", tree, "..2026_11_30/en", linkpath.Options{}, "..2026_11_30/en", nil},
		{"through two links", tree, "en/travel.md", linkpath.Options{}, "..2026_11_30/en/travel.md", nil},
		{"a link in the middle", tree, "deep/f.md", linkpath.Options{}, "d/e/f.md", nil},
		{"dot-dot after a link is from where it leads", tree, "deep/../x.md", linkpath.Options{}, "d/x.md", nil},
		{"dot-dot in a link's text", tree, "up", linkpath.Options{}, "d/x.md", nil},
		{"relative to the link's folder", tree, "d/in", linkpath.Options{}, "..2026_11_30/en/travel.md", nil},
		{"the root", tree, ".", linkpath.Options{}, ".", nil},
		{"the root by dot-dot", tree, "d/..", linkpath.Options{}, ".", nil},
		{"loop of two", tree, "a/x.md", linkpath.Options{}, "", linkpath.ErrLoop},
		{"loop of one", tree, "self", linkpath.Options{}, "", linkpath.ErrLoop},
		{"as many hops as the bound", chain(linkpath.MaxLinks), "l0", linkpath.Options{}, "f", nil},
		{"one hop too many", chain(linkpath.MaxLinks + 1), "l0", linkpath.Options{}, "", linkpath.ErrLoop},
		{"absolute target", tree, "abs", linkpath.Options{}, "", linkpath.ErrAbsolute},
		{"escaping the root", tree, "out.md", linkpath.Options{}, "", linkpath.ErrOutside},
		{"escaping from a folder", tree, "d/out", linkpath.Options{}, "", linkpath.ErrOutside},
		{"a name that climbs out", tree, "../x", linkpath.Options{}, "", linkpath.ErrOutside},
		{"missing", tree, "deep/nothing/y.md", linkpath.Options{}, "", fs.ErrNotExist},
		{"missing, allowed", tree, "deep/nothing/y.md", linkpath.Options{Missing: true}, "d/e/nothing/y.md", nil},
		{"missing, then out", tree, "nothing/../../y.md", linkpath.Options{Missing: true}, "", linkpath.ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := linkpath.In(tt.fsys, tt.path, tt.opts)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("In(%q) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.wantErr)
			}
		})
	}
	if !errors.Is(linkpath.ErrAbsolute, linkpath.ErrOutside) {
		t.Error("ErrAbsolute does not match ErrOutside")
	}
}

// TestInVisits: each link is reported once it is passed, in order, as
// the tree names it.
func TestInVisits(t *testing.T) {
	var seen []string
	fsys := fstest.MapFS{"x/real/f": {}, "x/cur": link("real"), "top": link("x/cur")}
	got, err := linkpath.In(fsys, "top/f", linkpath.Options{Visit: func(l string) { seen = append(seen, l) }})
	if err != nil || got != "x/real/f" {
		t.Fatalf("In(top/f) = %q, %v", got, err)
	}
	if diff := cmp.Diff([]string{"top", "x/cur"}, seen); diff != "" {
		t.Errorf("links passed mismatch (-want +got):\n%s", diff)
	}
}

// tempTree makes base/real/f, base/rel → real, base/abs → base/rel
// (absolute), base/loop → loop and base/up → real/../real/f, and
// returns base with its own links resolved.
func tempTree(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "real", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(base, "rel")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for name, to := range map[string]string{"abs": filepath.Join(base, "rel"), "loop": "loop", "up": filepath.Join("real", "..", "rel", "f")} {
		if err := os.Symlink(to, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// TestSystem: a path of the system, relative and absolute link texts
// followed as the system follows them, each link visited, a loop
// ErrLoop after MaxLinks links.
func TestSystem(t *testing.T) {
	base := tempTree(t)
	var seen []string
	got, err := linkpath.System(filepath.Join(base, "abs", "f"), linkpath.Options{Visit: func(l string) { seen = append(seen, l) }})
	if want := filepath.Join(base, "real", "f"); err != nil || got != want {
		t.Fatalf("System(abs/f) = %q, %v; want %q", got, err, want)
	}
	if want := []string{filepath.Join(base, "abs"), filepath.Join(base, "rel")}; !slices.Equal(seen, want) {
		t.Errorf("links passed = %q, want %q", seen, want)
	}
	if got, err := linkpath.System(filepath.Join(base, "up"), linkpath.Options{}); err != nil || got != filepath.Join(base, "real", "f") {
		t.Errorf("System(up) = %q, %v", got, err)
	}
	// The top is its own parent, as for the system.
	top := string(filepath.Separator) + ".." + base
	if got, err := linkpath.System(top, linkpath.Options{}); err != nil || got != base {
		t.Errorf("System(%s) = %q, %v; want %q", top, got, err, base)
	}
	n := 0
	if _, err := linkpath.System(filepath.Join(base, "loop"), linkpath.Options{Visit: func(string) { n++ }}); !errors.Is(err, linkpath.ErrLoop) || n != linkpath.MaxLinks {
		t.Errorf("System(loop) = %v after %d links; want ErrLoop after %d", err, n, linkpath.MaxLinks)
	}
	if _, err := linkpath.System(filepath.Join(base, "nothing", "f"), linkpath.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("System(nothing/f) = %v; want not exist", err)
	}
}

// TestRoot: an os.Root is walked the same way, and a link out of it is
// refused by the walk, before the root would.
func TestRoot(t *testing.T) {
	base := tempTree(t)
	root, err := os.OpenRoot(base)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		path, want string
		wantErr    error
	}{
		{"rel/f", "real/f", nil},
		{"up", "real/f", nil},
		{"abs/f", "", linkpath.ErrAbsolute},
		{"loop", "", linkpath.ErrLoop},
	}
	for _, tt := range tests {
		got, err := linkpath.In(linkpath.Root{Root: root}, tt.path, linkpath.Options{})
		if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
			t.Errorf("In(root, %q) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.wantErr)
		}
	}
	sub, err := root.OpenRoot("real")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := os.Symlink(filepath.Join("..", "rel"), filepath.Join(base, "real", "back")); err != nil {
		t.Fatal(err)
	}
	if _, err := linkpath.In(linkpath.Root{Root: sub}, "back/f", linkpath.Options{}); !errors.Is(err, linkpath.ErrOutside) {
		t.Errorf("In(real, back/f) = %v; want ErrOutside", err)
	}
}
