package selector_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// TestNewReport: a report lists every source of the corpus with the
// decision Explain makes for it, in contract order, written out with its
// interval; the decisions are Decide's, source by source; and an unknown
// subject is the query's error, not an empty report.
func TestNewReport(t *testing.T) {
	ix := sampleIndex(t)
	q := selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{corpus.MustParseDate("2025-03-01"), corpus.MustParseDate("2026-03-01")}, Lang: "en"}
	r, err := ix.NewReport(q)
	if err != nil {
		t.Fatal(err)
	}
	if r.CorpusDigest != ix.Corpus().Digest || len(r.Decisions) != len(ix.Corpus().Sources) {
		t.Fatalf("report of %d decisions over digest %s, want one per source of %s", len(r.Decisions), r.CorpusDigest, ix.Corpus().Digest)
	}
	if diff := cmp.Diff([]string{"lodging"}, r.Subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"2025-03-01", "2026-03-01"}, r.Dates); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
	decisions, err := ix.Explain(q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(selector.Records(decisions), r.Decisions); diff != "" {
		t.Errorf("decisions are not Explain's (-explain +report):\n%s", diff)
	}
	var selected []string
	for i, d := range decisions {
		if got := selector.Decide(d.Source, q); got.Reason != d.Reason {
			t.Errorf("Decide(%s) = %s, Explain said %s", d.Source.Path, got.Reason, d.Reason)
		}
		rec := r.Decisions[i]
		if got, want := rec.Interval(), selector.Interval(d.Source); got != want {
			t.Errorf("%s: record interval %s, source interval %s", rec.Path, got, want)
		}
		if rec.Selected {
			selected = append(selected, rec.SourceID+" "+rec.Interval())
		}
	}
	want := []string{"travel-v2 [2026-01-01, open)", "travel-v1 [2025-01-01, 2026-01-01)"}
	if diff := cmp.Diff(want, selected); diff != "" {
		t.Errorf("selected records (-want +got):\n%s", diff)
	}

	q.Subjects = []string{"lodgin"}
	var unknown *selector.UnknownSubjectError
	if _, err := ix.NewReport(q); !errors.As(err, &unknown) {
		t.Errorf("NewReport(unknown subject) = %v, want an UnknownSubjectError", err)
	}
}
