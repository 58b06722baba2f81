package serve

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"math"
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

// fileStats is what a load knew of each file of its corpus, by path: its
// status when the load listed it, before reading it, or zero for a file
// whose status the load could not take (a link, a file below a linked
// folder), which is always read again. The zero fileStats knows no file.
//
// A reload told which files changed (loadDelta) keeps every other file's
// status: rather than copy a status per file of the corpus each time, the
// new fileStats shares the previous one's base map, which nothing writes
// once it is made, and holds only the changes on top of it. The changes
// are folded into a new base once they outnumber a few times the square
// root of the corpus's files: a reload then costs about that many entries,
// whatever the size of the corpus, and the fold's copy is spread over the
// reloads before it.
type fileStats struct {
	base map[string]corpus.Stamp
	over map[string]statChange // changes on top of base, by path
	n    int                   // the paths known
}

// statChange is a file's new status, or that it is gone.
type statChange struct {
	st   corpus.Stamp
	gone bool
}

// newFileStats holds m, which the caller does not change afterwards.
func newFileStats(m map[string]corpus.Stamp) fileStats {
	return fileStats{base: m, n: len(m)}
}

// get returns the status of the file at p and whether it is known.
func (s fileStats) get(p string) (corpus.Stamp, bool) {
	if c, ok := s.over[p]; ok {
		return c.st, !c.gone
	}
	st, ok := s.base[p]
	return st, ok
}

// len is the number of files known.
func (s fileStats) len() int { return s.n }

// with returns s with the files at removed gone and those in set at their
// new status; removed and set name different paths. s is unchanged.
func (s fileStats) with(set map[string]corpus.Stamp, removed []string) fileStats {
	next := fileStats{base: s.base, over: make(map[string]statChange, len(s.over)+len(set)+len(removed)), n: s.n}
	maps.Copy(next.over, s.over)
	for _, p := range removed {
		if _, ok := s.get(p); ok {
			next.n--
		}
		if _, inBase := s.base[p]; inBase {
			next.over[p] = statChange{gone: true}
		} else {
			delete(next.over, p)
		}
	}
	for p, st := range set {
		if _, ok := s.get(p); !ok {
			next.n++
		}
		next.over[p] = statChange{st: st}
	}
	if len(next.over) <= 64+4*int(math.Sqrt(float64(next.n))) {
		return next
	}
	base := make(map[string]corpus.Stamp, next.n)
	for p, st := range next.base {
		if _, changed := next.over[p]; !changed {
			base[p] = st
		}
	}
	for p, c := range next.over {
		if !c.gone {
			base[p] = c.st
		}
	}
	return newFileStats(base)
}

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
	stats := make(map[string]corpus.Stamp, prevStats.len())
	keep := func(p string, d fs.DirEntry) bool {
		var st corpus.Stamp
		if d != nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() { // the walk's lstat
				st = corpus.StampOf(info)
			}
		}
		mu.Lock()
		stats[p] = st
		old, known := prevStats.get(p)
		mu.Unlock()
		return prev != nil && known && st != (corpus.Stamp{}) && st == old && st.Changed().Before(cutoff)
	}
	c, err := corpus.Reload(ctx, fsys, prev, keep)
	if err != nil {
		return nil, fileStats{}, err
	}
	return c, newFileStats(stats), nil
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
	if _, links := fsys.(fs.ReadLinkFS); !links || prev == nil || prevStats.len() != len(prev.Sources) {
		return nil, fileStats{}, nil, false
	}
	var read, removed []string
	newStats := map[string]corpus.Stamp{}
	seen := make(map[string]bool, len(changed))
	for _, p := range changed {
		if seen[p] {
			continue
		}
		seen[p] = true
		k, info := classifyChange(fsys, prev, prevStats, p)
		switch k {
		case pathFull:
			return nil, fileStats{}, nil, false
		case pathRemove:
			removed = append(removed, p)
		case pathRead:
			read = append(read, p)
			newStats[p] = corpus.StampOf(info) // taken before the file is read
		}
	}
	c, err = prev.Update(fsys, read, removed)
	if err != nil {
		return nil, fileStats{}, err, true
	}
	return c, prevStats.with(newStats, removed), nil, true
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
	_, known := stats.get(p)
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
