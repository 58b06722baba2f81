package selector_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// TestUpdateIndexMatchesNewIndex changes random sources of a corpus step
// by step, keeping the others as the same values as a reload does, and
// checks that UpdateIndex from the previous index answers every subject
// and date as NewIndex does.
func TestUpdateIndexMatchesNewIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	subjects := []string{"a", "b", "c", "d", "e"}
	parse := func(name string, gen int) *corpus.Source {
		from := fmt.Sprintf("202%d-0%d-01", 4+r.IntN(3), 1+r.IntN(9))
		until := ""
		if r.IntN(2) == 0 {
			until = fmt.Sprintf("valid_until: 2027-0%d-01\n", 1+r.IntN(9))
		}
		lang := []string{"", "en", "de"}[r.IntN(3)]
		if lang != "" {
			lang = "lang: " + lang + "\n"
		}
		data := fmt.Sprintf("---\nsource_id: %s\nversion: v%d\nsubjects: [%s, %s, all]\nvalid_from: %s\n%s%s---\nRule.\n",
			name, gen, subjects[r.IntN(5)], subjects[r.IntN(5)], from, until, lang)
		s, err := corpus.Parse(name+".md", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	files := map[string]*corpus.Source{}
	for i := range 120 { // "all" has more sources than UpdateIndex builds afresh
		files[fmt.Sprintf("p%03d", i)] = parse(fmt.Sprintf("p%03d", i), 0)
	}
	build := func() *corpus.Corpus {
		var sources []*corpus.Source
		for _, k := range slices.Sorted(maps.Keys(files)) {
			sources = append(sources, files[k])
		}
		c, err := corpus.New(sources)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ix := selector.NewIndex(build())
	for step := range 200 {
		for range 1 + r.IntN(3) {
			name := fmt.Sprintf("p%03d", r.IntN(140))
			if _, ok := files[name]; ok && r.IntN(3) == 0 {
				delete(files, name)
			} else {
				files[name] = parse(name, step+1)
			}
		}
		if len(files) == 0 {
			files["p000"] = parse("p000", step+1)
		}
		c := build()
		got, want := selector.UpdateIndex(ix, c), selector.NewIndex(c)
		// z and the typos are unknown: their hints, kept from one index to
		// the next while no subject comes or goes, must be NewIndex's.
		for _, subj := range append(subjects, "all", "z", "al", "bb", "c/d") {
			for y := 2023; y <= 2028; y++ {
				for _, m := range []string{"01", "05", "09"} {
					q := selector.Query{Subjects: []string{subj}, Dates: []corpus.Date{corpus.MustParseDate(fmt.Sprintf("%d-%s-01", y, m))}}
					gs, err1 := got.Select(q)
					ws, err2 := want.Select(q)
					// A subject whose sources were all removed is unknown to
					// both indexes alike.
					if fmt.Sprint(err1) != fmt.Sprint(err2) {
						t.Fatalf("step %d: %v: NewIndex error %v, UpdateIndex error %v", step, q, err2, err1)
					}
					if err1 != nil {
						if !errors.Is(err1, selector.ErrBadQuery) {
							t.Fatal(err1)
						}
						continue
					}
					// Diff only on a mismatch: the loop asks 25,000 queries.
					if w, g := ids(ws.Sources), ids(gs.Sources); !slices.Equal(w, g) {
						t.Fatalf("step %d: %v: (-NewIndex +UpdateIndex):\n%s", step, q, cmp.Diff(w, g))
					}
					if w, g := fmt.Sprint(ws.Conflicts), fmt.Sprint(gs.Conflicts); w != g {
						t.Fatalf("step %d: %v: conflicts (-NewIndex +UpdateIndex):\n%s", step, q, cmp.Diff(w, g))
					}
				}
			}
		}
		if got.Corpus() != c {
			t.Fatalf("step %d: UpdateIndex indexes another corpus", step)
		}
		ix = got
	}
}

// TestUpdateIndexHints: an index updated from another that already
// answered a question about an unknown subject words the next one from
// the subjects it has: one that came is suggested, one that went is not,
// and one whose sources changed without it going stays.
func TestUpdateIndexHints(t *testing.T) {
	src := func(id, subj string) *corpus.Source {
		s, err := corpus.Parse(id+".md", fmt.Appendf(nil, "---\nsource_id: %s\nversion: v1\nsubjects: [%s]\nvalid_from: 2026-01-01\n---\nRule.\n", id, subj))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	index := func(prev *selector.Index, sources ...*corpus.Source) *selector.Index {
		c, err := corpus.New(sources)
		if err != nil {
			t.Fatal(err)
		}
		return selector.UpdateIndex(prev, c)
	}
	ask := func(ix *selector.Index, subj string) string {
		_, err := ix.Select(selector.Query{Subjects: []string{subj}, Dates: []corpus.Date{corpus.MustParseDate("2026-06-01")}})
		return fmt.Sprint(err)
	}
	lodging, rail := src("a", "lodging"), src("b", "rail")
	ix := index(nil, lodging, rail)
	steps := []struct {
		name    string
		sources []*corpus.Source
		ask     string
		want    string
	}{
		{"first question", []*corpus.Source{lodging, rail}, "rali", `unknown subject "rali"; did you mean rail?`},
		{"a source changes, its subject stays", []*corpus.Source{lodging, src("b", "rail")}, "rali", `unknown subject "rali"; did you mean rail?`},
		{"a subject goes", []*corpus.Source{lodging}, "rali", `unknown subject "rali"; the corpus's subjects are lodging`},
		{"a subject comes", []*corpus.Source{lodging, src("c", "meals")}, "meal", `unknown subject "meal"; did you mean meals?`},
		{"its source changes subject", []*corpus.Source{lodging, src("c", "mails")}, "mail", `unknown subject "mail"; did you mean mails?`},
	}
	for _, st := range steps {
		ix = index(ix, st.sources...)
		if got := ask(ix, st.ask); got != st.want {
			t.Errorf("%s: %q: got %s, want %s", st.name, st.ask, got, st.want)
		}
	}
}
