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
	failed := 0 // files listed by the walk that did not parse
	// The sources in path order: c's, but for those at a changed path,
	// and the sources read again. Each changed path is found by binary
	// search and the runs between them copied whole: a reload of a few
	// files costs those files and a copy of the pointers, not a look-up
	// per source of the corpus.
	byPath := make([]*Source, 0, len(c.byPath)+len(read))
	var added, gone []*Source // in path order
	next := 0                 // c.byPath[next:] is still to copy
	for _, p := range slices.Sorted(maps.Keys(kinds)) {
		i, found := slices.BinarySearchFunc(c.byPath[next:], p, func(s *Source, p string) int { return strings.Compare(s.Path, p) })
		i += next
		byPath = append(byPath, c.byPath[next:i]...)
		next = i
		if found {
			gone = append(gone, c.byPath[i])
			next++
		}
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
		byPath = append(byPath, src)
	}
	byPath = append(byPath, c.byPath[next:]...)

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
// but for the sources added and the sources of prev gone. Only the
// source_ids those touch are checked again: prev's others passed New's
// check already, and a clash needs a source of the id to change.
func newDelta(byPath []*Source, prev *Corpus, gone, added []*Source) (*Corpus, error) {
	touched := map[string]bool{}
	// Where each gone source is in prev.Sources, and before which of
	// them each added one goes: CompareSources orders distinct sources
	// (paths differ) strictly, so both are binary searches.
	goneAt := make([]int, len(gone))
	for i, s := range gone {
		touched[s.ID] = true
		goneAt[i], _ = slices.BinarySearchFunc(prev.Sources, s, CompareSources)
	}
	slices.Sort(goneAt)
	adds := slices.SortedFunc(slices.Values(added), CompareSources)
	addAt := make([]int, len(adds))
	for i, s := range adds {
		touched[s.ID] = true
		addAt[i], _ = slices.BinarySearchFunc(prev.Sources, s, CompareSources)
	}
	sources := make([]*Source, 0, len(prev.Sources)-len(gone)+len(adds))
	for i, gi, ai := 0, 0, 0; ; {
		stop := len(prev.Sources)
		if gi < len(goneAt) {
			stop = min(stop, goneAt[gi])
		}
		if ai < len(addAt) {
			stop = min(stop, addAt[ai])
		}
		sources = append(sources, prev.Sources[i:stop]...)
		i = stop
		if ai < len(addAt) && addAt[ai] == i {
			sources = append(sources, adds[ai])
			ai++
			continue
		}
		if gi < len(goneAt) && goneAt[gi] == i {
			i++
			gi++
			continue
		}
		break // no event at i: the end, every added source placed
	}

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
