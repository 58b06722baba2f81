package corpus

import (
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/diag"
)

// Update returns the corpus c with the files at the paths in read read
// again from fsys, and the sources at the paths in removed dropped
// (slash-separated paths, relative to the root of fsys). Every other
// source is c's, not read again: only the source_ids the changes touch are
// checked again for clashes. It is what a server that watches the corpus
// calls with the files it was told changed, so that a reload costs the
// changed files, not the corpus.
//
// The result, corpus or errors, is what Load gives for the tree, as long
// as read names every *.md file that Load lists and that changed since c
// was loaded (each a regular file Load reaches by that path), and removed
// every file Load listed for c that is gone. Which paths those are is the
// caller's to tell: Update lists nothing.
func (c *Corpus) Update(fsys fs.FS, read, removed []string) (*Corpus, error) {
	// The caller asked Ignored about each path it names.
	fsys, _ = unwrapExclude(fsys)
	kinds := make(map[string]bool, len(read)+len(removed)) // path: read it again
	for _, p := range removed {
		kinds[p] = false
	}
	for _, p := range read {
		kinds[p] = true
	}
	var errs diag.List
	var added []*Source // read again and parsed, to merge by path
	failed := 0         // files listed by the walk that did not parse
	for _, p := range slices.Sorted(maps.Keys(kinds)) {
		if !kinds[p] {
			continue
		}
		src, l := loadFile(fsys, p, false)
		if l != nil {
			errs = append(errs, l...)
			failed++
			continue
		}
		added = append(added, src)
	}

	// The sources in path order: c's that stay, merged with the new ones.
	byPath := make([]*Source, 0, len(c.byPath)+len(added))
	i := 0
	gone := func(s *Source) bool { // removed or read again
		_, ok := kinds[s.Path]
		return ok
	}
	for _, s := range c.byPath {
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

	nc, err := newDelta(byPath, c, gone, added)
	if err != nil {
		var l diag.List
		errors.As(err, &l)
		errs = append(errs, l...)
	}
	if len(byPath)+failed == 0 && len(errs) == 0 {
		errs = append(errs, errEmpty())
	}
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	return nc, nil
}

// HasFolder reports whether c holds a source read from a file below the
// folder dir (slash-separated, relative to the corpus root).
func (c *Corpus) HasFolder(dir string) bool {
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
	adds := slices.SortedFunc(slices.Values(added), CompareSources)
	sources := make([]*Source, 0, len(byPath))
	i := 0
	for _, s := range keep {
		for i < len(adds) && CompareSources(adds[i], s) < 0 {
			sources = append(sources, adds[i])
			i++
		}
		sources = append(sources, s)
	}
	sources = append(sources, adds[i:]...)

	c := &Corpus{Sources: sources, byPath: byPath}
	var errs diag.List
	for _, id := range slices.Sorted(maps.Keys(touched)) {
		j, _ := slices.BinarySearchFunc(sources, id, func(s *Source, id string) int { return strings.Compare(s.ID, id) })
		for ; j < len(sources) && sources[j].ID == id; j++ {
			errs = c.checkID(errs, j)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	c.Digest = digest(byPath)
	return c, nil
}
