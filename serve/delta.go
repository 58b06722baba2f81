package serve

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/ka2/ka2/corpus"
)

// A reload reads again only the files that may have changed since the
// serving corpus was loaded: those whose status changed (loadReusing), or,
// told by the watcher which paths changed, only those (loadChanged). How
// a file's change shows is the server's knowledge, not the corpus's: the
// corpus package loads; this file decides what a reload may keep.

// fileStat is the status of a file that tells whether it changed.
type fileStat struct {
	size         int64
	mode         fs.FileMode
	mtime, ctime int64 // Unix nanoseconds; ctime 0 where unknown
	ino          uint64
}

func statOf(info fs.FileInfo) fileStat {
	st := fileStat{size: info.Size(), mode: info.Mode(), mtime: info.ModTime().UnixNano()}
	st.ino, st.ctime = sysStat(info)
	return st
}

// changed is when the file last changed, as far as its status tells.
func (st fileStat) changed() time.Time {
	return time.Unix(0, max(st.mtime, st.ctime))
}

// fileStats is what a load knew of each file of its corpus, by path: its
// status when the load listed it, before reading it, or zero for a file
// whose status the load could not take (a link, a file below a linked
// folder), which is always read again.
type fileStats map[string]fileStat

// loadReusing loads the corpus in fsys as corpus.Load does, but does not
// read again a file that prev read, when its status (size, modification
// time, mode, and where the platform reports them its inode and change
// time) is the same as then and it last changed before cutoff: prev's
// parsed source is reused. The result is the corpus Load would return as
// long as every file that changed since prev was loaded got a new status
// — which a write always gives it, unless it happened within the file
// system's timestamp granularity of the moment prev's load listed the
// file. Pass as cutoff the time prev's load started, less a margin wider
// than that granularity (reuseMargin), so that files changed around then
// are always read. Links are always followed and read again. A nil prev
// reads everything.
func loadReusing(ctx context.Context, fsys fs.FS, prev *corpus.Corpus, prevStats fileStats, cutoff time.Time) (*corpus.Corpus, fileStats, error) {
	var mu sync.Mutex
	stats := make(fileStats, len(prevStats))
	keep := func(p string, d fs.DirEntry) bool {
		var st fileStat
		if d != nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() { // the walk's lstat
				st = statOf(info)
			}
		}
		mu.Lock()
		stats[p] = st
		old, known := prevStats[p]
		mu.Unlock()
		return prev != nil && known && st != (fileStat{}) && st == old && st.changed().Before(cutoff)
	}
	c, err := corpus.Reload(ctx, fsys, prev, keep)
	if err != nil {
		return nil, nil, err
	}
	return c, stats, nil
}

// loadChanged loads the corpus that corpus.Load would load from fsys,
// knowing that only the files at the given paths (slash-separated,
// relative to the root of fsys) may have changed since prev was loaded:
// those are read again, every other file's source is taken from prev
// without reading or even listing it (see corpus.Corpus.Update). It is
// what the watcher calls with the paths it was told about, so that a
// reload costs the changed files, not the corpus.
//
// A path that names no file change loadChanged can resolve on its own
// (the root, a folder, a symbolic link, a removed folder, a file below a
// linked folder) makes it load like loadReusing, as does a nil prev or an
// fsys that cannot tell links (fs.ReadLinkFS). Paths under a "."-named
// file or folder, and paths of files that are not *.md, are ignored, as
// Load ignores them.
func loadChanged(ctx context.Context, fsys fs.FS, prev *corpus.Corpus, prevStats fileStats, changed []string, cutoff time.Time) (*corpus.Corpus, fileStats, error) {
	if c, stats, err, ok := loadDelta(fsys, prev, prevStats, changed); ok {
		return c, stats, err
	}
	return loadReusing(ctx, fsys, prev, prevStats, cutoff)
}

// What a changed path asks of the corpus.
const (
	pathIgnore = iota // the walk does not list it
	pathRemove        // no file there: drop it
	pathRead          // a regular *.md file: read it again
	pathFull          // cannot tell: walk the tree
)

// loadDelta is loadChanged without the fallback; ok is false when a
// full load is needed.
func loadDelta(fsys fs.FS, prev *corpus.Corpus, prevStats fileStats, changed []string) (c *corpus.Corpus, stats fileStats, err error, ok bool) {
	if _, links := fsys.(fs.ReadLinkFS); !links || prev == nil || len(prevStats) != len(prev.Sources) {
		return nil, nil, nil, false
	}
	var read, removed []string
	newStats := map[string]fileStat{}
	seen := make(map[string]bool, len(changed))
	for _, p := range changed {
		if seen[p] {
			continue
		}
		seen[p] = true
		k, info := classifyChange(fsys, prev, prevStats, p)
		switch k {
		case pathFull:
			return nil, nil, nil, false
		case pathRemove:
			removed = append(removed, p)
		case pathRead:
			read = append(read, p)
			newStats[p] = statOf(info) // taken before the file is read
		}
	}
	c, err = prev.Update(fsys, read, removed)
	if err != nil {
		return nil, nil, err, true
	}
	stats = maps.Clone(prevStats)
	for _, p := range removed {
		delete(stats, p)
	}
	maps.Copy(stats, newStats)
	return c, stats, nil, true
}

// classifyChange tells what the changed path p asks of the corpus c, loaded
// with stats; for pathRead it returns the file's status too.
func classifyChange(fsys fs.FS, c *corpus.Corpus, stats fileStats, p string) (int, fs.FileInfo) {
	if p == "." || !fs.ValidPath(p) {
		return pathFull, nil
	}
	parts := strings.Split(p, "/")
	if parts[len(parts)-1] == corpus.IgnoreFile {
		return pathFull, nil // what the corpus leaves out changed
	}
	for _, part := range parts {
		if strings.HasPrefix(part, ".") {
			return pathIgnore, nil
		}
	}
	// A file below a link to a folder is read through the link, which
	// only a walk resolves.
	for i := 1; i < len(parts); i++ {
		info, err := fs.Lstat(fsys, strings.Join(parts[:i], "/"))
		if err != nil || !info.IsDir() {
			return pathFull, nil
		}
	}
	isMD := path.Ext(p) == ".md"
	_, known := stats[p]
	if isMD {
		ignored, err := corpus.Ignored(fsys, p)
		switch {
		case err != nil:
			return pathFull, nil // the load reports the unreadable file
		case ignored && known:
			return pathRemove, nil // cannot happen without a changed ignore file, which loads in full
		case ignored:
			return pathIgnore, nil
		}
	}
	info, err := fs.Lstat(fsys, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !known && c.HasFolder(p) {
			return pathFull, nil // a removed folder of policies
		}
		if isMD {
			return pathRemove, nil
		}
		return pathIgnore, nil
	case err != nil:
		return pathFull, nil
	case info.Mode().IsRegular():
		if !known && c.HasFolder(p) {
			return pathFull, nil // a folder replaced by a file
		}
		if isMD {
			return pathRead, info
		}
		return pathIgnore, nil
	default:
		return pathFull, nil // a folder, a link, a device: the walk decides
	}
}
