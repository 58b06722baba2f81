package selector_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

func sampleIndex(t testing.TB) *selector.Index {
	t.Helper()
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		t.Fatal(err)
	}
	return selector.NewIndex(c)
}

func ids(ss []*corpus.Source) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID+"/"+s.Lang)
	}
	return out
}

func TestSelectWorkedExample(t *testing.T) {
	ix := sampleIndex(t)
	tests := []struct {
		name     string
		subjects []string
		dates    []string
		lang     string
		want     []string
	}{
		{"last day of v1", []string{"lodging"}, []string{"2025-12-31"}, "en", []string{"travel-v1/en"}},
		{"first day of v2 only", []string{"lodging"}, []string{"2026-01-01"}, "en", []string{"travel-v2/en"}},
		{"a date in 2025", []string{"lodging"}, []string{"2025-09-14"}, "en", []string{"travel-v1/en"}},
		{"a date in 2026", []string{"lodging"}, []string{"2026-09-14"}, "en", []string{"travel-v2/en"}},
		{"open-ended far future", []string{"lodging"}, []string{"2099-12-31"}, "zh", []string{"travel-v2/zh"}},
		{"comparison gives both, newest first", []string{"lodging"}, []string{"2025-09-14", "2026-09-14"}, "en", []string{"travel-v2/en", "travel-v1/en"}},
		{"dates in any order", []string{"lodging"}, []string{"2026-09-14", "2025-09-14", "2026-09-14"}, "en", []string{"travel-v2/en", "travel-v1/en"}},
		{"before anything", []string{"lodging"}, []string{"2024-12-31"}, "en", nil},
		{"rail is another subject", []string{"rail"}, []string{"2026-09-14"}, "en", []string{"rail-faq-v1/en"}},
		{"no lang: every language", []string{"lodging"}, []string{"2026-09-14"}, "", []string{"travel-v2/en", "travel-v2/zh"}},
		{"source without lang applies to every lang", []string{"lodging-notice"}, []string{"2026-09-14"}, "zh", []string{"notice-hostile/"}},
		{"several subjects", []string{"rail", "lodging"}, []string{"2026-09-14"}, "en", []string{"rail-faq-v1/en", "travel-v2/en"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := selector.Query{Subjects: tt.subjects, Lang: tt.lang}
			for _, d := range tt.dates {
				q.Dates = append(q.Dates, corpus.MustParseDate(d))
			}
			sel, err := ix.Select(q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ids(sel.Sources)); diff != "" {
				t.Errorf("Select() mismatch (-want +got):\n%s", diff)
			}
			if len(sel.Conflicts) != 0 {
				t.Errorf("Select() conflicts = %v, want none", sel.Conflicts)
			}
			// Explain must agree with Select on what is selected.
			decisions, err := ix.Explain(q)
			if err != nil {
				t.Fatal(err)
			}
			var explained []*corpus.Source
			for _, d := range decisions {
				if d.Selected() {
					explained = append(explained, d.Source)
				}
			}
			if diff := cmp.Diff(tt.want, ids(explained)); diff != "" {
				t.Errorf("Explain() selected mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplainReasons(t *testing.T) {
	ix := sampleIndex(t)
	q := selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{corpus.MustParseDate("2026-09-14")}, Lang: "en"}
	decisions, err := ix.Explain(q)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range decisions {
		got[d.Source.ID+"/"+d.Source.Lang] = d.Explain()
	}
	want := map[string]string{
		"travel-v2/en":    "selected: applies on 2026-09-14",
		"travel-v1/en":    "excluded: on or after valid_until 2026-01-01",
		"rail-faq-v1/en":  "excluded: subject mismatch (about rail)",
		"notice-hostile/": "excluded: subject mismatch (about lodging-notice)",
		"travel-v1/zh":    "excluded: other language (zh)",
		"travel-v2/zh":    "excluded: other language (zh)",
		"rail-faq-v1/zh":  "excluded: subject mismatch (about rail)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Explain() mismatch (-want +got):\n%s", diff)
	}
	if !decisions[0].Selected() {
		t.Errorf("Explain() lists %s first, want the selected source first", decisions[0].Source.ID)
	}
}

func TestExplainBeforeAndBetween(t *testing.T) {
	ix := sampleIndex(t)
	q := selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{corpus.MustParseDate("2024-06-01")}, Lang: "en"}
	decisions, _ := ix.Explain(q)
	for _, d := range decisions {
		if d.Source.ID == "travel-v1" && d.Source.Lang == "en" && d.Reason != selector.ReasonBeforeFrom {
			t.Errorf("travel-v1 reason = %s, want %s", d.Reason, selector.ReasonBeforeFrom)
		}
	}
	q.Dates = []corpus.Date{corpus.MustParseDate("2024-06-01"), corpus.MustParseDate("2026-06-01")}
	decisions, _ = ix.Explain(q)
	for _, d := range decisions {
		if d.Source.ID == "travel-v1" && d.Source.Lang == "en" && d.Reason != selector.ReasonBetweenDates {
			t.Errorf("travel-v1 reason = %s, want %s", d.Reason, selector.ReasonBetweenDates)
		}
	}
}

func src(id, lang, from, until string, subjects ...string) *corpus.Source {
	s := &corpus.Source{ID: id, Version: "v1", Lang: lang, Subjects: subjects, ValidFrom: corpus.MustParseDate(from), Path: id + ".md"}
	if until != "" {
		s.ValidUntil = corpus.MustParseDate(until)
	}
	return s
}

func TestOverlapsAreKeptAndReported(t *testing.T) {
	c, err := corpus.New([]*corpus.Source{
		src("hotel-a", "en", "2026-01-01", "2026-07-01", "lodging"),
		src("hotel-b", "en", "2026-03-01", "", "lodging"),
		src("hotel-c", "", "2026-05-01", "2026-06-01", "lodging"),
		src("hotel-z", "zh", "2026-03-01", "", "lodging"),
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	sel, err := ix.Select(selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{corpus.MustParseDate("2026-04-01"), corpus.MustParseDate("2026-05-15")}, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"hotel-c/", "hotel-b/en", "hotel-a/en"}, ids(sel.Sources)); diff != "" {
		t.Errorf("Select() mismatch (-want +got):\n%s", diff)
	}
	var got []string
	for _, c := range sel.Conflicts {
		got = append(got, c.String())
	}
	want := []string{
		"subject lodging (en) on 2026-04-01: hotel-b, hotel-a all apply",
		"subject lodging (en) on 2026-05-15: hotel-c, hotel-b, hotel-a all apply",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Conflicts mismatch (-want +got):\n%s", diff)
	}
}

// TestSupplementsAreNoConflict: a source with role: supplement applies
// together with the others by design; it is selected, but in no conflict.
func TestSupplementsAreNoConflict(t *testing.T) {
	shared := src("meals-shared", "en", "2026-01-01", "", "meals-shanghai", "meals-chengdu")
	shared.Role = corpus.RoleSupplement
	c, err := corpus.New([]*corpus.Source{
		shared,
		src("meals-shanghai", "en", "2026-01-01", "", "meals-shanghai"),
		src("meals-chengdu", "en", "2026-01-01", "", "meals-chengdu"),
		src("meals-chengdu-old", "en", "2025-01-01", "2026-06-01", "meals-chengdu"),
	})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := selector.NewIndex(c).Select(selector.Query{Subjects: []string{"meals-shanghai", "meals-chengdu"},
		Dates: []corpus.Date{corpus.MustParseDate("2026-03-01")}, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"meals-chengdu/en", "meals-shanghai/en", "meals-shared/en", "meals-chengdu-old/en"}, ids(sel.Sources)); diff != "" {
		t.Errorf("Select() mismatch (-want +got):\n%s", diff)
	}
	var got []string
	for _, c := range sel.Conflicts {
		got = append(got, c.String())
	}
	want := []string{"subject meals-chengdu (en) on 2026-03-01: meals-chengdu, meals-chengdu-old all apply"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Conflicts mismatch (-want +got):\n%s", diff)
	}
}

func TestBadQuery(t *testing.T) {
	ix := sampleIndex(t)
	for _, q := range []selector.Query{
		{Dates: []corpus.Date{corpus.MustParseDate("2026-01-01")}},
		{Subjects: []string{"lodging"}},
		{Subjects: []string{" "}, Dates: []corpus.Date{corpus.MustParseDate("2026-01-01")}},
	} {
		if _, err := ix.Select(q); !errors.Is(err, selector.ErrBadQuery) {
			t.Errorf("Select(%+v) error = %v, want ErrBadQuery", q, err)
		}
	}
}

// TestIndexAgreesWithScan checks the indexed query against a plain scan on
// random corpora with overlapping intervals.
func TestIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := corpus.MustDate(2020, time.January, 1)
	// Rounds of 40 sources select a few at a time; rounds of 160 are
	// asked about several subjects and dates in any order and with
	// repeats (which normalize sorts out), and select dozens.
	largest := 0
	for round := 0; round < 80; round++ {
		n, many := 40, round >= 50
		if many {
			n = 160
		}
		var sources []*corpus.Source
		for i := 0; i < n; i++ {
			s := &corpus.Source{ID: fmt.Sprintf("s%03d", i), Version: "v1", Path: fmt.Sprintf("s%03d.md", i),
				Subjects:  []string{fmt.Sprintf("subj%d", r.IntN(3))},
				ValidFrom: base.AddDays(r.IntN(400)), Lang: []string{"", "en", "zh"}[r.IntN(3)]}
			if r.IntN(4) > 0 {
				s.ValidUntil = s.ValidFrom.AddDays(1 + r.IntN(200))
			}
			sources = append(sources, s)
		}
		c, err := corpus.New(sources)
		if err != nil {
			t.Fatal(err)
		}
		ix := selector.NewIndex(c)
		for i := 0; i < 30; i++ {
			q := selector.Query{Subjects: []string{fmt.Sprintf("subj%d", r.IntN(3))},
				Dates: []corpus.Date{base.AddDays(r.IntN(700) - 50)}, Lang: []string{"", "en", "zh"}[r.IntN(3)]}
			if r.IntN(2) == 0 {
				q.Dates = append(q.Dates, base.AddDays(r.IntN(700)-50))
			}
			if many {
				for range r.IntN(3) {
					q.Subjects = append(q.Subjects, fmt.Sprintf("subj%d", r.IntN(3)))
					q.Dates = append(q.Dates, q.Dates[r.IntN(len(q.Dates))], base.AddDays(r.IntN(700)-50))
				}
			}
			sel, err := ix.Select(q)
			if err != nil {
				t.Fatal(err)
			}
			decisions, _ := ix.Explain(q)
			var want []*corpus.Source
			for _, d := range decisions {
				if d.Selected() {
					want = append(want, d.Source)
				}
			}
			if diff := cmp.Diff(ids(want), ids(sel.Sources)); diff != "" {
				t.Fatalf("round %d query %+v: Select() disagrees with a scan (-scan +index):\n%s", round, q, diff)
			}
			largest = max(largest, len(sel.Sources))
		}
	}
	if largest <= 32 {
		t.Errorf("the largest selection has %d sources; the test means to select dozens", largest)
	}
}

func TestSelectUnknownSubject(t *testing.T) {
	ix := sampleIndex(t)
	tests := []struct {
		name     string
		subjects []string
		want     *selector.UnknownSubjectError
		wantMsg  string
	}{
		{"typo gets a suggestion", []string{"lodgin"}, &selector.UnknownSubjectError{Subject: "lodgin", Suggestion: "lodging",
			Known: []string{"lodging", "lodging-notice", "rail"}}, `unknown subject "lodgin"; did you mean lodging?`},
		{"no close subject lists the known ones", []string{"meals"}, &selector.UnknownSubjectError{Subject: "meals",
			Known: []string{"lodging", "lodging-notice", "rail"}}, `unknown subject "meals"; the corpus's subjects are lodging, lodging-notice, rail`},
		{"one unknown among known ones", []string{"lodging", "rial"}, &selector.UnknownSubjectError{Subject: "rial", Suggestion: "rail",
			Known: []string{"lodging", "lodging-notice", "rail"}}, `unknown subject "rial"; did you mean rail?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkUnknownSubject(t, ix, tt.subjects, tt.want, tt.wantMsg)
		})
	}
	// A subject the corpus knows, asked on a date no source covers, still
	// selects nothing, without an error.
	sel, err := ix.Select(selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{corpus.MustParseDate("2024-12-31")}, Lang: "en"})
	if err != nil || len(sel.Sources) != 0 {
		t.Errorf("Select(known subject, no source on the date) = %v, %v; want no sources and no error", ids(sel.Sources), err)
	}
}

// TestSelectHierarchicalSubjects: a subject of several segments is
// matched whole, never by a prefix or a last segment; asking for a parent
// or a last segment is an unknown subject whose message names the
// subjects meant.
func TestSelectHierarchicalSubjects(t *testing.T) {
	file := func(id, subjects string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nsource_id: " + id + "\nversion: v1\nsubjects: " + subjects +
			"\nvalid_from: 2026-01-01\nlang: en\n---\nText.\n")}
	}
	c, err := corpus.Load(fstest.MapFS{
		"bj.md":    file("bj", "[travel/lodging/beijing]"),
		"sh.md":    file("sh", "[travel/lodging/shanghai]"),
		"all.md":   file("all", "[travel/lodging]"),
		"rail.md":  file("rail", "[travel/rail/beijing]"),
		"local.md": file("local", "[travel/lodging-local]"),
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	day := []corpus.Date{corpus.MustParseDate("2026-09-14")}
	for subj, want := range map[string][]string{
		"travel/lodging/beijing": {"bj/en"},
		"travel/lodging":         {"all/en"},
		"travel/lodging-local":   {"local/en"},
	} {
		sel, err := ix.Select(selector.Query{Subjects: []string{subj}, Dates: day})
		if err != nil {
			t.Fatalf("Select(%s): %v", subj, err)
		}
		if diff := cmp.Diff(want, ids(sel.Sources)); diff != "" {
			t.Errorf("Select(%s) mismatch (-want +got):\n%s", subj, diff)
		}
	}
	known := []string{"travel/lodging", "travel/lodging-local", "travel/lodging/beijing", "travel/lodging/shanghai", "travel/rail/beijing"}
	tests := []struct {
		name     string
		subjects []string
		want     *selector.UnknownSubjectError
		wantMsg  string
	}{
		{"a parent lists what is under it", []string{"travel"}, &selector.UnknownSubjectError{Subject: "travel",
			Related: known, Known: known},
			`unknown subject "travel"; did you mean travel/lodging, travel/lodging-local, travel/lodging/beijing, travel/lodging/shanghai or travel/rail/beijing?`},
		{"a last segment lists the subjects it ends", []string{"beijing"}, &selector.UnknownSubjectError{Subject: "beijing",
			Related: []string{"travel/lodging/beijing", "travel/rail/beijing"}, Known: known},
			`unknown subject "beijing"; did you mean travel/lodging/beijing or travel/rail/beijing?`},
		{"last segments", []string{"lodging/shanghai"}, &selector.UnknownSubjectError{Subject: "lodging/shanghai",
			Related: []string{"travel/lodging/shanghai"}, Known: known},
			`unknown subject "lodging/shanghai"; did you mean travel/lodging/shanghai?`},
		{"a typo in a segment", []string{"travel/lodging/bejing"}, &selector.UnknownSubjectError{Subject: "travel/lodging/bejing",
			Suggestion: "travel/lodging/beijing", Known: known},
			`unknown subject "travel/lodging/bejing"; did you mean travel/lodging/beijing?`},
		{"capitals and a doubled slash", []string{"Travel//Rail/Beijing"}, &selector.UnknownSubjectError{Subject: "Travel//Rail/Beijing",
			Suggestion: "travel/rail/beijing", Known: known},
			`unknown subject "Travel//Rail/Beijing"; did you mean travel/rail/beijing?`},
		{"a subject in capitals", []string{"Travel/Lodging/"}, &selector.UnknownSubjectError{Subject: "Travel/Lodging/",
			Suggestion: "travel/lodging", Known: known},
			`unknown subject "Travel/Lodging/"; did you mean travel/lodging?`},
		{"a parent in capitals", []string{"Travel/Rail"}, &selector.UnknownSubjectError{Subject: "Travel/Rail",
			Related: []string{"travel/rail/beijing"}, Known: known},
			`unknown subject "Travel/Rail"; did you mean travel/rail/beijing?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkUnknownSubject(t, ix, tt.subjects, tt.want, tt.wantMsg)
		})
	}
}

func checkUnknownSubject(t *testing.T, ix *selector.Index, subjects []string, want *selector.UnknownSubjectError, wantMsg string) {
	t.Helper()
	q := selector.Query{Subjects: subjects, Dates: []corpus.Date{corpus.MustParseDate("2026-09-14")}, Lang: "en"}
	for _, run := range []func() error{
		func() error { _, err := ix.Select(q); return err },
		func() error { _, err := ix.Explain(q); return err },
	} {
		err := run()
		var ue *selector.UnknownSubjectError
		if !errors.As(err, &ue) || !errors.Is(err, selector.ErrBadQuery) {
			t.Fatalf("error = %v, want an *UnknownSubjectError matching ErrBadQuery", err)
		}
		if diff := cmp.Diff(want, ue); diff != "" {
			t.Errorf("error mismatch (-want +got):\n%s", diff)
		}
		if err.Error() != wantMsg {
			t.Errorf("Error() = %q, want %q", err.Error(), wantMsg)
		}
	}
}
