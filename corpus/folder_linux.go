//go:build linux

package corpus

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ka2/ka2/internal/inputfile"
)

// folder is a corpus folder opened for one load on Linux (see
// OpenFolder): os.Root's file system, but for two things it does with
// fewer system calls. ReadDir opens each folder once, relative to its
// parent's descriptor, and keeps it open until the load is over; a
// policy file the walk has listed in such a folder is then read with
// openat(folder, name) + pread + close, straight on the descriptor,
// where os.Root opens every folder of the path again for every file and
// each *os.File costs fcntl, fstat and a failed epoll_ctl on top.
//
// Measured 2026-12-02 against main before it, interleaved: a load of
// 10,000 generated sources made 14.3 file system calls a file (openat,
// close, read, fstat, newfstatat, fcntl, epoll_ctl, getdents64, counted
// with `strace -f -c` over corpus.Folder(dir).Load), and makes 3.8 (of
// `strace -f -c ka2perf load -dir /tmp/ka2perf/gen-10000 -repeat 1`,
// which walks the folder once more to size it: 15.7 to 5.2); `ka2perf
// load -dir /tmp/ka2perf/gen-N -repeat 1 -json`, medians of 3 on a busy
// machine, took 1.90 s wall and 3.27 s CPU at 100k sources and 45.4 s
// and 39.1 s at 1M, and takes 1.23 s and 2.22 s, 25.9 s and 30.4 s
// (0.65× and 0.57× the wall time). lint.Run over
// OpenFolder (as `ka2 lint` runs), reading through corpus.ReadListed:
// 17.3 to 3.8 calls a file at 10,000 sources, 10.5 s to 8.4 s CPU at
// 100,000 (wall too noisy on the shared machine to say).
//
// Every guarantee of OpenFolder holds: the folder is opened once (the
// descriptors all descend from the root's), no link is followed on the
// fast path (O_NOFOLLOW at every step), and whatever is not a plain file
// in a plain folder — a link, a file that turned special, any error — is
// read through os.Root as before, so that it gives the same result and
// the same problem.
type folder struct {
	root *os.Root
	fsys fs.FS // root.FS()
	top  int   // the descriptor of the root folder, from root.Open(".")

	mu     sync.RWMutex
	dirs   map[string]int // descriptors of the folders ReadDir listed, by path
	files  []*os.File     // what holds those descriptors (and top), closed by close
	closed bool
	// reads counts the files read on the fast path, for tests.
	reads atomic.Int64
}

// maxHeld bounds the folders a load holds open: past it, ReadDir and the
// reads below a folder go through os.Root, so that a tree of very many
// folders cannot use up the process's descriptors. A quarter of the
// limit leaves the rest to the service's connections and other loads.
var maxHeld = func() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return int(min(lim.Cur/4, 1<<16))
}()

// rootFolder is the file system of the corpus folder root, and what
// releases it (see OpenFolder).
func rootFolder(root *os.Root) (fs.FS, func()) {
	fsys := root.FS()
	top, err := root.Open(".") // the one folder root holds, not its path again
	if err != nil {
		// os.Root alone still reads the folder, only more slowly.
		return fsys, func() { root.Close() }
	}
	f := &folder{root: root, fsys: fsys, top: int(top.Fd()), dirs: map[string]int{}, files: []*os.File{top}}
	return f, f.close
}

// close releases the folders held and the root; a read after it goes to
// os.Root, which says the root is closed.
func (f *folder) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	for _, file := range f.files {
		file.Close()
	}
	f.files, f.dirs = nil, nil
	f.root.Close()
}

// Open, Stat, ReadFile, ReadLink and Lstat are os.Root's.
func (f *folder) Open(name string) (fs.File, error) { return f.fsys.Open(name) }

// Stat is os.Root's.
func (f *folder) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.fsys, name) }

// ReadFile is os.Root's.
func (f *folder) ReadFile(name string) ([]byte, error) { return fs.ReadFile(f.fsys, name) }

// ReadLink is os.Root's.
func (f *folder) ReadLink(name string) (string, error) { return fs.ReadLink(f.fsys, name) }

// Lstat is os.Root's.
func (f *folder) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(f.fsys, name) }

// ReadDir lists the folder name as os.Root does, opening it relative to
// its parent's descriptor when ReadDir listed the parent, and holds it
// open for the reads of its files. A folder that is a link, or that
// cannot be opened so, is listed by os.Root, and not held.
func (f *folder) ReadDir(name string) ([]fs.DirEntry, error) {
	if entries, ok := f.readDir(name); ok {
		return entries, nil
	}
	return fs.ReadDir(f.fsys, name)
}

func (f *folder) readDir(name string) ([]fs.DirEntry, bool) {
	if !fs.ValidPath(name) {
		return nil, false
	}
	parent, base := f.top, "."
	f.mu.RLock()
	_, listed := f.dirs[name] // then the first listing's descriptor is the one held
	if name != "." {
		var ok bool
		parent, ok = f.dirs[path.Dir(name)]
		listed = listed || !ok
		base = path.Base(name)
	}
	if f.closed || listed || len(f.files) > maxHeld {
		f.mu.RUnlock()
		return nil, false
	}
	// Under the read lock: close cannot close parent meanwhile.
	fd, err := inputfile.OpenDirAt(parent, base)
	f.mu.RUnlock()
	if err != nil {
		return nil, false
	}
	// Named as os.Root names the folders it opens, so that the entries'
	// Info is the same.
	shown := f.root.Name()
	if !strings.HasSuffix(shown, string(filepath.Separator)) {
		shown += string(filepath.Separator)
	}
	dir := os.NewFile(uintptr(fd), shown+filepath.FromSlash(name))
	entries, err := dir.ReadDir(-1)
	if err != nil {
		dir.Close()
		return nil, false
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	f.mu.Lock()
	defer f.mu.Unlock()
	switch _, again := f.dirs[name]; {
	case f.closed:
		dir.Close()
	case again:
		f.files = append(f.files, dir) // another listing won; closed with the rest
	default:
		f.dirs[name] = fd
		f.files = append(f.files, dir)
	}
	return entries, true
}

// readListed reads the policy file at name, which the walk has just
// listed as a regular file, as inputfile.ReadListed reads it from
// os.Root: the same bytes, or the same error.
func (f *folder) readListed(name string, limit int64) ([]byte, error) {
	data, ok, open := f.read(name, limit)
	switch {
	case ok:
		return data, nil
	case open:
		// It opened but did not read as a plain file: it may have turned
		// into a named pipe since the walk, so let its status speak first.
		data, _, err := inputfile.ReadFS(f.fsys, name, limit)
		return data, err
	}
	data, _, err := inputfile.ReadListed(f.fsys, name, limit)
	return data, err
}

// read reads the plain file name in a held folder (inputfile.ReadAt):
// ok with its bytes, or not ok, open saying whether it got as far as
// opening it.
func (f *folder) read(name string, limit int64) (data []byte, ok, open bool) {
	if !fs.ValidPath(name) {
		return nil, false, false // os.Root refuses it, and says so
	}
	dir, base := path.Dir(name), path.Base(name)
	f.mu.RLock()
	defer f.mu.RUnlock() // close cannot close the folder meanwhile
	parent, held := f.dirs[dir]
	if !held || f.closed {
		return nil, false, false
	}
	data, ok, open = inputfile.ReadAt(parent, base, limit)
	if ok {
		f.reads.Add(1)
	}
	return data, ok, open
}
