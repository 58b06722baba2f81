package corpus_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

func TestLanes(t *testing.T) {
	src := func(id, lang, from string) *corpus.Source {
		return &corpus.Source{ID: id, Lang: lang, Path: id + "-" + lang + ".md", ValidFrom: corpus.MustParseDate(from)}
	}
	enNew, enOld, every, zh := src("b", "en", "2026-01-01"), src("a", "en", "2025-01-01"), src("c", "", "2025-06-01"), src("a", "zh", "2025-01-01")
	ids := func(lanes []corpus.Lane) map[string][]string {
		out := map[string][]string{}
		for _, l := range lanes {
			for _, s := range l.Sources {
				out[l.Lang] = append(out[l.Lang], s.Path)
			}
		}
		return out
	}
	tests := []struct {
		name string
		ss   []*corpus.Source
		want map[string][]string // lane lang: paths, in order
	}{
		{"none", nil, map[string][]string{}},
		{"no lang: one lane", []*corpus.Source{every}, map[string][]string{"": {"c-.md"}}},
		{"no lang joins every lane, order kept", []*corpus.Source{zh, enNew, every, enOld},
			map[string][]string{"en": {"b-en.md", "c-.md", "a-en.md"}, "zh": {"a-zh.md", "c-.md"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lanes := corpus.Lanes(tt.ss)
			if diff := cmp.Diff(tt.want, ids(lanes)); diff != "" {
				t.Errorf("Lanes() mismatch (-want +got):\n%s", diff)
			}
			if !slices.IsSortedFunc(lanes, func(a, b corpus.Lane) int { return strings.Compare(a.Lang, b.Lang) }) {
				t.Errorf("Lanes() langs not sorted: %v", lanes)
			}
		})
	}
}

func TestCompareOldestFirst(t *testing.T) {
	src := func(id, lang, path, from string) *corpus.Source {
		return &corpus.Source{ID: id, Lang: lang, Path: path, ValidFrom: corpus.MustParseDate(from)}
	}
	ss := []*corpus.Source{
		src("a", "zh", "a2.md", "2025-01-01"),
		src("b", "", "b.md", "2024-01-01"),
		src("a", "en", "a3.md", "2025-01-01"),
		src("a", "en", "a1.md", "2025-01-01"),
		src("a", "", "a0.md", "2026-01-01"),
	}
	slices.SortFunc(ss, corpus.CompareOldestFirst)
	var got []string
	for _, s := range ss {
		got = append(got, s.Path)
	}
	want := []string{"b.md", "a1.md", "a3.md", "a2.md", "a0.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CompareOldestFirst order mismatch (-want +got):\n%s", diff)
	}
}
