package golden

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ka2/ka2/internal/inputfile"
)

// TestFastFolderReadsWhatRootReads: every golden a run reads through the
// fast folder reader has the bytes os.Root reads (inTree.read), and every
// one it does not read plainly (a link, inside the folder or out of the
// tree, a named pipe listed as one or swapped in after the listing, a
// folder, an empty file, one over inputfile.MaxSize, a missing one)
// is left to os.Root, which reads or refuses it as before. The plain
// goldens, small, around the read buffer's size or with odd names, take the fast
// path: the system calls it saves are what it is for.
func TestFastFolderReadsWhatRootReads(t *testing.T) {
	outside := t.TempDir()
	tree := filepath.Join(outside, "tree")
	dir := filepath.Join(tree, "testdata", "golden", "cases")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bufLen := inputfile.ReadAtBuffer
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fast := map[string][]byte{
		"a.golden":           []byte("{\"template\": \"x\"}\n"),
		"one byte.golden":    []byte("x"),
		"ünï\tcode.golden":   []byte("ü\n"),
		"edge-1.golden":      bytes.Repeat([]byte("e"), bufLen-1),
		"b.golden.pending":   []byte("pending\n"),
		"crlf\r\nend.golden": []byte("a\r\nb\r\n"),
		"edge.golden":        bytes.Repeat([]byte("e"), bufLen),
		"big.golden":         bytes.Repeat([]byte("b"), bufLen+1),
	}
	for name, data := range fast {
		write(name, data)
	}
	write("empty.golden", nil)
	write("huge.golden", bytes.Repeat([]byte("h"), inputfile.MaxSize+1))
	write("swapped.golden", []byte("a file when listed\n"))
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("FAKE_SECRET=do-not-print\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"inside.golden": "a.golden", "out.golden": "../../../../secret", "abs.golden": filepath.Join(outside, "secret"), "dangling.golden": "nowhere", "loop.golden": "loop.golden"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.golden"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.golden"), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := []string{"empty.golden", "huge.golden", "swapped.golden", "inside.golden", "out.golden", "abs.golden", "dangling.golden", "loop.golden", "pipe.golden", "folder.golden", "missing.golden", "..", "."}
	var cases []*Case
	for _, name := range append(slow, slices.Collect(maps.Keys(fast))...) {
		cases = append(cases, &Case{golden: inTree{root: tree, rel: "testdata/golden/cases/" + name}})
	}
	f := newGoldenFolders(cases)
	defer f.close()
	f.folder(cases[0].golden.dir()) // list the folder, then swap a file for a pipe
	if err := os.Remove(filepath.Join(dir, "swapped.golden")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "swapped.golden"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		name := filepath.Base(c.golden.rel)
		before := f.fast.Load()
		got, err := readStored(c.golden, f)
		want, wantErr := c.golden.read()
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%q: read %q, %v; os.Root reads %q, %v", name, got, err, want, wantErr)
		}
		if strings.Contains(string(got), "FAKE_SECRET") {
			t.Errorf("%q: read a file outside the case tree", name)
		}
		if _, isFast := fast[name]; (f.fast.Load() > before) != isFast {
			t.Errorf("%q: fast reader used = %v, want %v", name, !isFast, isFast)
		}
		if errors.Is(err, os.ErrNotExist) && name != "missing.golden" && name != "dangling.golden" {
			t.Errorf("%q: %v", name, err)
		}
	}
}
