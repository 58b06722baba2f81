package contract

import (
	"context"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// TestAssembleKnownSpans: assembling a build's items with the encodings
// of its catalog's records and templates gives the bytes and the spans
// of assembling them in full, and the code points it reports for a span
// are those of its bytes; every record and template it quotes is taken
// encoded, with serves written between the halves when several subjects
// were asked.
func TestAssembleKnownSpans(t *testing.T) {
	c, err := corpus.Load(gencorpus.Varied(60))
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	b := &Builder{Definition: Default(), Index: ix, Catalog: NewCatalog(ix), Counter: budget.Codepoint, Limits: budget.Limits{Capacity: 40000, Reserve: 200}}
	byID := map[string][]*corpus.Source{}
	for _, s := range c.Sources {
		byID[s.ID] = append(byID[s.ID], s)
	}
	evidence, serves := 0, 0
	for n := range 200 {
		subjects := []string{gencorpus.VariedSubjects[n%5]}
		if n%3 == 0 {
			subjects = append(subjects, gencorpus.VariedSubjects[(n+2)%5])
		}
		d := corpus.MustParseDate(gencorpus.VariedFirst.AddDate(0, 0, 7*n%800).Format("2006-01-02"))
		req := Request{Query: selector.Query{Subjects: subjects, Dates: []corpus.Date{d}, Lang: []string{"en", "zh"}[n%2]}, Question: fmt.Sprintf("Question %d: „what“ applies?", n), Short: n%4 < 2}
		res, err := b.Build(context.Background(), req)
		if err != nil {
			t.Fatalf("build %d: %v", n, err)
		}
		known := make([]knownItem, len(res.Items))
		fixed := b.Catalog.fixedKnown([2]provenance.Item(res.Items[:2]))
		copy(known, fixed[:])
		for i, it := range res.Items {
			if it.Kind != provenance.KindEvidence {
				continue
			}
			bare := it
			bare.Ref.Serves = ""
			for _, s := range byID[it.Ref.SourceID] {
				recs, _ := b.Catalog.records(s, req.Short)
				for _, r := range recs {
					if p := r.pre.Item(); p.Text == bare.Text && p.Ref == bare.Ref {
						known[i] = knownAs(&r.enc, it)
					}
				}
			}
			if known[i].enc == nil {
				t.Fatalf("build %d: no record in the catalog for %s", n, it.Ref.Address())
			}
			if it.Ref.Serves != "" {
				serves++
			}
		}
		wantText, wantSpans, _, err := assemble(b.Definition, res.Store, res.Items, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		text, spans, runes, err := assemble(b.Definition, res.Store, res.Items, "", known)
		if err != nil {
			t.Fatal(err)
		}
		if string(text) != string(wantText) || string(text) != string(res.JSON) {
			t.Fatalf("build %d: assembled with encodings:\n%s", n, cmp.Diff(string(wantText), string(text)))
		}
		if diff := cmp.Diff(wantSpans, spans); diff != "" {
			t.Fatalf("build %d: spans differ with encodings (-in full +encoded):\n%s", n, diff)
		}
		if len(runes) != len(spans) {
			t.Fatalf("build %d: %d span counts for %d spans", n, len(runes), len(spans))
		}
		for i, sp := range spans {
			if runes[i] < 0 {
				if sp.Kind == provenance.KindEvidence || sp.Kind == provenance.KindInstruction || sp.Kind == provenance.KindExample {
					t.Errorf("build %d: %s span %s was not taken encoded", n, sp.Kind, sp.Label)
				}
				continue
			}
			if sp.Kind == provenance.KindEvidence {
				evidence++
			}
			if want := utf8.RuneCount(text[sp.Start:sp.End]); runes[i] != want {
				t.Errorf("build %d: %s span %s has %d code points, assemble says %d", n, sp.Kind, sp.Label, want, runes[i])
			}
		}
	}
	if evidence < 200 || serves < 20 {
		t.Errorf("%d evidence spans taken encoded, %d records serving several subjects: the builds do not exercise them", evidence, serves)
	}
}

// TestEncodedEvidenceHoldsNoQuote: a record's encoding holds its fields
// around the quote, not a copy of the quote (a prepared source would
// hold its body twice), and with the quote escaped between them it is
// the record's encoding, whatever the quote needs escaped and whichever
// subjects it serves; its code points are the whole record's.
func TestEncodedEvidenceHoldsNoQuote(t *testing.T) {
	for _, quote := range []string{
		"Lodging: 750 CNY per night.\nApplies from 2026-01-01.\n",
		"\"quoted\" \\ back\tslash\r\n\u2028 and \x01 and é 住宿",
		"",
		string(make([]byte, 4096)),
	} {
		it := provenance.Item{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: quote,
			Ref: provenance.Ref{SourceID: "travel", Version: "v2", Unit: "CNY", Role: "supplement", Lines: corpus.Range{Start: 1, End: 2}}}
		e := encodeEvidence(it)
		if len(e.text) > 200 {
			t.Errorf("%q: the encoding holds %d bytes, a copy of the quote", quote, len(e.text))
		}
		for _, serves := range []string{"", "lodging", "lodging, meals"} {
			want := it
			want.Ref.Serves = serves
			full := appendEvidence(nil, want)
			got, n := e.appendEvidence(nil, quote, serves)
			if string(got) != string(full) {
				t.Errorf("%q serving %q:\n got %s\nwant %s", quote, serves, got, full)
			}
			if n != utf8.RuneCount(full) {
				t.Errorf("%q serving %q: %d code points, the record has %d", quote, serves, n, utf8.RuneCount(full))
			}
		}
	}
}
