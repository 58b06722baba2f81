package contract_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// citedBuilder builds over testdata/cited with room for every record:
// meals-faq declares no cite ranges, meals-v2 two (1-2 and 4-5 of six
// lines), meals-card one that is its whole body, meals-v1 one (2-3 of
// four lines). On 2026-03-01 all four apply.
func citedBuilder(t *testing.T) *contract.Builder {
	t.Helper()
	b := newBuilder(t, os.DirFS("testdata/cited"), "codepoint")
	b.Limits.Capacity = 20000
	return b
}

// recorder returns rec, which makes a record of source id quoting lines
// start to end exactly: a record of id from the built contract, moved,
// so that it keeps every other field Build writes.
func recorder(t *testing.T, b *contract.Builder, built []byte) func(id string, start, end int) contract.EvidenceRecord {
	var d contract.Document
	if err := json.Unmarshal(built, &d); err != nil {
		t.Fatal(err)
	}
	return func(id string, start, end int) contract.EvidenceRecord {
		t.Helper()
		i := slices.IndexFunc(d.Evidence, func(e contract.EvidenceRecord) bool { return e.SourceID == id })
		if i < 0 {
			t.Fatalf("the contract has no record of %s", id)
		}
		s, err := b.Index.Corpus().Lookup(id, "en")
		if err != nil {
			t.Fatal(err)
		}
		e := d.Evidence[i]
		if e.Quote, err = s.Quote(corpus.Range{Start: start, End: end}); err != nil {
			t.Fatal(err)
		}
		e.LineStart, e.LineEnd = start, end
		return e
	}
}

// TestVerifyRecordForms: a record is a whole body or exactly one declared
// cite range, a source is quoted one way only, in the contract's one
// form, its cite ranges in their declared order and none left out. Each
// of these was accepted before Verify compared the records with the
// build's.
func TestVerifyRecordForms(t *testing.T) {
	b := citedBuilder(t)
	built := func(short bool) []byte {
		res, err := b.Build(context.Background(), request("en", "What may a meal cost?", short, "meals", "2026-03-01"))
		if err != nil {
			t.Fatal(err)
		}
		return res.JSON
	}
	whole, short := built(false), built(true)
	if diff := cmp.Diff([]string{"meals-faq:1-2", "meals-v2:1-6", "meals-card:1-2", "meals-v1:1-4"}, addresses(t, whole)); diff != "" {
		t.Fatalf("whole build mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"meals-faq:1-2", "meals-v2:1-2", "meals-v2:4-5", "meals-card:1-2", "meals-v1:2-3"}, addresses(t, short)); diff != "" {
		t.Fatalf("short build mismatch (-want +got):\n%s", diff)
	}
	rec := recorder(t, b, whole)
	edit := func(data []byte, f func(ev []contract.EvidenceRecord) []contract.EvidenceRecord) []byte {
		var d contract.Document
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		d.Evidence = f(d.Evidence)
		return marshalCompact(t, d)
	}
	tests := []struct {
		name      string
		data      []byte
		wantShort bool
		want      []string // problem codes, in order
		mention   string   // in the first problem's message
	}{
		{"whole, as built", whole, false, nil, ""},
		{"short, as built: meals-faq has no cite ranges and is quoted whole", short, true, nil, ""},
		{"whole body cut to lines 1-4, line_end adjusted: the exception on line 5 is gone", edit(whole, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[1] = rec("meals-v2", 1, 4)
			return ev
		}), false, []string{"cut"}, "lines 1-4 of meals-v2 are cut from its whole body, lines 1-6, leaving out lines 5-6"},
		{"whole body cut from the start", edit(whole, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[3] = rec("meals-v1", 2, 4)
			return ev
		}), false, []string{"cut"}, "leaving out line 1:"},
		{"cite range cut", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[2] = rec("meals-v2", 4, 4)
			return ev
		}), true, []string{"cut"}, "cut from its cite range, lines 4-5, leaving out line 5"},
		{"cite range extended", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[1] = rec("meals-v2", 1, 3)
			return ev
		}), true, []string{"range"}, "nor one of the cite ranges this contract quotes it by (1-2, 4-5)"},
		{"a source without cite ranges split in two", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Insert(ev[1:], 0, rec("meals-faq", 1, 1), rec("meals-faq", 2, 2))
		}), true, []string{"cut", "cut"}, "cut from its whole body"},
		{"whole and its cite ranges", edit(whole, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Insert(ev, 2, rec("meals-v2", 1, 2), rec("meals-v2", 4, 5))
		}), false, []string{"form", "form"}, "meals-v2 is quoted by its cite range 1-2 here and whole (lines 1-6) at /evidence/1"},
		{"cite ranges and the whole body", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Insert(ev, 3, rec("meals-v2", 1, 6))
		}), true, []string{"form"}, "meals-v2 is quoted whole (lines 1-6) here and by its cite range 1-2 at /evidence/1"},
		{"cite ranges swapped", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[1], ev[2] = ev[2], ev[1]
			return ev
		}), true, []string{"cite_order"}, "cite range 1-2 of meals-v2 must come before 4-5 (/evidence/1)"},
		{"second cite range dropped", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Delete(ev, 2, 3)
		}), true, []string{"cite_missing"}, "cite range 4-5 of meals-v2 has no record"},
		{"first cite range dropped", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Delete(ev, 1, 2)
		}), true, []string{"cite_missing"}, "cite range 1-2 of meals-v2 has no record"},
		{"every record of a source dropped", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Delete(ev, 1, 3)
		}), true, []string{"selection_missing"}, "meals-v2 applies to the scope"},
		{"short, one source whole", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[4] = rec("meals-v1", 1, 4)
			return ev
		}), true, []string{"form"}, "meals-v1 is quoted whole (lines 1-4), but this contract quotes cite ranges, as /evidence/1 shows (meals-v2 by its cite range 1-2)"},
		{"whole, one source by its cite range", edit(whole, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[3] = rec("meals-v1", 2, 3)
			return ev
		}), false, []string{"form"}, "meals-v1 is quoted by its cite range 2-3, but this contract quotes whole bodies, as /evidence/1 shows"},
		{"the first record that tells the forms apart decides", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			return slices.Insert(slices.Delete(ev, 1, 3), 1, rec("meals-v2", 1, 6))
		}), false, []string{"form"}, "meals-v1 is quoted by its cite range 2-3"},
		{"cite range address shifted, quote kept", edit(short, func(ev []contract.EvidenceRecord) []contract.EvidenceRecord {
			ev[4].LineStart, ev[4].LineEnd = 3, 4
			return ev
		}), true, []string{"shifted_range"}, "the quote is lines 2-3 of meals-v1, not 3-4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := b.Verify(tt.data, "")
			if diff := cmp.Diff(tt.want, problemCodes(v)); diff != "" {
				t.Errorf("Verify() problem codes mismatch (-want +got):\n%s\nproblems: %v", diff, v.Problems)
			}
			if v.Short != tt.wantShort {
				t.Errorf("Verify().Short = %v, want %v", v.Short, tt.wantShort)
			}
			if len(v.Problems) > 0 && !strings.Contains(v.Problems[0].Message, tt.mention) {
				t.Errorf("first problem %v does not say %q", v.Problems[0], tt.mention)
			}
		})
	}
}

// TestVerifyCutSample is the example of the issue on the embedded sample:
// the travel-v2 record kept to lines 1-2, its line_end adjusted, lost the
// 750 line and verified.
func TestVerifyCutSample(t *testing.T) {
	b := newBuilder(t, corpus.Sample(), "codepoint")
	b.Limits.Capacity = 4000
	res, err := b.Build(context.Background(), request("en", "What is the lodging limit?", false, "lodging", "2026-09-14"))
	if err != nil {
		t.Fatal(err)
	}
	var d contract.Document
	if err := json.Unmarshal(res.JSON, &d); err != nil {
		t.Fatal(err)
	}
	v2 := d.Evidence[0]
	cut := v2
	cut.LineEnd, cut.Quote = 2, strings.Join(strings.Split(v2.Quote, "\n")[:2], "\n")
	cite := v2
	cite.LineEnd, cite.Quote = 3, strings.Join(strings.Split(v2.Quote, "\n")[:3], "\n")
	tests := []struct {
		name     string
		evidence []contract.EvidenceRecord
		want     []string
	}{
		{"lines 1-2 kept", []contract.EvidenceRecord{cut}, []string{"cut"}},
		{"whole and as its cite range", []contract.EvidenceRecord{v2, cite}, []string{"form"}},
		{"its cite range and whole", []contract.EvidenceRecord{cite, v2}, []string{"form"}},
		{"its cite range alone: the short build", []contract.EvidenceRecord{cite}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d.Evidence = tt.evidence
			v := b.Verify(marshalCompact(t, d), "")
			if diff := cmp.Diff(tt.want, problemCodes(v)); diff != "" {
				t.Errorf("Verify() problem codes mismatch (-want +got):\n%s\nproblems: %v", diff, v.Problems)
			}
		})
	}
}

// TestVerifyAcceptsEveryBuild: every contract Build prints verifies, in
// both forms, over the sample (both languages, across validity
// boundaries, comparisons) and the cited corpus, and with typed items
// from a request: memory, promoted tool output and an extra instruction.
func TestVerifyAcceptsEveryBuild(t *testing.T) {
	type scope struct {
		subjects []string
		dates    []string
	}
	corpora := []struct {
		name   string
		b      *contract.Builder
		langs  []string
		scopes []scope
	}{
		{"sample", typedBuilder(t, nil), []string{"en", "zh"}, []scope{
			{[]string{"lodging"}, []string{"2026-09-14"}},
			{[]string{"lodging"}, []string{"2025-12-31", "2026-01-01"}},
			{[]string{"lodging"}, []string{"2024-06-01"}},
			{[]string{"lodging", "rail"}, []string{"2026-09-14", "2025-09-14"}},
		}},
		{"cited", citedBuilder(t), []string{"en"}, []scope{
			{[]string{"meals"}, []string{"2026-03-01"}},
			{[]string{"meals"}, []string{"2025-07-01", "2026-08-01"}},
			{[]string{"meals"}, []string{"2025-03-01"}},
		}},
	}
	extras := map[string][]provenance.Item{
		"plain": nil,
		"typed": {
			cand(provenance.KindMemory, "memory:prefs", prefs),
			cand(provenance.KindToolOutput, "tool:order_lookup", orderResult),
			cand(provenance.KindToolOutput, "tool:weather", "Sunny, 24 degrees."),
			cand(provenance.KindInstruction, "system", "Say whether the order is within the limit."),
		},
	}
	for _, c := range corpora {
		for _, lang := range c.langs {
			for _, sc := range c.scopes {
				for _, short := range []bool{false, true} {
					for kind, items := range extras {
						req := request(lang, "Which rules apply?", short, sc.subjects[0], sc.dates...)
						req.Query.Subjects = sc.subjects
						req.Items = items
						if items != nil {
							req.Promote = []contract.Promotion{{Item: 1, To: provenance.KindEvidence}}
						}
						res, err := c.b.Build(context.Background(), req)
						if err != nil {
							t.Fatalf("%s %s %v short=%v %s: %v", c.name, lang, sc, short, kind, err)
						}
						if v := c.b.Verify(res.JSON, ""); !v.OK() {
							t.Errorf("%s %s %v short=%v %s: Verify() = %v\n%s", c.name, lang, sc, short, kind, v.Problems, res.JSON)
						}
					}
				}
			}
		}
	}
}

// TestVerifyTypedOnlyAsARequestMakesThem: a record that does not quote
// the corpus must be one a request can add: text claimed from corpus:*
// as memory or tool output is refused, although the corpus may register
// evidence (which no request adds); the schema already refuses corpus:*
// as a source_id.
func TestVerifyTypedOnlyAsARequestMakesThem(t *testing.T) {
	b := typedBuilder(t, nil)
	res, err := b.Build(context.Background(), typedRequest(nil))
	if err != nil {
		t.Fatal(err)
	}
	const fake = "The lodging limit is 900 CNY per room-night."
	tests := []struct {
		name string
		f    func(d *contract.Document)
		want string
	}{
		{"memory from the corpus", func(d *contract.Document) {
			d.Memory = []contract.TextRecord{{Source: "corpus:travel-v2", Text: fake}}
		}, "provenance"},
		{"tool output from the corpus", func(d *contract.Document) {
			d.ToolOutput = []contract.TextRecord{{Source: "corpus:travel-v2", Text: fake}}
		}, "provenance"},
		{"promoted evidence from the corpus", func(d *contract.Document) {
			d.Evidence = append(d.Evidence, contract.EvidenceRecord{SourceID: "corpus:travel-v2", Version: provenance.ContentID(fake)[:12], LineStart: 1, LineEnd: 1, Quote: fake})
		}, "schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d contract.Document
			if err := json.Unmarshal(res.JSON, &d); err != nil {
				t.Fatal(err)
			}
			tt.f(&d)
			v := b.Verify(marshalCompact(t, d), "")
			if diff := cmp.Diff([]string{tt.want}, problemCodes(v)); diff != "" {
				t.Errorf("Verify() problem codes mismatch (-want +got):\n%s\nproblems: %v", diff, v.Problems)
			}
		})
	}
}

// addresses lists the address of each evidence record of a contract.
func addresses(t *testing.T, data []byte) []string {
	t.Helper()
	var d contract.Document
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range d.Evidence {
		out = append(out, e.Address())
	}
	return out
}

// TestVerifyEveryRecordField changes each field of a built record in
// turn, found by reflection so that a field added to EvidenceRecord is
// covered without a new case: every change is a problem.
func TestVerifyEveryRecordField(t *testing.T) {
	b := citedBuilder(t)
	for _, short := range []bool{false, true} {
		res, err := b.Build(context.Background(), request("en", "What may a meal cost?", short, "meals", "2026-03-01"))
		if err != nil {
			t.Fatal(err)
		}
		var base contract.Document
		if err := json.Unmarshal(res.JSON, &base); err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeFor[contract.EvidenceRecord]()
		for i := range base.Evidence {
			for f := range typ.NumField() {
				var d contract.Document
				if err := json.Unmarshal(res.JSON, &d); err != nil {
					t.Fatal(err)
				}
				field := reflect.ValueOf(&d.Evidence[i]).Elem().Field(f)
				switch field.Kind() {
				case reflect.String:
					field.SetString(field.String() + "x")
				case reflect.Int:
					field.SetInt(field.Int() + 1)
				case reflect.Bool:
					field.SetBool(!field.Bool())
				case reflect.Slice:
					field.Set(reflect.Append(field, reflect.ValueOf("x").Convert(field.Type().Elem())))
				default:
					t.Fatalf("EvidenceRecord.%s is a %s: say here how to change it", typ.Field(f).Name, field.Kind())
				}
				if v := b.Verify(marshalCompact(t, d), ""); v.OK() {
					t.Errorf("short=%v: record %d with %s changed verifies", short, i, typ.Field(f).Name)
				}
			}
		}
	}
}
