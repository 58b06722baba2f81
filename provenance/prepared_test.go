package provenance_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// TestAddPreparedIsAdd: registering a prepared candidate decides and
// records exactly what registering the candidate does, in a store that
// already holds other content: the same held items, the same refusals
// (content first registered under another protected type, a source the
// policy does not allow, wrapped content), the same history.
func TestAddPreparedIsAdd(t *testing.T) {
	quote := "The lodging limit is 750 CNY per room-night, receipts required."
	ref := provenance.Ref{SourceID: "travel", Version: "v2", Lines: corpus.Range{Start: 1, End: 1}}
	other := ref
	other.Lines.End = 2
	candidates := []provenance.Item{
		{Kind: provenance.KindInstruction, Source: provenance.SourceSystem, Text: "Answer from the evidence only."},
		{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: quote, Ref: ref},
		{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: quote, Ref: ref},   // held already
		{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: quote, Ref: other}, // same content, another address
		{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: "ANSWER from the evidence   only.", Ref: ref},
		{Kind: provenance.KindEvidence, Source: "tool:lookup", Text: "A tool's claim."},
		{Kind: provenance.KindMemory, Source: "memory:notes", Text: quote},
		{Kind: provenance.KindInstruction, Source: provenance.SourceSystem, Text: "Be brief.\n" + quote},
		{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: "   "},
	}
	plain, prepared := provenance.NewStore(nil), provenance.NewStore(nil)
	for i, c := range candidates {
		want, wantErr := plain.Add(c)
		var got provenance.Item
		var gotErr error
		if p, err := provenance.Prepare(c); err == nil {
			if p.Item().ID != provenance.ContentID(c.Text) {
				t.Errorf("Prepare(candidate %d) has ID %s, want %s", i, p.Item().ID, provenance.ContentID(c.Text))
			}
			got, gotErr = prepared.AddPrepared(context.Background(), p)
		} else {
			got, gotErr = prepared.Add(c)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("candidate %d: AddPrepared() mismatch (-Add +AddPrepared):\n%s", i, diff)
		}
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
			t.Errorf("candidate %d: AddPrepared() error %v, Add() error %v", i, gotErr, wantErr)
		}
	}
	var a, b bytes.Buffer
	if err := plain.WriteHistory(&a); err != nil {
		t.Fatal(err)
	}
	if err := prepared.WriteHistory(&b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a.String(), b.String()); diff != "" {
		t.Errorf("history mismatch (-Add +AddPrepared):\n%s", diff)
	}
	if !bytes.Contains(a.Bytes(), []byte(`"outcome":"refused"`)) || !bytes.Contains(a.Bytes(), []byte(`"outcome":"existing"`)) {
		t.Errorf("the history has no refusal or no existing item; the candidates do not exercise them:\n%s", a.String())
	}
}

// TestPrepareRefuses: a candidate Add would refuse before looking at
// the store cannot be prepared.
func TestPrepareRefuses(t *testing.T) {
	ref := provenance.Ref{SourceID: "travel", Version: "v2", Lines: corpus.Range{Start: 1, End: 1}}
	for name, c := range map[string]provenance.Item{
		"unknown type":      {Kind: "advice", Source: provenance.SourceSystem, Text: "x"},
		"bad source":        {Kind: provenance.KindEvidence, Source: "corpus", Text: "x"},
		"invalid UTF-8":     {Kind: provenance.KindEvidence, Source: "corpus:travel", Text: "\xff", Ref: ref},
		"derived":           {Kind: provenance.KindEvidence, Source: "corpus:travel", Text: "x", DerivedFrom: "abc"},
		"wrong ID":          {Kind: provenance.KindEvidence, Source: "corpus:travel", Text: "x", ID: provenance.ContentID("y")},
		"foreign address":   {Kind: provenance.KindEvidence, Source: "corpus:other", Text: "x", Ref: ref},
		"address on memory": {Kind: provenance.KindMemory, Source: "memory:notes", Text: "x", Ref: ref},
	} {
		if _, err := provenance.Prepare(c); err == nil {
			t.Errorf("Prepare(%s) = nil error, want a refusal", name)
		}
		if _, err := provenance.NewStore(nil).Add(c); err == nil {
			t.Errorf("Add(%s) = nil error; the case does not test what Add refuses", name)
		}
	}
}

// TestWithServes: a prepared record given the subjects it serves has the
// key of the candidate made with them, and its content ID unchanged.
func TestWithServes(t *testing.T) {
	c := provenance.Item{Kind: provenance.KindEvidence, Source: "corpus:travel", Text: "The limit is 750 CNY.",
		Ref: provenance.Ref{SourceID: "travel", Version: "v2", Lines: corpus.Range{Start: 1, End: 1}}}
	p, err := provenance.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.WithServes("lodging.beijing lodging.east")
	if err != nil {
		t.Fatal(err)
	}
	c.Ref.Serves = "lodging.beijing lodging.east"
	want, err := provenance.NewStore(nil).Add(c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, s.Item()); diff != "" {
		t.Errorf("WithServes() mismatch (-Add +WithServes):\n%s", diff)
	}
	if p.Item().Key == s.Item().Key || p.Item().Ref.Serves != "" {
		t.Errorf("WithServes changed the record it was called on, or kept its key")
	}
	m, err := provenance.Prepare(provenance.Item{Kind: provenance.KindMemory, Source: "memory:notes", Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WithServes("lodging"); err == nil {
		t.Errorf("WithServes on a memory item = nil error, want a refusal: only evidence carries an address")
	}
}
