package golden

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
)

// CodeGoldenNotFile is the code of a golden, pending golden or golden
// folder that is not a regular file (or folder) inside the case tree: a
// link that leads out of the tree, to nothing or in a loop, a named
// pipe, a device. Load reports it before any golden is read.
const CodeGoldenNotFile diag.Code = "golden_not_file"

// inTree is a path inside a case tree: the tree's folder, as an OS path,
// and the path below it, slash-separated. The tree is the folder named
// to Load that a case file was found in, or a named case file's own
// folder. Goldens are read, written and deleted only through os.Root
// opened on it, so no link in the tree, put there before the run or
// during it, makes ka2 read or write a file outside: the files a pull
// request can add to a case tree are data, not a way to the runner's
// files.
type inTree struct {
	root string
	rel  string
}

// shown is the path as reports name it.
func (t inTree) shown() string { return path.Join(filepath.ToSlash(t.root), t.rel) }

// with returns the path with suffix appended to its name.
func (t inTree) with(suffix string) inTree { return inTree{t.root, t.rel + suffix} }

// read reads the file, at most inputfile.MaxSize, if it is a regular
// file inside the tree.
func (t inTree) read() ([]byte, error) {
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return inputfile.ReadIn(r, t.rel, inputfile.MaxSize)
}

// write replaces the file atomically (atomicfile.WriteIn), making its
// folders, all inside the tree.
func (t inTree) write(ctx context.Context, data []byte) error {
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return fmt.Errorf("write %s: %w", t.shown(), err)
	}
	defer r.Close()
	return atomicfile.WriteIn(ctx, r, t.rel, data, 0o644)
}

// remove deletes the file (a link itself, never what it leads to); a
// missing file is not an error.
func (t inTree) remove() error {
	r, err := os.OpenRoot(t.root)
	if err == nil {
		err = r.Remove(t.rel)
		r.Close()
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", t.shown(), err)
	}
	return nil
}

// check reports a golden or pending golden that ka2 would not read: one
// that exists and is not a regular file inside the tree, or a link to
// one. A missing file is fine.
func (t inTree) check(what string) *diag.Diagnostic {
	r, err := os.OpenRoot(t.root)
	if err == nil {
		_, err = atomicfile.ResolveIn(r, t.rel)
		r.Close()
	}
	if err == nil {
		return nil
	}
	d := &diag.Diagnostic{Pos: diag.Pos{Path: t.shown()}, Code: CodeUnreadable, Message: "cannot read the " + what + ": " + inputfile.Reason(err)}
	if errors.Is(err, atomicfile.ErrNotFile) {
		d.Code = CodeGoldenNotFile
		d.Message = "the " + what + " is not a file ka2 reads: " + inputfile.Reason(err)
		d.Hint = diag.Set(fmt.Sprintf("goldens are regular files inside the case tree %s (a link inside it to one is fine); delete it, and run {update} to write it again",
			filepath.ToSlash(t.root)))
	}
	return d
}

// checkDir reports a golden folder that leads out of the tree or is not
// a folder; its listing (unreferenced goldens) and pruning would
// otherwise reach outside.
func (t inTree) checkDir() *diag.Diagnostic {
	r, err := os.OpenRoot(t.root)
	var info fs.FileInfo
	if err == nil {
		info, err = r.Stat(t.rel)
		r.Close()
	}
	switch {
	case err == nil && info.IsDir():
		return nil
	case err == nil:
		return nil // a file among the golden folders is no folder to list
	case errors.Is(err, fs.ErrNotExist):
		return nil
	}
	reason := inputfile.Reason(err)
	if errors.Is(err, syscall.ELOOP) {
		reason = "it is a symbolic link in a loop"
	} else if strings.Contains(reason, "escapes") { // os.Root's error is not exported
		reason = "it is, or is inside, a symbolic link that leads out of the tree"
	}
	return &diag.Diagnostic{Pos: diag.Pos{Path: t.shown()}, Code: CodeGoldenNotFile,
		Message: "the golden folder cannot be read inside the case tree: " + reason,
		Hint:    diag.Fix(fmt.Sprintf("golden folders are folders inside the case tree %s; replace the link with the folder", filepath.ToSlash(t.root)))}
}

// list returns the entries of the folder, by name.
func (t inTree) list() (map[string]fs.DirEntry, error) {
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := openDirIn(r, t.rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]fs.DirEntry, len(entries))
	for _, e := range entries {
		byName[e.Name()] = e
	}
	return byName, nil
}

// dir is the folder the file is in.
func (t inTree) dir() inTree { return inTree{t.root, path.Dir(t.rel)} }

// goldenFolders reads the goldens of one run through an os.Root on each
// golden folder, opened through the case tree's own os.Root (so it is a
// folder inside the tree) when its first case reads and closed after its
// last. A golden is then one open of one name in that folder: through the
// tree's root every stat and open walks each folder from the tree down,
// and a run of 10,000 cases spent three quarters of its time in those
// walks (ka2perf regress). Where the platform has one (heldFolder's
// fast), a golden the folder's listing shows as a regular file is read
// with fewer system calls still. A golden the folder's root does not
// reach as a regular file (missing, or a link that leaves the folder) is
// read as inTree.read reads it (readGolden), so what is read, refused and
// said is the same.
type goldenFolders struct {
	mu    sync.Mutex
	trees map[string]*os.Root    // by tree; nil: cannot be opened
	open  map[inTree]*heldFolder // by golden folder; nil: cannot be opened
	left  map[inTree]int         // cases still to read in each golden folder
	fast  atomic.Int64           // goldens read by a folder's fast reader (for tests)
}

// heldFolder is an open golden folder: its os.Root, and the platform's
// fast reader on it (nil where there is none, or it could not be opened).
type heldFolder struct {
	root *os.Root
	fast *fastFolder
}

// newGoldenFolders prepares the reads of cases' goldens; every case is
// then passed to done once, read or not, and close is called at the end.
func newGoldenFolders(cases []*Case) *goldenFolders {
	f := &goldenFolders{trees: map[string]*os.Root{}, open: map[inTree]*heldFolder{}, left: map[inTree]int{}}
	for _, c := range cases {
		f.left[c.golden.dir()]++
	}
	return f
}

// read reads the golden g through its folder, with the fast reader if it
// reads it and else one open of one name in the folder's root, if that
// reaches a regular file; ok is false otherwise (a missing golden, one
// that links out of its folder, and any golden when f is nil), and
// readGolden then reads it as inTree.read does.
func (f *goldenFolders) read(g inTree) (data []byte, ok bool) {
	if f == nil {
		return nil, false
	}
	h := f.folder(g.dir())
	if h == nil {
		return nil, false
	}
	name := path.Base(g.rel)
	if data, ok := h.fast.read(name); ok {
		f.fast.Add(1)
		return data, true
	}
	data, err := inputfile.ReadIn(h.root, name, inputfile.MaxSize)
	return data, err == nil
}

// folder returns the open golden folder, opening it (and its tree's root)
// on first use; nil when it cannot be opened.
func (f *goldenFolders) folder(dir inTree) *heldFolder {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h, ok := f.open[dir]; ok {
		return h
	}
	tree, ok := f.trees[dir.root]
	if !ok {
		tree, _ = os.OpenRoot(dir.root)
		f.trees[dir.root] = tree
	}
	var h *heldFolder
	if tree != nil {
		if r, err := tree.OpenRoot(dir.rel); err == nil {
			h = &heldFolder{root: r, fast: openFastFolder(r)}
		}
	}
	f.open[dir] = h
	return h
}

// close closes the folder's fast reader and root.
func (h *heldFolder) close() {
	h.fast.close()
	h.root.Close()
}

// done says that golden g's case is over; its folder is closed after the
// folder's last case.
func (f *goldenFolders) done(g inTree) {
	dir := g.dir()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.left[dir]--; f.left[dir] > 0 {
		return
	}
	if h := f.open[dir]; h != nil {
		h.close()
	}
	delete(f.open, dir)
}

// close closes every folder still open (those of cases a stopped run
// never started, and the trees').
func (f *goldenFolders) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for dir, h := range f.open {
		if h != nil {
			h.close()
		}
		delete(f.open, dir)
	}
	for tree, r := range f.trees {
		if r != nil {
			r.Close()
		}
		delete(f.trees, tree)
	}
}
