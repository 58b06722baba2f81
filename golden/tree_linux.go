package golden

import (
	"os"
	"path/filepath"

	"github.com/ka2/ka2/internal/inputfile"
)

// fastFolder reads the goldens of one golden folder with inputfile.ReadAt
// relative to the folder's descriptor (openat, one pread, close): 3
// system calls a golden, where os.Root's Stat and OpenFile and the read
// to the end take 7 (a stat, the open, the poller's epoll_ctl, an fstat,
// two reads, the close). The folder is the one its tree's os.Root
// opened, so it is inside the tree; a name is one element opened without
// following a link, so nothing outside is reached. Only a name the
// folder's listing shows as a regular file is opened (the listing is the
// check before opening that inputfile.ReadFile makes with a stat);
// anything else, and any read ReadAt leaves to the careful way, is left
// to os.Root (ok false), which reads, refuses and words it as before.
//
// Measured beside main (os.Root's Stat, OpenFile, read to the end, and
// a listing that stats every entry), 2026-12-02: `strace -f ka2perf
// regress -n 2000`, the timed load and run, 17,015 system calls against
// 7,290 (8.5 a case against 3.6); `go run ./internal/tools/ka2perf
// regress -n 20000`, three pairs taking turns, CPU 1.45 s against
// 1.15 s, medians (0.79×).
type fastFolder struct {
	dir     *os.File
	fd      int
	regular map[string]bool
}

// openFastFolder opens r's folder for fast reads and lists it; nil when
// either fails (every golden is then read through r).
func openFastFolder(r *os.Root) *fastFolder {
	d, err := openDirIn(r, ".")
	if err != nil {
		return nil
	}
	entries, err := d.ReadDir(-1)
	fd := -1
	if err == nil {
		if rc, cerr := d.SyscallConn(); cerr == nil {
			rc.Control(func(p uintptr) { fd = int(p) })
		}
	}
	if fd < 0 {
		d.Close()
		return nil
	}
	ff := &fastFolder{dir: d, fd: fd, regular: make(map[string]bool, len(entries))}
	for _, e := range entries {
		if e.Type().IsRegular() {
			ff.regular[e.Name()] = true
		}
	}
	return ff
}

// openDirIn opens the folder name inside r (os.Root resolves it, so it is
// inside r) as a file whose ReadDir types each entry from the listing
// itself. ReadDir on a file os.Root opened stats every entry as it lists
// it: one system call a golden in Load's listing and another in Run's.
// Where the folder cannot be opened again so, it is returned as os.Root
// opened it.
func openDirIn(r *os.Root, name string) (*os.File, error) {
	d, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	rc, err := d.SyscallConn()
	if err != nil {
		return d, nil
	}
	nfd := -1
	rc.Control(func(p uintptr) { nfd, _ = inputfile.OpenDirAt(int(p), ".") })
	if nfd < 0 {
		return d, nil
	}
	d.Close()
	return os.NewFile(uintptr(nfd), filepath.Join(r.Name(), filepath.FromSlash(name))), nil
}

// read reads the listed regular file name: ok with its bytes, or not ok,
// and the caller reads it through os.Root.
func (ff *fastFolder) read(name string) ([]byte, bool) {
	if ff == nil || !ff.regular[name] {
		return nil, false
	}
	data, ok, _ := inputfile.ReadAt(ff.fd, name, inputfile.MaxSize)
	return data, ok
}

// close closes the folder's descriptor.
func (ff *fastFolder) close() {
	if ff != nil {
		ff.dir.Close()
	}
}
