package corpus

import (
	"cmp"
	"slices"
	"strings"
)

// Lane is the sources that apply together in one language: those in Lang
// and those without a lang, which serve every language.
type Lane struct {
	Lang    string
	Sources []*Source
}

// Lanes splits ss into lanes, one per language some source names, in
// bytewise order of Lang; a source without lang joins every lane. When no
// source names a language there is one lane, with Lang "", holding them
// all. Each lane keeps the order of ss. The selector, the linter and the
// timeline group the sources of a subject this way, so that two sources
// meet only where a question could select both.
func Lanes(ss []*Source) []Lane {
	if len(ss) == 0 {
		return nil
	}
	var langs []string
	for _, s := range ss {
		if s.Lang != "" && !slices.Contains(langs, s.Lang) {
			langs = append(langs, s.Lang)
		}
	}
	slices.Sort(langs)
	if len(langs) == 0 {
		langs = []string{""}
	}
	lanes := make([]Lane, len(langs))
	for i, lang := range langs {
		lanes[i] = Lane{Lang: lang, Sources: make([]*Source, 0, len(ss))}
		for _, s := range ss {
			if s.Lang == lang || s.Lang == "" {
				lanes[i].Sources = append(lanes[i].Sources, s)
			}
		}
	}
	return lanes
}

// CompareOldestFirst orders sources by valid_from, oldest first, then by
// source_id, lang and path: the order in which the linter and the timeline
// walk a lane (the selector's contract order is newest first).
func CompareOldestFirst(a, b *Source) int {
	return cmp.Or(a.ValidFrom.Compare(b.ValidFrom), strings.Compare(a.ID, b.ID),
		strings.Compare(a.Lang, b.Lang), strings.Compare(a.Path, b.Path))
}
