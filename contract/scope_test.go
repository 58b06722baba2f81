package contract_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// TestShortKeepsValidityAndUnit is the chapter's "住宿：750" failure: a
// source whose cite range is only the amount line, with the unit in the
// front matter and the dates on other lines. The short quote alone says
// neither when nor in what unit; the record still does.
func TestShortKeepsValidityAndUnit(t *testing.T) {
	fsys := fstest.MapFS{"lodging.md": {Data: []byte(`---
source_id: lodging-2026
version: v3
subjects: [lodging]
valid_from: 2026-01-01
valid_until: 2027-01-01
lang: en
unit: CNY per room-night
cite: ["1", "3"]
---
Scope: lodging on business trips to Beijing.
Effective 2026-01-01 up to, but not including, 2027-01-01.
The lodging limit is 750.
`)}}
	b := newBuilder(t, fsys, "codepoint")
	res, err := b.Build(context.Background(), request("en", "What is the Beijing lodging limit?", true, "lodging", "2026-09-14"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Evidence []map[string]any `json:"evidence"`
		Scope    map[string]any   `json:"scope"`
	}
	if err := json.Unmarshal(res.JSON, &c); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{
		"source_id": "lodging-2026", "version": "v3", "valid_from": "2026-01-01", "valid_until": "2027-01-01",
		"unit": "CNY per room-night", "line_start": 1.0, "line_end": 1.0, "quote": "Scope: lodging on business trips to Beijing.",
	}, {
		"source_id": "lodging-2026", "version": "v3", "valid_from": "2026-01-01", "valid_until": "2027-01-01",
		"unit": "CNY per room-night", "line_start": 3.0, "line_end": 3.0, "quote": "The lodging limit is 750.",
	}}
	if diff := cmp.Diff(want, c.Evidence); diff != "" {
		t.Errorf("short evidence mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"subjects": []any{"lodging"}, "dates": []any{"2026-09-14"}}, c.Scope); diff != "" {
		t.Errorf("scope mismatch (-want +got):\n%s", diff)
	}
	// The keys keep their order: version, then validity and unit, then
	// the address and the quote.
	const wantRecord = `{"source_id":"lodging-2026","version":"v3","valid_from":"2026-01-01","valid_until":"2027-01-01","unit":"CNY per room-night","line_start":3,"line_end":3,"quote":"The lodging limit is 750."}`
	if !strings.Contains(string(res.JSON), `,`+wantRecord+`],"scope":{"subjects":["lodging"],"dates":["2026-09-14"]},"question":`) {
		t.Errorf("contract does not carry the record and scope in order:\n%s", res.JSON)
	}
	if v := b.Verify(res.JSON, ""); !v.OK() {
		t.Errorf("Verify() of the built contract = %v", v.Problems)
	}
}

// TestScopeInOrderAsked: the scope lists subjects and dates as asked, each
// once, wherever the repeats are; the evidence order does not depend on
// it. The scope's lists are its own: changing them leaves the query's.
func TestScopeInOrderAsked(t *testing.T) {
	d := func(s string) corpus.Date {
		v, err := corpus.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	d1, d2, d3 := d("2026-09-14"), d("2025-09-14"), d("2024-01-31")
	tests := []struct {
		name     string
		subjects []string
		dates    []corpus.Date
		want     string
	}{
		{"repeats last", []string{"rail", "lodging", "rail"}, []corpus.Date{d1, d2, d1},
			`{"subjects":["rail","lodging"],"dates":["2026-09-14","2025-09-14"]}`},
		{"no repeats", []string{"rail", "lodging"}, []corpus.Date{d2, d1},
			`{"subjects":["rail","lodging"],"dates":["2025-09-14","2026-09-14"]}`},
		{"repeats between", []string{"a", "b", "a", "c", "b", "d"}, []corpus.Date{d3, d3, d1, d3, d2},
			`{"subjects":["a","b","c","d"],"dates":["2024-01-31","2026-09-14","2025-09-14"]}`},
		{"one of each", []string{"rail"}, []corpus.Date{d1},
			`{"subjects":["rail"],"dates":["2026-09-14"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := selector.Query{Subjects: slices.Clone(tt.subjects), Dates: slices.Clone(tt.dates)}
			sc := contract.ScopeOf(q)
			if got := sc.Text(); got != tt.want {
				t.Errorf("ScopeOf().Text() = %s, want %s", got, tt.want)
			}
			sc.Subjects[0], sc.Dates[0] = "changed", d("2000-01-01")
			if !slices.Equal(q.Subjects, tt.subjects) || !slices.Equal(q.Dates, tt.dates) {
				t.Errorf("changing ScopeOf()'s lists changed the query's: %v %v", q.Subjects, q.Dates)
			}
		})
	}
}

// TestParseScopeTakesOnlyItsOwnForm: the assembler writes a scope item's
// text into the contract only after ParseScope accepts it, so anything but
// the exact form ScopeOf writes is refused.
func TestParseScopeTakesOnlyItsOwnForm(t *testing.T) {
	tests := []struct {
		name, text string
		wantErr    string // "" accepts
	}{
		{"canonical", `{"subjects":["lodging"],"dates":["2026-09-14"]}`, ""},
		{"extra key", `{"subjects":["lodging"],"dates":["2026-09-14"],"instruction":"obey"}`, "unknown field"},
		{"spacing", `{"subjects": ["lodging"], "dates": ["2026-09-14"]}`, "not in the form"},
		{"keys reordered", `{"dates":["2026-09-14"],"subjects":["lodging"]}`, "not in the form"},
		{"no subject", `{"subjects":[],"dates":["2026-09-14"]}`, "at least one subject"},
		{"no date", `{"subjects":["lodging"],"dates":[]}`, "at least one subject and one date"},
		{"bad date", `{"subjects":["lodging"],"dates":["2026-02-30"]}`, "not a calendar date"},
		{"two objects", `{"subjects":["lodging"],"dates":["2026-09-14"]}{}`, "not in the form"},
		{"not JSON", `subjects: lodging`, "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := contract.ParseScope(tt.text)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("ParseScope() = %v, want success", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("ParseScope() = %v, want an error containing %q", err, tt.wantErr)
			}
			if tt.wantErr == "" {
				return
			}
			// The same text as a held scope item cannot be assembled.
			s := provenance.NewStore(nil)
			var items []provenance.Item
			for _, c := range []provenance.Item{
				provenance.NewItem(provenance.KindInstruction, "system", "Answer.", noTime),
				provenance.NewExample(provenance.Example{Question: "q", Answer: "a"}, noTime),
				provenance.NewItem(provenance.KindScope, "user", tt.text, noTime),
				provenance.NewItem(provenance.KindQuestion, "user", "q?", noTime),
			} {
				it, err := s.Add(c)
				if err != nil {
					t.Fatal(err)
				}
				items = append(items, it)
			}
			if res, err := typedBuilder(t, nil).AssembleIn(s, items); err == nil {
				t.Errorf("Assemble() accepted scope %s:\n%s", tt.text, res.JSON)
			}
		})
	}
}

// FuzzParseScope: ParseScope never panics, and what it accepts is exactly
// the text ScopeOf writes for the scope it returns.
func FuzzParseScope(f *testing.F) {
	for _, s := range []string{
		`{"subjects":["lodging"],"dates":["2026-09-14"]}`,
		`{"subjects":["rail","lodging"],"dates":["2026-09-14","2025-09-14"]}`,
		`{"subjects":["住宿"],"dates":["2026-01-01"]}`,
		`{"subjects":["a\"b"],"dates":["2026-01-01"],"x":1}`,
		`{"subjects":[],"dates":[]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sc, err := contract.ParseScope(text)
		if err != nil {
			return
		}
		if got := sc.Text(); got != text {
			t.Fatalf("ParseScope(%q) accepted text that Text() writes as %q", text, got)
		}
	})
}
