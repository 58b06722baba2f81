// Package atomicfile replaces files so that a reader, or a crash, sees
// either the old content or the new, never a mix or a truncated file.
//
// A write goes to a temporary file beside the target, named
// .NAME.tmp-PID-RANDOM, which is renamed over the target. A process killed
// mid-write (kill -9) leaves that file behind; RemoveStale finds such
// files by their exact name pattern and removes those whose writer is no
// longer running.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/linkpath"
)

// Write writes data to path so that a reader, or a crash, sees either
// the old content or the new. What happens depends on what path is:
//
//   - nothing, or a regular file: data goes to a temporary file beside
//     it, which is synced and renamed over path; the folder is synced
//     so that the rename itself survives a crash.
//   - a symbolic link to a regular file: the file the link leads to is
//     replaced that way, in its own folder, and the link stays a link.
//   - a character device or a named pipe (FIFO), or a link to one (such
//     as /dev/stdout or /proc/self/fd/1): data is written to it in
//     place, for a device or a pipe has no content to replace and must
//     never be replaced by a file. A FIFO with no reader is an error
//     (ErrNoReader), not a wait.
//   - anything else (a folder, a socket, a link to nothing or in a loop)
//     is an error matching ErrNotFile, and path is left as it was.
//
// On any error before the rename the temporary file is removed and path
// is left as it was.
//
// A ctx done before the rename (or before an in-place write starts) is
// such an error: Write returns ctx.Err() (wrapped). Once the rename is
// done the write is complete whatever ctx says, so a cancelled caller
// always finds path either old or new.
func Write(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	target, inPlace, err := resolve(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if inPlace {
		if err := writeInPlace(path, data); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer root.Close()
	if err := replace(ctx, root, base, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteIn writes data to name inside root, as Write does to a path,
// except that nothing outside root is read or written: a link on the
// way, or name itself as a link, must lead to a place inside root (a
// link to a regular file inside it is written through, the link kept),
// and name's folder is made inside root if it is missing. A special
// file (device, FIFO) is refused with ErrNotFile: what lives inside a
// tree ka2 writes is files. name is slash-separated and relative; errors
// name the file by root's name joined with name.
func WriteIn(ctx context.Context, root *os.Root, name string, data []byte, perm os.FileMode) error {
	shown := filepath.Join(root.Name(), filepath.FromSlash(name))
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	target, err := ResolveIn(root, name)
	if err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	if d := path.Dir(target); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", shown, err)
		}
	}
	if err := replace(ctx, root, target, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	return nil
}

// ErrNotFile matches the error for a target that is neither a regular
// file, nor missing, nor a device or FIFO to write in place: a folder, a
// socket, a link to nothing, a link loop, or (for WriteIn and ResolveIn)
// a special file or a link that leads out of the root.
var ErrNotFile = errors.New("not a file ka2 can write")

// ErrNoReader matches the error for a named pipe (FIFO) that nobody
// reads: writing to it would wait for good.
var ErrNoReader = errors.New("a named pipe (FIFO) with no reader")

// notFile is an ErrNotFile with the reason.
type notFile struct{ why string }

func (e notFile) Error() string        { return e.why }
func (e notFile) Is(target error) bool { return target == ErrNotFile }

// resolve says where Write puts data for path: the path to replace (path
// itself, or the regular file a link leads to), or inPlace for a device
// or FIFO to write to as it is.
func resolve(name string) (target string, inPlace bool, err error) {
	info, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return name, false, nil
	case err != nil:
		return "", false, err
	case info.Mode().IsRegular():
		return name, false, nil
	case info.Mode()&fs.ModeSymlink == 0:
		if special(info.Mode()) {
			return name, true, nil
		}
		return "", false, notFile{"it is " + inputfile.Kind(info.Mode()) + ", not a file"}
	}
	// A link: what it leads to decides.
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, notFile{"it is a symbolic link to nothing; ka2 does not replace a link with a file (name the file it should lead to, or remove the link)"}
	case errors.Is(err, syscall.ELOOP):
		return "", false, notFile{"it is a symbolic link in a loop"}
	case err != nil:
		return "", false, err
	case special(fi.Mode()):
		return name, true, nil
	case !fi.Mode().IsRegular():
		return "", false, notFile{"it is a symbolic link to " + inputfile.Kind(fi.Mode()) + ", not to a file"}
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", false, err
	}
	// A link such as /proc/self/fd/N can lead to a file that no path
	// names any more (deleted, or never named): replacing the path its
	// link text gives would write some other file, or a new one.
	if ri, err := os.Lstat(real); err != nil || !os.SameFile(fi, ri) {
		return "", false, notFile{"it is a symbolic link to a file that no path names; name the file itself"}
	}
	return real, false, nil
}

// ResolveIn returns the slash path inside root that name stands for,
// following links in root as the system would: name itself (without
// links) when it is missing or a regular file, or the regular file
// inside root that it links to. A link that leads out of root, to
// nothing, to something other than a regular file, or in a loop, and a
// name that is not a regular file, are errors matching ErrNotFile.
func ResolveIn(root *os.Root, name string) (string, error) {
	name = path.Clean(name)
	info, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A missing file or folder on the way: the folders that exist
		// are still resolved below, so the write goes where a link
		// among them leads.
	case err != nil:
		return "", outside(err)
	case info.Mode()&fs.ModeSymlink != 0:
		fi, err := root.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", notFile{"it is a symbolic link to nothing"}
		case err != nil:
			// Out of the root, or a loop: the walk below says which
			// link does it.
			if _, werr := walkIn(root, name); werr != nil {
				return "", werr
			}
			return "", outside(err)
		case !fi.Mode().IsRegular():
			return "", notFile{"it is a symbolic link to " + inputfile.Kind(fi.Mode()) + ", not to a regular file"}
		}
	case !info.Mode().IsRegular():
		return "", notFile{"it is " + inputfile.Kind(info.Mode()) + ", not a regular file"}
	}
	return walkIn(root, name)
}

// walkIn resolves name inside root one name at a time, as the system
// does (see linkpath.In); a name missing on the way ends the walk, where
// the file will be written.
func walkIn(root *os.Root, name string) (string, error) {
	p, err := linkpath.In(linkpath.Root{Root: root}, name, linkpath.Options{Missing: true})
	switch {
	case errors.Is(err, linkpath.ErrLoop):
		return "", notFile{"it is a symbolic link in a loop"}
	case errors.Is(err, linkpath.ErrAbsolute):
		return "", notFile{"it is a symbolic link that leads out of its tree (to an absolute path)"}
	case errors.Is(err, linkpath.ErrOutside):
		return "", notFile{"it is a symbolic link that leads out of its tree"}
	case err != nil:
		return "", outside(err)
	case p == ".":
		return "", notFile{"it is the tree's own folder"}
	}
	return p, nil
}

// outside words os.Root's refusal of a path that leads out of it (its
// error is not exported) and a link loop as ErrNotFile, and leaves other
// errors as they are.
func outside(err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return notFile{"it is a symbolic link in a loop"}
	}
	if errors.Is(err, fs.ErrPermission) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return notFile{"its path leads out of its tree through a symbolic link"}
	}
	return err
}

// special reports whether m is a file written in place: a character
// device or a named pipe. A block device is refused as "a device": it
// holds a file system, not a report.
func special(m fs.FileMode) bool {
	return m&fs.ModeNamedPipe != 0 || m&fs.ModeCharDevice != 0
}

// writeInPlace writes data to a device or FIFO as it is. It opens the
// file without creating it and without waiting (a FIFO with no reader
// fails at once), then checks that what it opened is still a device or
// FIFO: a path swapped for a regular file in between is refused rather
// than written over in place.
func writeInPlace(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|inPlaceFlags, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return ErrNoReader
		}
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if !special(info.Mode()) {
		f.Close()
		return notFile{"it changed to " + inputfile.Kind(info.Mode()) + " while being opened"}
	}
	if err := blocking(f); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replace writes data to a temporary file in name's folder inside root,
// syncs it, renames it over name and syncs the folder. name must not be
// a link (resolve and ResolveIn see to that); a link put there after
// the check is replaced, never followed.
func replace(ctx context.Context, root *os.Root, name string, data []byte, perm os.FileMode) (err error) {
	dir, base := path.Split(name)
	if dir == "" {
		dir = "."
	}
	tmp, tmpName, err := createTemp(root, dir, tempPrefix(base, os.Getpid()))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			root.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	// The last moment a cancellation can still leave path as it was.
	if err = ctx.Err(); err != nil {
		return err
	}
	if err = root.Rename(tmpName, name); err != nil {
		return err
	}
	// The new content is in place; what may still be lost in a crash is
	// the folder's record of the rename. Not an error that the temporary
	// file's removal could undo, so report it as is.
	if serr := syncDir(root, dir); serr != nil {
		return fmt.Errorf("sync its folder: %w", serr)
	}
	return nil
}

// createTemp makes a new file in dir inside root named prefix followed
// by random digits, as os.CreateTemp does (which cannot work in a root).
func createTemp(root *os.Root, dir, prefix string) (*os.File, string, error) {
	for try := 0; ; try++ {
		name := path.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, name, err
	}
}

// tempPrefix is the start of the name of a temporary file for base
// written by process pid; CreateTemp adds the random part.
func tempPrefix(base string, pid int) string {
	return "." + base + ".tmp-" + strconv.Itoa(pid) + "-"
}

// tempName matches the names Write gives its temporary files, and nothing
// else: a dot, the target's name, ".tmp-", the writer's PID, "-" and
// CreateTemp's random digits.
var tempName = regexp.MustCompile(`^\..+\.tmp-([1-9][0-9]{0,9})-[0-9]+$`)

// syncDir makes the entries of folder dir inside root durable; tests
// replace it to see that Write calls it.
var syncDir = syncDirOS

// RemoveStale removes the temporary files that Write left in dir when its
// process was killed mid-write, and returns their names, sorted. Only
// regular files named exactly as Write names them, whose writer process is
// no longer running, are removed: a file of a write in progress (by this
// process or another on the same machine) is left alone. A PID reused by
// an unrelated process only keeps a stale file for a later run. A missing
// dir holds nothing to remove.
//
// Where a process cannot be looked up (not on Unix), nothing is removed.
func RemoveStale(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look for stale temporary files: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		m := tempName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || running(pid) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove stale temporary file: %w", err))
			continue
		}
		removed = append(removed, e.Name())
	}
	slices.Sort(removed)
	return removed, errors.Join(errs...)
}
