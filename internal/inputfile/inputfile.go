// Package inputfile decides which files ka2 reads and how much of them:
// only regular files (a symbolic link to one counts), and never more than
// a cap, so that no input can make ka2 block for good (a named pipe with
// no writer) or run out of memory (a character device such as /dev/zero,
// or a runaway file).
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxSize is the most ka2 reads from one input file: a policy file, a
// case file, a golden, a pipeline file, a provenance policy, a lint
// configuration, a contract definition or content file, a request file or
// standard input. 4 MiB is far beyond any real one — a policy file is
// quoted whole into a contract whose largest default budget is 4096
// tokens (about 16 KB of text), and a golden is one such contract — while
// it stops a runaway file before it takes the machine's memory.
const MaxSize = 4 << 20

// ErrNotRegular matches the error for a path that is not a regular file
// (a folder, a named pipe, a device, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge matches the error for input over the cap.
var ErrTooLarge = errors.New("input too large")

type notRegular struct{ mode fs.FileMode }

func (e notRegular) Error() string {
	return "it is " + Kind(e.mode) + ", not a regular file; ka2 reads only regular files"
}

func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

type tooLarge struct{ max int64 }

func (e tooLarge) Error() string {
	return fmt.Sprintf("it is larger than %s, the most ka2 reads from one file", Size(e.max))
}

func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

// TooLarge returns the error ReadFile gives for the named file over max
// bytes: for a reader that learns a file's size before reading it (from
// a listing, say).
func TooLarge(name string, max int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: tooLarge{max}}
}

// Kind names the type of a file mode for a person ("a folder", "a named
// pipe (FIFO)", …), for messages about a file that is not a regular one.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// Size writes n bytes as a person would, e.g. "4 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckMode returns the error ReadFile gives for a file of mode m, or nil
// for a regular file. Walks use it to refuse a special file by its
// directory entry, without opening it.
func CheckMode(name string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "read", Path: name, Err: notRegular{m}}
}

// ReadFile reads the named file, following symbolic links, as os.ReadFile
// does, but only a regular file of at most max bytes. The file's type is
// checked before it is opened (opening a device can have effects of its
// own), and again on the open file, which is opened without blocking where
// the system allows, so a file swapped for a named pipe in between cannot
// stall the read either.
func ReadFile(name string, max int64) ([]byte, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, asOpen(err)
	}
	if err := CheckMode(name, info.Mode()); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, _, err := readOpen(f, name, max)
	return data, err
}

// ReadIn reads the named file inside root as ReadFile does, and nothing
// outside it: os.Root follows a link only while it stays inside root, so
// a link (or a folder on the way) that leads out is an error, whenever it
// was put there. Errors name the file by root's name joined with name.
func ReadIn(root *os.Root, name string, max int64) ([]byte, error) {
	shown := filepath.Join(root.Name(), filepath.FromSlash(name))
	info, err := root.Stat(name)
	if err != nil {
		return nil, renamed(asOpen(err), shown)
	}
	if err := CheckMode(shown, info.Mode()); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, renamed(err, shown)
	}
	defer f.Close()
	data, _, err := readOpen(f, shown, max)
	return data, err
}

// renamed gives a *fs.PathError the path shown to a person.
func renamed(err error, shown string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: shown, Err: pe.Err}
	}
	return err
}

// ReadFS reads the named file of fsys as fs.ReadFile does, but only a
// regular file of at most max bytes, checked before opening it and again
// on the open file. It also returns the status of the open file, taken
// before reading.
func ReadFS(fsys fs.FS, name string, max int64) ([]byte, fs.FileInfo, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, nil, asOpen(err)
	}
	if err := CheckMode(name, info.Mode()); err != nil {
		return nil, nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readOpen(f, name, max)
}

// ReadListed reads the named file of fsys as ReadFS does, for a file the
// caller has just listed as a regular file (its fs.DirEntry's type, or
// for a link its target's status). That check stands for ReadFS's status
// before opening: both come before the open, and the open file is
// checked again. A second status costs every file of a large corpus a
// system call or more (os.Root's Stat opens the file's folder too):
// measured with `ka2perf load` on a million generated sources,
// 2026-12-02, ReadFS's status was 13% of the load's CPU.
func ReadListed(fsys fs.FS, name string, max int64) ([]byte, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readOpen(f, name, max)
}

// asOpen words a failed stat as the failed open it stands for: to a
// person, "open x: no such file or directory" is what reading x did.
func asOpen(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "stat" {
		return &fs.PathError{Op: "open", Path: pe.Path, Err: pe.Err}
	}
	return err
}

func readOpen(f fs.File, name string, max int64) ([]byte, fs.FileInfo, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if err := CheckMode(name, info.Mode()); err != nil {
		return nil, nil, err
	}
	if info.Size() > max {
		return nil, nil, TooLarge(name, max)
	}
	// +1: see the end of the file without growing the buffer.
	data, err := readAll(f, name, max, info.Size()+1)
	return data, info, err
}

// ReadAll reads r (standard input, named name in errors) to its end, but
// no more than max bytes.
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	return readAll(r, name, max, 512)
}

func readAll(r io.Reader, name string, max, size int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, max+1))
	lr := io.LimitReader(r, max+1)
	for {
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	if int64(len(buf)) > max {
		return nil, TooLarge(name, max)
	}
	return buf, nil
}

// Reason is what went wrong reading a file, without the operation and path
// a *fs.PathError repeats: for a message that names the file itself.
func Reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
