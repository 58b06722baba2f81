package corpus

import (
	"context"
	"errors"
	"github.com/ka2/ka2/internal/diag"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
)

// LoadChanged loads the corpus that Load would load from fsys, knowing
// that only the files at the given paths (slash-separated, relative to the
// root of fsys) may have changed since prev was loaded: those are read
// again, every other file's source is taken from prev without reading or
// even listing it. It is what a file watcher calls with the paths it was
// told about, so that a reload costs the changed files, not the corpus.
//
// A path that names no file change LoadChanged can resolve on its own (the
// root, a folder, a symbolic link, a removed folder, a file below a linked
// folder) makes it load like LoadReusing(fsys, prev, cutoff), as does a nil
// prev, a prev not loaded from files, or an fsys that cannot tell links
// (fs.ReadLinkFS). Paths under a "."-named file or folder, and paths of
// files that are not *.md, are ignored, as Load ignores them.
//
// The result, corpus or errors, is what Load gives for the same tree, as
// long as every path that changed is among the given ones.
func LoadChanged(fsys fs.FS, prev *Corpus, changed []string, cutoff time.Time) (*Corpus, error) {
	if c, err, ok := loadChanged(fsys, prev, changed); ok {
		return c, err
	}
	return load(context.Background(), fsys, prev, cutoff)
}

// What a changed path asks of the corpus.
const (
	pathIgnore = iota // the walk does not list it
	pathRemove        // no file there: drop it
	pathRead          // a regular *.md file: read it again
	pathFull          // cannot tell: walk the tree
)

// loadChanged is LoadChanged without the fallback; ok is false when a full
// load is needed.
func loadChanged(fsys fs.FS, prev *Corpus, changed []string) (c *Corpus, err error, ok bool) {
	if _, links := fsys.(fs.ReadLinkFS); !links || prev == nil || len(prev.files) != len(prev.Sources) ||
		len(prev.byPath) != len(prev.Sources) {
		return nil, nil, false
	}
	kinds := make(map[string]int, len(changed))
	for _, p := range changed {
		if _, done := kinds[p]; done {
			continue
		}
		k := prev.classify(fsys, p)
		if k == pathFull {
			return nil, nil, false
		}
		kinds[p] = k
	}

	files := maps.Clone(prev.files)
	bodies := maps.Clone(prev.bodies)
	var errs diag.List
	var added []*Source // read again and parsed, to merge by path
	failed := 0         // files listed by the walk that did not parse
	for _, p := range slices.Sorted(maps.Keys(kinds)) {
		k := kinds[p]
		if k == pathIgnore {
			continue
		}
		if old, ok := files[p]; ok {
			delete(files, p)
			delete(bodies, old.src)
		}
		if k == pathRemove {
			continue
		}
		src, body, st, l := loadFile(fsys, p)
		if l != nil {
			errs = append(errs, l...)
			failed++
			continue
		}
		if body != "" {
			bodies[src] = body
		}
		if st != (fileStat{}) {
			files[p] = fileRecord{stat: st, src: src}
		}
		added = append(added, src)
	}

	// The sources in path order: prev's that stay, merged with the new ones.
	byPath := make([]*Source, 0, len(files))
	i := 0
	gone := func(s *Source) bool { // removed or read again
		k, ok := kinds[s.Path]
		return ok && k != pathIgnore
	}
	for _, s := range prev.byPath {
		if gone(s) {
			continue
		}
		for i < len(added) && added[i].Path < s.Path {
			byPath = append(byPath, added[i])
			i++
		}
		byPath = append(byPath, s)
	}
	byPath = append(byPath, added[i:]...)
	if len(byPath) != len(files) {
		// A source without file record (read from a file without status):
		// the walk is the safe way.
		return nil, nil, false
	}

	nc, err := newDelta(byPath, prev, gone, added)
	if err != nil {
		var l diag.List
		errors.As(err, &l)
		errs = append(errs, l...)
	}
	if len(byPath)+failed == 0 && len(errs) == 0 {
		errs = append(errs, errEmpty())
	}
	if len(errs) > 0 {
		return nil, errs.Err(), true
	}
	nc.bodies, nc.files = bodies, files
	return nc, nil, true
}

// classify tells what the changed path p asks of a corpus loaded as c.
func (c *Corpus) classify(fsys fs.FS, p string) int {
	if p == "." || !fs.ValidPath(p) {
		return pathFull
	}
	parts := strings.Split(p, "/")
	for _, part := range parts {
		if strings.HasPrefix(part, ".") {
			return pathIgnore
		}
	}
	// The walk lists files only below real folders: it does not enter a
	// link to a folder, though opening a path through one works.
	for i := 1; i < len(parts); i++ {
		info, err := fs.Lstat(fsys, strings.Join(parts[:i], "/"))
		if err != nil || !info.IsDir() {
			return pathFull
		}
	}
	isMD := path.Ext(p) == ".md"
	_, known := c.files[p]
	info, err := fs.Lstat(fsys, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !known && c.hasUnder(p) {
			return pathFull // a removed folder of policies
		}
		if isMD {
			return pathRemove
		}
		return pathIgnore
	case err != nil:
		return pathFull
	case info.Mode().IsRegular():
		if !known && c.hasUnder(p) {
			return pathFull // a folder replaced by a file
		}
		if isMD {
			return pathRead
		}
		return pathIgnore
	default:
		return pathFull // a folder, a link, a device: the walk decides
	}
}

// hasUnder reports whether c holds a source below the folder dir.
func (c *Corpus) hasUnder(dir string) bool {
	prefix := dir + "/"
	i, _ := slices.BinarySearchFunc(c.byPath, prefix, func(s *Source, p string) int { return strings.Compare(s.Path, p) })
	return i < len(c.byPath) && strings.HasPrefix(c.byPath[i].Path, prefix)
}

func errEmpty() *diag.Diagnostic {
	return &diag.Diagnostic{Code: CodeEmptyCorpus, Message: "no policy files (*.md) found", Hint: diag.Set("point {corpus} at the folder that holds the policy files")}
}

// newDelta is New for the sources byPath (in path order), which are prev's
// but for the sources added (in path order) and the sources of prev that
// gone reports. Only the source_ids those touch are checked and indexed
// again: prev's others passed New's check already, and a clash needs a
// source of the id to change.
func newDelta(byPath []*Source, prev *Corpus, gone func(*Source) bool, added []*Source) (*Corpus, error) {
	touched := map[string]bool{}
	keep := make([]*Source, 0, len(byPath))
	for _, s := range prev.Sources {
		if gone(s) {
			touched[s.ID] = true
		} else {
			keep = append(keep, s)
		}
	}
	for _, s := range added {
		touched[s.ID] = true
	}
	adds := slices.SortedFunc(slices.Values(added), compareSources)
	sources := make([]*Source, 0, len(byPath))
	i := 0
	for _, s := range keep {
		for i < len(adds) && compareSources(adds[i], s) < 0 {
			sources = append(sources, adds[i])
			i++
		}
		sources = append(sources, s)
	}
	sources = append(sources, adds[i:]...)

	c := &Corpus{Sources: sources, byID: maps.Clone(prev.byID), byPath: byPath}
	var errs diag.List
	for _, id := range slices.Sorted(maps.Keys(touched)) {
		delete(c.byID, id)
		j, _ := slices.BinarySearchFunc(sources, id, func(s *Source, id string) int { return strings.Compare(s.ID, id) })
		for ; j < len(sources) && sources[j].ID == id; j++ {
			errs = c.addID(errs, sources[j])
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	c.Digest = digest(byPath)
	return c, nil
}
