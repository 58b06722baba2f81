// Package linkpath decides where a path leads once every symbolic link
// on it is followed: one walk, one bound on the links it follows, for a
// path inside a root (a corpus folder, a case tree, a git tree) and for
// a path of the system (a folder a server watches).
package linkpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// MaxLinks bounds the links one resolution follows, as the system's own
// resolution does (Linux: ELOOP after 40).
const MaxLinks = 40

// Why a resolution fails. ErrAbsolute matches ErrOutside too.
var (
	// ErrLoop is a path whose links loop, or take more than MaxLinks hops.
	ErrLoop = errors.New("too many links")
	// ErrOutside is a link that leads out of the root: above it with "..".
	ErrOutside = errors.New("link leads outside the root")
	// ErrAbsolute is a link inside a root whose text is an absolute path.
	ErrAbsolute = fmt.Errorf("%w: its target is an absolute path", ErrOutside)
)

// FS is a tree whose links a walk reads: an fs.ReadLinkFS, an os.Root
// (through Root) or the system (System).
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadLink(name string) (string, error)
}

// Root is an os.Root as an FS.
type Root struct{ *os.Root }

// ReadLink reads the link name inside the root.
func (r Root) ReadLink(name string) (string, error) { return r.Readlink(name) }

// Options say what a resolution does besides following links.
type Options struct {
	// Missing, when set, makes a missing name on the way no error: the
	// result is the path resolved so far joined with the rest, cleaned,
	// where a file not yet written would go.
	Missing bool
	// Visit, when set, is called with each link the walk goes through,
	// in order, as the tree names it.
	Visit func(link string)
}

// In returns the slash path name inside fsys with every link on it
// followed, relative to the link's folder, never leaving the root: an
// absolute link text is ErrAbsolute, a ".." above the root ErrOutside.
// The result is clean and relative; "." is the root itself.
func In(fsys FS, name string, opts Options) (string, error) {
	w := walk{fsys: fsys, opts: opts, rooted: true}
	return w.run(strings.Split(filepath.ToSlash(name), "/"))
}

// System returns the absolute path abs with every link on the system
// followed, as the system follows them: a link may lead anywhere, an
// absolute link text starts again from the top, and ".." at the top
// stays there.
func System(abs string, opts Options) (string, error) {
	vol := filepath.VolumeName(abs)
	w := walk{fsys: system{}, opts: opts, vol: vol}
	p, err := w.run(strings.Split(filepath.ToSlash(abs[len(vol):]), "/"))
	if errors.Is(err, ErrLoop) {
		return "", fmt.Errorf("%s: %w", abs, err)
	}
	return p, err
}

// system is the file system of the machine.
type system struct{}

func (system) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (system) ReadLink(name string) (string, error)   { return os.Readlink(name) }

// walk is one resolution: the names resolved so far (done, none a link)
// and the names still to walk (todo), taken one at a time, so that ".."
// in a link's text is taken from where the link really is.
type walk struct {
	fsys   FS
	opts   Options
	rooted bool   // names are inside a root that no link may leave
	vol    string // the volume of a system path
}

// name is the tree's name for the resolved names parts.
func (w *walk) name(parts []string) string {
	if w.rooted {
		if len(parts) == 0 {
			return "."
		}
		return path.Join(parts...)
	}
	return w.vol + string(filepath.Separator) + filepath.Join(parts...)
}

func (w *walk) run(todo []string) (string, error) {
	var done []string
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				if w.rooted {
					return "", ErrOutside
				}
				continue // the top is its own parent
			}
			done = done[:len(done)-1]
			continue
		}
		done = append(done, c)
		p := w.name(done)
		info, err := w.fsys.Lstat(p)
		if err != nil {
			if w.opts.Missing && errors.Is(err, fs.ErrNotExist) {
				return w.clean(append(done, todo...))
			}
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if links++; links > MaxLinks {
			return "", ErrLoop
		}
		if w.opts.Visit != nil {
			w.opts.Visit(p)
		}
		to, err := w.fsys.ReadLink(p)
		if err != nil {
			return "", err
		}
		done = done[:len(done)-1]
		to = filepath.ToSlash(to)
		if path.IsAbs(to) || filepath.IsAbs(to) {
			if w.rooted {
				return "", ErrAbsolute
			}
			vol := filepath.VolumeName(to)
			w.vol, to, done = vol, to[len(vol):], done[:0]
		}
		todo = slices.Concat(strings.Split(to, "/"), todo)
	}
	return w.name(done), nil
}

// clean is the name of parts cleaned as text, for a path whose rest does
// not exist yet: nothing on it is a link to follow.
func (w *walk) clean(parts []string) (string, error) {
	var out []string
	for _, c := range parts {
		switch c {
		case "", ".":
		case "..":
			if len(out) == 0 {
				if w.rooted {
					return "", ErrOutside
				}
				continue
			}
			out = out[:len(out)-1]
		default:
			out = append(out, c)
		}
	}
	return w.name(out), nil
}
