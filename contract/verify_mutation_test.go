package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// TestVerifyMutations builds contracts over a generated corpus for varied
// scopes (one or two subjects, one to three dates, en and zh, whole and
// short), changes each in every one-change way below, and checks the
// rule Verify promises: a contract Build can print for the scope and
// question it carries verifies, and nothing else does. The oracle is
// Build itself: a mutation is accepted exactly when its bytes are those
// of the whole or the short build of its own scope and question.
//
// The default suite mutates a seeded sample of 25 contracts; -long makes
// it 500. Run it with -v for the tally:
//
//	go test ./contract/ -run TestVerifyMutations -long -v
func TestVerifyMutations(t *testing.T) {
	contracts := 25
	if *long {
		contracts = 500
	}
	c, err := corpus.Load(gencorpus.Varied(60))
	if err != nil {
		t.Fatal(err)
	}
	// With a catalog, as the service verifies: each verify rebuilds its
	// contract, and the corpus's records are prepared once for all.
	ix := selector.NewIndex(c)
	b := &contract.Builder{Definition: contract.Default(), Index: ix, Catalog: contract.NewCatalog(ix), Counter: budget.Codepoint,
		Limits: budget.Limits{Capacity: 40000, Reserve: 200}}
	rng := rand.New(rand.NewPCG(23, 500))
	h := &harness{t: t, b: b, c: c, oracle: map[string][][]byte{}, tally: map[string]*classTally{}, rng: rng}
	built, withEvidence := 0, 0
	for n := 0; built < contracts; n++ {
		req := randomRequest(rng, n)
		res, err := b.Build(context.Background(), req)
		if err != nil {
			t.Fatalf("build %d (%v): %v", n, req.Query, err)
		}
		built++
		if len(res.Selection.Sources) > 0 {
			withEvidence++
		}
		h.mutate(res.JSON, req.Query.Lang)
	}
	if withEvidence < contracts*3/4 {
		t.Errorf("only %d of %d contracts have evidence; the scopes do not exercise the records", withEvidence, contracts)
	}

	var classes []string
	var total, equivalent, rejected int
	for name, ct := range h.tally {
		classes = append(classes, name)
		total += ct.total
		equivalent += ct.equivalent
		rejected += ct.rejected
	}
	sort.Strings(classes)
	var tab strings.Builder
	for _, name := range classes {
		ct := h.tally[name]
		fmt.Fprintf(&tab, "  %-22s %5d mutations, %5d rejected of %5d that change the contract, %4d equal to a build (accepted)\n",
			name, ct.total, ct.rejected, ct.total-ct.equivalent, ct.equivalent)
	}
	t.Logf("%d contracts (%d with evidence), %d mutations: verify rejects %d of %d that no build prints, accepts %d of %d that equal a build\n%s",
		built, withEvidence, total, rejected, total-equivalent, h.acceptedEquivalent, equivalent, tab.String())
	if total-equivalent < 10*contracts {
		t.Errorf("only %d mutations change a contract; the classes do not apply", total-equivalent)
	}
}

// classTally counts one mutation class.
type classTally struct {
	total      int // mutations made
	equivalent int // equal to a contract Build prints for their scope and question
	rejected   int // of the others, those Verify rejects
}

type harness struct {
	t      *testing.T
	b      *contract.Builder
	c      *corpus.Corpus
	oracle map[string][][]byte // the builds of a scope and question, by their JSON
	tally  map[string]*classTally
	rng    *rand.Rand
	// acceptedEquivalent counts the mutations equal to a build that
	// Verify accepts.
	acceptedEquivalent int
	failures           int
}

// randomRequest is request n: one subject or two, one to three dates
// spread over the generated validity intervals, en or zh, whole or short.
func randomRequest(rng *rand.Rand, n int) contract.Request {
	subjects := gencorpus.VariedSubjects
	q := selector.Query{Subjects: []string{subjects[rng.IntN(len(subjects))]}, Lang: []string{"en", "zh"}[rng.IntN(2)]}
	if rng.IntN(5) == 0 {
		if s := subjects[rng.IntN(len(subjects))]; s != q.Subjects[0] {
			q.Subjects = append(q.Subjects, s)
		}
	}
	for range 1 + rng.IntN(3) {
		d, err := corpus.ParseDate(gencorpus.VariedFirst.AddDate(0, 0, rng.IntN(800)).Format("2006-01-02"))
		if err != nil {
			panic(err)
		}
		if !slices.Contains(q.Dates, d) {
			q.Dates = append(q.Dates, d)
		}
	}
	return contract.Request{Query: q, Question: fmt.Sprintf("Question %d: what applies?", n), Short: rng.IntN(2) == 0}
}

// builds returns the builds of a document's scope and question, whole
// and short, in every language of the definition: those that succeed.
func (h *harness) builds(d contract.Document) [][]byte {
	key, _ := json.Marshal([]any{d.Scope, d.Question})
	if out, ok := h.oracle[string(key)]; ok {
		return out
	}
	var out [][]byte
	var dates []corpus.Date
	ok := d.Scope != nil
	for i := 0; ok && i < len(d.Scope.Dates); i++ {
		day, err := corpus.ParseDate(d.Scope.Dates[i])
		dates, ok = append(dates, day), err == nil
	}
	for _, lang := range h.b.Definition.Langs() {
		for _, short := range []bool{false, true} {
			if !ok {
				break
			}
			q := selector.Query{Subjects: d.Scope.Subjects, Dates: dates, Lang: lang}
			if res, err := h.b.Build(context.Background(), contract.Request{Query: q, Question: d.Question, Short: short}); err == nil {
				out = append(out, res.JSON)
			}
		}
	}
	h.oracle[string(key)] = out
	return out
}

// check verifies one mutation and tallies it.
func (h *harness) check(class string, orig, data []byte, d contract.Document) {
	ct := h.tally[class]
	if ct == nil {
		ct = &classTally{}
		h.tally[class] = ct
	}
	ct.total++
	equal := slices.ContainsFunc(h.builds(d), func(b []byte) bool { return bytes.Equal(b, data) })
	v := h.b.Verify(data, "")
	switch {
	case equal:
		ct.equivalent++
		if v.OK() {
			h.acceptedEquivalent++
			return
		}
		h.fail("%s: Verify rejects a contract Build prints: %v\n%s", class, v.Problems, data)
	case v.OK():
		h.fail("%s: Verify accepts a contract no build prints for its scope\nbuilt:   %s\nchanged: %s", class, orig, data)
	default:
		ct.rejected++
	}
}

func (h *harness) fail(format string, args ...any) {
	h.t.Helper()
	if h.failures++; h.failures <= 5 {
		h.t.Errorf(format, args...)
	}
}

// positions picks where in a list of n the per-record and per-source
// classes apply: the first and one other, so that every class meets
// every place without making each contract's mutations quadratic.
func (h *harness) positions(n int) []int {
	switch n {
	case 0:
		return nil
	case 1:
		return []int{0}
	}
	return []int{0, 1 + h.rng.IntN(n-1)}
}

// mutate applies every mutation class to one built contract.
func (h *harness) mutate(orig []byte, lang string) {
	h.t.Helper()
	fresh := func() contract.Document {
		var d contract.Document
		if err := json.Unmarshal(orig, &d); err != nil {
			h.t.Fatal(err)
		}
		return d
	}
	if got := encodeCompact(h.t, fresh()); !bytes.Equal(got, orig) {
		h.t.Fatalf("re-encoding a built contract changes it:\nbuilt: %s\nagain: %s", orig, got)
	}
	emit := func(class string, f func(d *contract.Document) bool) {
		d := fresh()
		if !f(&d) {
			return
		}
		h.check(class, orig, encodeCompact(h.t, d), d)
	}
	base := fresh()
	n := len(base.Evidence)
	src := func(e contract.EvidenceRecord) *corpus.Source {
		s, err := h.c.Lookup(e.SourceID, lang)
		if err != nil {
			h.t.Fatalf("built record %s: %v", e.Address(), err)
		}
		return s
	}
	// at is record e moved to lines r of its source, quoted exactly.
	at := func(e contract.EvidenceRecord, r corpus.Range) (contract.EvidenceRecord, bool) {
		q, err := src(e).Quote(r)
		e.LineStart, e.LineEnd, e.Quote = r.Start, r.End, q
		return e, err == nil
	}
	for _, i := range h.positions(n) {
		e := base.Evidence[i]
		r := corpus.Range{Start: e.LineStart, End: e.LineEnd}
		moves := map[string]corpus.Range{
			"cut_end":      {Start: r.Start, End: r.End - 1},
			"cut_start":    {Start: r.Start + 1, End: r.End},
			"extend_end":   {Start: r.Start, End: r.End + 1},
			"extend_start": {Start: r.Start - 1, End: r.End},
			"shift_down":   {Start: r.Start + 1, End: r.End + 1},
			"shift_up":     {Start: r.Start - 1, End: r.End - 1},
		}
		for class, to := range moves {
			emit(class, func(d *contract.Document) bool {
				m, ok := at(d.Evidence[i], to)
				d.Evidence[i] = m
				return ok
			})
			emit(class+"_address_only", func(d *contract.Document) bool {
				d.Evidence[i].LineStart, d.Evidence[i].LineEnd = to.Start, to.End
				return true
			})
		}
		emit("cut_quote_only", func(d *contract.Document) bool {
			lines := strings.Split(d.Evidence[i].Quote, "\n")
			d.Evidence[i].Quote = strings.Join(lines[:len(lines)-1], "\n")
			return len(lines) > 1
		})
		emit("drop", func(d *contract.Document) bool {
			d.Evidence = slices.Delete(d.Evidence, i, i+1)
			return true
		})
		emit("duplicate", func(d *contract.Document) bool {
			d.Evidence = slices.Insert(d.Evidence, i+1, d.Evidence[i])
			return true
		})
		if i+1 < n {
			emit("swap", func(d *contract.Document) bool {
				d.Evidence[i], d.Evidence[i+1] = d.Evidence[i+1], d.Evidence[i]
				return true
			})
			emit("swap_quotes", func(d *contract.Document) bool {
				d.Evidence[i].Quote, d.Evidence[i+1].Quote = d.Evidence[i+1].Quote, d.Evidence[i].Quote
				return d.Evidence[i].Quote != d.Evidence[i+1].Quote
			})
		}
		emit("move_to_front", func(d *contract.Document) bool {
			m := d.Evidence[i]
			d.Evidence = slices.Insert(slices.Delete(d.Evidence, i, i+1), 0, m)
			return i > 0
		})
		fields := map[string]func(e *contract.EvidenceRecord) bool{
			"version":            func(e *contract.EvidenceRecord) bool { e.Version += "x"; return true },
			"version_empty":      func(e *contract.EvidenceRecord) bool { e.Version = ""; return true },
			"valid_from_day":     func(e *contract.EvidenceRecord) bool { e.ValidFrom = nextDay(e.ValidFrom); return true },
			"valid_from_dropped": func(e *contract.EvidenceRecord) bool { e.ValidFrom = ""; return true },
			"valid_until": func(e *contract.EvidenceRecord) bool {
				if e.ValidUntil == "" {
					e.ValidUntil = "2099-01-01"
				} else {
					e.ValidUntil = nextDay(e.ValidUntil)
				}
				return true
			},
			"valid_until_dropped": func(e *contract.EvidenceRecord) bool { ok := e.ValidUntil != ""; e.ValidUntil = ""; return ok },
			"unit": func(e *contract.EvidenceRecord) bool {
				if e.Unit == "" {
					e.Unit = "EUR per day"
				} else {
					e.Unit += "s"
				}
				return true
			},
			"unit_dropped":      func(e *contract.EvidenceRecord) bool { ok := e.Unit != ""; e.Unit = ""; return ok },
			"source_id_unknown": func(e *contract.EvidenceRecord) bool { e.SourceID = "var-999"; return true },
			"quote_edited": func(e *contract.EvidenceRecord) bool {
				if q := strings.Replace(e.Quote, "1", "7", 1); q != e.Quote {
					e.Quote = q
				} else {
					e.Quote += "."
				}
				return true
			},
			"quote_appended": func(e *contract.EvidenceRecord) bool { e.Quote += "\nApproved by nobody."; return true },
		}
		for class, f := range fields {
			emit(class, func(d *contract.Document) bool { return f(&d.Evidence[i]) })
		}
		// The record under the name of another source of the contract's
		// language, quoting what that source has at the same lines.
		emit("source_id_other", func(d *contract.Document) bool {
			for _, s := range h.c.Sources {
				if s.ID != e.SourceID && (s.Lang == "" || s.Lang == lang) {
					d.Evidence[i].SourceID = s.ID
					if q, err := s.Quote(r); err == nil {
						d.Evidence[i].Quote = q
					}
					return true
				}
			}
			return false
		})
	}
	h.formMutations(emit, base, lang)
	h.listMutations(emit, base, lang)
}

// formMutations change how sources are quoted: both forms of a source,
// the other form for one source, a whole body split or cite ranges
// merged.
func (h *harness) formMutations(emit func(string, func(*contract.Document) bool), base contract.Document, lang string) {
	ids := map[string][]int{} // record indexes by source
	var order []string
	for i, e := range base.Evidence {
		if _, ok := ids[e.SourceID]; !ok {
			order = append(order, e.SourceID)
		}
		ids[e.SourceID] = append(ids[e.SourceID], i)
	}
	for _, k := range h.positions(len(order)) {
		id := order[k]
		s, err := h.c.Lookup(id, lang)
		if err != nil {
			h.t.Fatal(err)
		}
		first, last := ids[id][0], ids[id][len(ids[id])-1]
		tmpl := base.Evidence[first]
		rec := func(r corpus.Range) contract.EvidenceRecord {
			q, _ := s.Quote(r)
			e := tmpl
			e.LineStart, e.LineEnd, e.Quote = r.Start, r.End, q
			return e
		}
		whole := []contract.EvidenceRecord{rec(s.Body())}
		var cites []contract.EvidenceRecord
		for _, r := range s.Cite {
			cites = append(cites, rec(r))
		}
		isWhole := tmpl.LineStart == 1 && tmpl.LineEnd == s.NumLines()
		other := cites
		if !isWhole || len(cites) == 0 {
			other = whole
		}
		emit("both_forms_after", func(d *contract.Document) bool {
			d.Evidence = slices.Insert(d.Evidence, last+1, other...)
			return true
		})
		emit("both_forms_before", func(d *contract.Document) bool {
			d.Evidence = slices.Insert(d.Evidence, first, other...)
			return true
		})
		emit("other_form", func(d *contract.Document) bool {
			d.Evidence = slices.Insert(slices.Delete(d.Evidence, first, last+1), first, other...)
			return true
		})
		if s.NumLines() >= 2 {
			emit("split", func(d *contract.Document) bool {
				half := s.NumLines() / 2
				parts := []contract.EvidenceRecord{rec(corpus.Range{Start: 1, End: half}), rec(corpus.Range{Start: half + 1, End: s.NumLines()})}
				d.Evidence = slices.Insert(slices.Delete(d.Evidence, first, last+1), first, parts...)
				return true
			})
		}
		if last > first {
			emit("merge", func(d *contract.Document) bool {
				m := rec(corpus.Range{Start: base.Evidence[first].LineStart, End: base.Evidence[last].LineEnd})
				d.Evidence = slices.Insert(slices.Delete(d.Evidence, first, last+1), first, m)
				return true
			})
			emit("cites_reversed", func(d *contract.Document) bool {
				slices.Reverse(d.Evidence[first : last+1])
				return true
			})
		}
	}
}

// listMutations change the evidence list as a whole, the scope and the
// other parts.
func (h *harness) listMutations(emit func(string, func(*contract.Document) bool), base contract.Document, lang string) {
	emit("reversed", func(d *contract.Document) bool {
		slices.Reverse(d.Evidence)
		return len(d.Evidence) > 1
	})
	emit("no_evidence", func(d *contract.Document) bool {
		ok := len(d.Evidence) > 0
		d.Evidence = []contract.EvidenceRecord{}
		return ok
	})
	// A whole record of a source the contract does not quote, at the end
	// and at the front.
	for _, s := range h.c.Sources {
		if s.Lang != "" && s.Lang != lang || slices.ContainsFunc(base.Evidence, func(e contract.EvidenceRecord) bool { return e.SourceID == s.ID }) {
			continue
		}
		q, _ := s.Quote(s.Body())
		e := contract.EvidenceRecord{SourceID: s.ID, Version: s.Version, ValidFrom: s.ValidFrom.String(), ValidUntil: s.ValidUntil.String(),
			Unit: s.Unit, LineStart: 1, LineEnd: s.NumLines(), Quote: q}
		emit("extra_source_end", func(d *contract.Document) bool { d.Evidence = append(d.Evidence, e); return true })
		emit("extra_source_front", func(d *contract.Document) bool {
			d.Evidence = slices.Insert(d.Evidence, 0, e)
			return true
		})
		break
	}
	for i := range base.Scope.Dates {
		for class, f := range map[string]func(string) string{
			"scope_date_next_day": nextDay,
			"scope_date_next_year": func(s string) string {
				y, _ := strconv.Atoi(s[:4])
				return strconv.Itoa(y+1) + s[4:]
			},
			"scope_date_31st": func(s string) string { return s[:8] + "31" },
		} {
			emit(class, func(d *contract.Document) bool {
				d.Scope.Dates[i] = f(d.Scope.Dates[i])
				return true
			})
		}
		emit("scope_date_repeated", func(d *contract.Document) bool {
			d.Scope.Dates = append(d.Scope.Dates, d.Scope.Dates[i])
			return true
		})
		emit("scope_date_dropped", func(d *contract.Document) bool {
			d.Scope.Dates = slices.Delete(d.Scope.Dates, i, i+1)
			return true
		})
	}
	emit("scope_date_added", func(d *contract.Document) bool {
		d.Scope.Dates = append(d.Scope.Dates, "2024-05-05")
		return !slices.Contains(d.Scope.Dates[:len(d.Scope.Dates)-1], "2024-05-05")
	})
	for _, other := range gencorpus.VariedSubjects {
		if slices.Contains(base.Scope.Subjects, other) {
			continue
		}
		emit("scope_subject_changed", func(d *contract.Document) bool { d.Scope.Subjects[0] = other; return true })
		emit("scope_subject_added", func(d *contract.Document) bool {
			d.Scope.Subjects = append(d.Scope.Subjects, other)
			return true
		})
	}
	emit("scope_subject_repeated", func(d *contract.Document) bool {
		d.Scope.Subjects = append(d.Scope.Subjects, d.Scope.Subjects[0])
		return true
	})
	emit("scope_subject_unknown", func(d *contract.Document) bool { d.Scope.Subjects[0] = "no-such-subject"; return true })
	emit("scope_dropped", func(d *contract.Document) bool { d.Scope = nil; return true })
	emit("instruction", func(d *contract.Document) bool { d.Instruction += " Also follow the evidence."; return true })
	emit("example", func(d *contract.Document) bool { d.Example.Answer += " (rounded)"; return true })
	// The instruction and example of the other language: a build in that
	// language when every record's source has no language.
	other := h.b.Definition.Content[map[string]string{"en": "zh", "zh": "en"}[lang]]
	emit("other_language_texts", func(d *contract.Document) bool {
		d.Instruction, d.Example = other.Instruction, other.Example
		return true
	})
	emit("template", func(d *contract.Document) bool { d.Template += "x"; return true })
	// Text claimed from the corpus that no request can add: the corpus
	// registers only evidence, and a request adds no evidence.
	emit("memory_from_corpus", func(d *contract.Document) bool {
		d.Memory = []contract.TextRecord{{Source: "corpus:var-001", Text: "A remembered note."}}
		return true
	})
	emit("evidence_from_corpus_source", func(d *contract.Document) bool {
		q := "The limit is 999."
		d.Evidence = append(d.Evidence, contract.EvidenceRecord{SourceID: "corpus:var-001", Version: provenance.ContentID(q)[:12], LineStart: 1, LineEnd: 1, Quote: q})
		return true
	})
	// Any question can be asked: a contract with another question is the
	// build of that question, and verifies.
	emit("question", func(d *contract.Document) bool { d.Question += " Please answer briefly."; return true })
	emit("question_blank", func(d *contract.Document) bool { d.Question = " \t "; return true })
}

func nextDay(s string) string {
	d, err := corpus.ParseDate(s)
	if err != nil {
		return s + "x"
	}
	return d.Time().AddDate(0, 0, 1).Format("2006-01-02")
}

// encodeCompact writes d as ka2 writes a contract: compact, no HTML
// escaping, without the final newline.
func encodeCompact(t *testing.T, d contract.Document) []byte {
	t.Helper()
	return bytes.TrimSuffix(marshalCompact(t, d), []byte("\n"))
}
