//go:build linux

package inputfile

import (
	"slices"
	"sync"
	"syscall"
)

// The readers of many small files (a corpus load, a regress run's
// goldens) read each one relative to its folder's descriptor: openat +
// pread + close, straight on the descriptor, where os.Root opens every
// folder of the path again for each file and each *os.File costs fcntl,
// fstat and a failed epoll_ctl on top. What each reader measured is
// beside it (corpus/folder_linux.go, golden/tree_linux.go).

// OpenDirAt opens the folder name in the folder dirfd, without following
// a link: a descriptor for ReadAt, which the caller closes.
func OpenDirAt(dirfd int, name string) (int, error) {
	return retry(func() (int, error) {
		return syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	})
}

// ReadAtBuffer is the size of ReadAt's read buffer: a file smaller than
// it is read with one pread. Generated policies are 1.4 KB, real ones and
// goldens a few KB; a file of exactly this size is the edge tests try.
const ReadAtBuffer = 32 << 10

// bufs keeps ReadAt's buffers. It earns its place: reading a 1.4 KB
// file (`go test ./internal/inputfile -run '^$' -bench ReadAt -count 3`,
// 2026-12-02, a busy machine) allocates 1.4 KB a read with the pool and
// 34 KB without it, and took 5.7–7.4 µs against 17–35 µs (the zeroing
// of a fresh buffer and the collections it brings).
var bufs = sync.Pool{New: func() any { b := make([]byte, ReadAtBuffer); return &b }}

// ReadAt reads name, one element in the folder dirfd, if it is a plain
// regular file of at most limit bytes: ok with its bytes. Otherwise ok is
// false and the caller reads it the careful way (ReadFS, ReadListed),
// which gives the same bytes or words the problem; opened says whether
// ReadAt got as far as opening it, so that the caller lets the file's
// status speak first (it may have turned into a named pipe).
//
// The file is opened without following a link and without blocking (a
// named pipe put there since the caller listed it opens at once), and
// read with pread, which a pipe, a socket or a terminal refuses. A first
// read shorter than the buffer is the whole file, as for any regular
// file. A read that comes back empty, or fills the buffer, is checked
// with fstat: an empty file, a device, or a file larger than the buffer.
func ReadAt(dirfd int, name string, limit int64) (data []byte, ok, opened bool) {
	fd, err := retry(func() (int, error) {
		return syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	})
	if err != nil {
		return nil, false, false
	}
	defer syscall.Close(fd)
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	n, err := pread(fd, buf, 0)
	if err != nil || n == 0 {
		return nil, false, true
	}
	if n < len(buf) {
		if int64(n) > limit {
			return nil, false, true // the careful way says it is too large
		}
		return slices.Clone(buf[:n]), true, true
	}
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > limit {
		return nil, false, true
	}
	data = make([]byte, n, max(int64(n), st.Size)+1)
	copy(data, buf)
	for int64(len(data)) <= limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		m, err := pread(fd, data[len(data):cap(data)], int64(len(data)))
		if err != nil {
			return nil, false, true
		}
		if m == 0 {
			return data, true, true
		}
		data = data[:len(data)+m]
	}
	return nil, false, true // grew past limit since fstat: the careful way says so
}

func pread(fd int, p []byte, off int64) (int, error) {
	return retry(func() (int, error) { return syscall.Pread(fd, p, off) })
}

func fstat(fd int, st *syscall.Stat_t) error {
	_, err := retry(func() (int, error) { return 0, syscall.Fstat(fd, st) })
	return err
}

// retry calls f again while a signal interrupts it.
func retry(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
