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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// Write writes data to a temporary file beside path, syncs it, renames it
// over path and syncs the folder, so that the rename itself survives a
// crash. On any error before the rename the temporary file is removed and
// path is left as it was.
//
// A ctx done before the rename is such an error: Write returns ctx.Err()
// (wrapped), removes the temporary file and leaves path as it was. Once
// the rename is done the write is complete whatever ctx says, so a
// cancelled caller always finds path either old or new.
func Write(ctx context.Context, path string, data []byte, perm os.FileMode) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(base, os.Getpid())+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The last moment a cancellation can still leave path as it was.
	if err = ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The new content is in place; what may still be lost in a crash is
	// the folder's record of the rename. Not an error that the temporary
	// file's removal could undo, so report it as is.
	if serr := syncDir(dir); serr != nil {
		return fmt.Errorf("write %s: sync its folder: %w", path, serr)
	}
	return nil
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

// syncDir makes a folder's entries durable; tests replace it to see that
// Write calls it.
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
