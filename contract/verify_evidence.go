package contract

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// expectedRecord is one corpus record Build writes for a selection.
type expectedRecord struct {
	src  *corpus.Source
	item provenance.Item // the candidate Build registers
	rec  EvidenceRecord  // the record as Build writes it
}

// derivation is the corpus evidence Build writes, in one form, for the
// scope's selection, or, when that is unknown, for the sources the
// contract's records name.
type derivation struct {
	short    bool
	selected bool // the sources are the scope's selection
	query    selector.Query
	list     []expectedRecord
	bySource map[*corpus.Source][]int // indexes into list
}

// recordOf is the record Build writes for an evidence item: appendEvidence
// read back, so that every field it writes, and any added later, is
// compared.
func recordOf(it provenance.Item) (EvidenceRecord, error) {
	var r EvidenceRecord
	err := json.Unmarshal(appendEvidence(nil, it), &r)
	return r, err
}

// oneForm reports whether the whole and the short form quote s the same
// way: it declares no cite ranges, or one that is its whole body.
func oneForm(s *corpus.Source) bool {
	return len(s.Cite) == 0 || (len(s.Cite) == 1 && s.Cite[0] == s.Body())
}

// contractForm reads the contract's form from its records: the first
// record that quotes its source in exactly one of the two forms (its
// whole body, or one of its cite ranges) decides; decider is its index,
// -1 when no record does, and the form is then whole.
func contractForm(records []EvidenceRecord, srcs []*corpus.Source) (short bool, decider int) {
	for i, s := range srcs {
		if s == nil {
			continue
		}
		if oneForm(s) {
			continue // both forms quote it the same way
		}
		r := corpus.Range{Start: records[i].LineStart, End: records[i].LineEnd}
		if whole, cite := r == s.Body(), slices.Contains(s.Cite, r); whole != cite {
			return cite, i
		}
	}
	return false, -1
}

// expectEvidence derives the records Build writes in the given form for
// the selection sel, or, when sel is nil (the scope's selection is
// unknown), for the distinct sources of srcs in the selection's order.
func (vf *verifier) expectEvidence(sel []*corpus.Source, q selector.Query, srcs []*corpus.Source, short bool) (*derivation, error) {
	d := &derivation{short: short, selected: sel != nil, query: q, bySource: map[*corpus.Source][]int{}}
	sources := sel
	if sel == nil {
		for _, s := range srcs {
			if s != nil && !slices.Contains(sources, s) {
				sources = append(sources, s)
			}
		}
		slices.SortStableFunc(sources, selector.Compare)
	}
	items, err := vf.b.evidenceCandidates(sources, vf.askedSubjects(), short)
	if err != nil {
		return nil, err
	}
	byRef := make(map[string]*corpus.Source, len(sources))
	for _, s := range sources {
		byRef[s.ID+"\x00"+s.Lang] = s
	}
	for _, c := range items {
		it := c.candidate()
		rec, err := recordOf(it)
		if err != nil {
			return nil, err
		}
		s := byRef[it.Ref.SourceID+"\x00"+it.Ref.Lang]
		d.bySource[s] = append(d.bySource[s], len(d.list))
		d.list = append(d.list, expectedRecord{src: s, item: it, rec: rec})
	}
	return d, nil
}

// lines is the range of expected record j.
func (d *derivation) lines(j int) corpus.Range { return d.list[j].item.Ref.Lines }

// otherForm lists the ranges of s in the form the contract does not use
// that are not also ranges of its form.
func (d *derivation) otherForm(s *corpus.Source) []corpus.Range {
	if oneForm(s) {
		return nil
	}
	if d.short {
		return []corpus.Range{s.Body()}
	}
	return s.Cite
}

// classify compares a record's lines r, of a source the derivation
// expects, with the ranges it expects of that source. It returns the
// problem code ("" when r is one of them) and the expected records the
// record stands for, so that they are not reported missing as well.
func (d *derivation) classify(s *corpus.Source, r corpus.Range) (diag.Code, []int) {
	idx := d.bySource[s]
	for _, j := range idx {
		if d.lines(j) == r {
			return "", []int{j}
		}
	}
	if slices.Contains(d.otherForm(s), r) {
		return ProblemForm, idx
	}
	var overlapping []int
	for _, j := range idx {
		if e := d.lines(j); r.Start <= e.End && e.Start <= r.End {
			overlapping = append(overlapping, j)
		}
	}
	if _, err := s.Quote(r); err != nil {
		return ProblemQuote, overlapping
	}
	for _, j := range idx {
		if e := d.lines(j); e.Start <= r.Start && r.End <= e.End {
			return ProblemCut, []int{j}
		}
	}
	return ProblemRange, overlapping
}

// evidenceState is what checkEvidence learns record by record.
type evidenceState struct {
	d        *derivation
	srcs     []*corpus.Source // each record's source, nil when not a found corpus source
	decider  int              // the record that decided the form, or -1
	accepted []bool           // by expected record: a record stands for it
	covered  map[*corpus.Source]bool
	// exact is the first record of each source that is one of its
	// expected records.
	exact map[*corpus.Source]int
	// last is the expected record the previous placed record stood for,
	// at record lastAt; -1 before the first.
	last, lastAt int
	extras       []int // records of sources the scope does not select
}

// checkEvidence checks the evidence records: promoted output through the
// policy, corpus records against the records Build writes for sel in the
// contract's form, each registered as evidence; then the expected records
// no record stands for, and the sources the scope does not select.
func (vf *verifier) checkEvidence(sel []*corpus.Source, q selector.Query) {
	c := vf.b.Index.Corpus()
	ev := vf.w.Evidence
	srcs := make([]*corpus.Source, len(ev))
	lookupErrs := make([]error, len(ev))
	for i, e := range ev {
		if !strings.Contains(e.SourceID, ":") {
			srcs[i], lookupErrs[i] = c.Lookup(e.SourceID, vf.v.Lang)
		}
	}
	short, decider := contractForm(ev, srcs)
	vf.v.Short = short
	d, err := vf.expectEvidence(sel, q, srcs, short)
	if err != nil {
		vf.add(ProblemQuote, "/evidence", "the evidence for the scope cannot be quoted: %v", err)
		return
	}
	st := &evidenceState{d: d, srcs: srcs, decider: decider, accepted: make([]bool, len(d.list)),
		covered: map[*corpus.Source]bool{}, exact: map[*corpus.Source]int{}, last: -1, lastAt: -1}
	for i, e := range ev {
		if s := srcs[i]; s != nil && d.bySource[s] != nil {
			if code, _ := d.classify(s, corpus.Range{Start: e.LineStart, End: e.LineEnd}); code == "" {
				if _, ok := st.exact[s]; !ok {
					st.exact[s] = i
				}
			}
		}
	}
	seen := map[string]int{}
	promoted := -1 // index of the first promoted evidence record
	for i, e := range ev {
		where := fmt.Sprintf("/evidence/%d", i)
		j, dup := seen[e.Address()]
		if dup {
			vf.add(ProblemDuplicate, where, "%s is also record %d", e.Address(), j)
		}
		seen[e.Address()] = i
		if srcs[i] == nil && lookupErrs[i] == nil { // a tool:NAME or memory:NAME source
			if promoted < 0 {
				promoted = i
			}
			vf.checkPromoted(where, e)
			continue
		}
		if promoted >= 0 {
			vf.add(ProblemOrder, where, "corpus evidence %s must come before promoted output (record %d)", e.Address(), promoted)
			vf.recordProblem = true
		}
		vf.registerRecord(where, e)
		if lookupErrs[i] != nil {
			vf.add(ProblemUnknownSource, where+"/source_id", "%v", lookupErrs[i])
			continue
		}
		vf.checkRecord(st, i, dup)
	}
	vf.checkMissing(st)
	reported := map[*corpus.Source]bool{}
	for _, i := range st.extras {
		if s := srcs[i]; !reported[s] {
			reported[s] = true
			vf.add(ProblemSelectionExtra, fmt.Sprintf("/evidence/%d", i), "%s does not apply to the scope (%s): rebuild the contract",
				s.ID, selector.Decide(s, d.query).Explain())
		}
	}
}

// checkPromoted checks promoted output: re-derived through the policy,
// with its content ID as version and its lines 1 to its last.
func (vf *verifier) checkPromoted(where string, e EvidenceRecord) {
	it, ok := vf.derive(where, e.SourceID, e.Quote, provenance.KindEvidence)
	if !ok {
		return
	}
	if e.Version != it.Ref.Version {
		vf.add(ProblemVersion, where+"/version", "promoted output from %s must have the first 12 hex digits of its content ID, %s, as version, not %q", e.SourceID, it.Ref.Version, e.Version)
		vf.recordProblem = true
	}
	if r := (corpus.Range{Start: e.LineStart, End: e.LineEnd}); r != it.Ref.Lines {
		vf.add(ProblemRange, where, "promoted output from %s is cited whole, as lines %s, not %s", e.SourceID, it.Ref.Lines, r)
		vf.recordProblem = true
	}
	if e.ValidFrom != "" || e.ValidUntil != "" || e.Unit != "" {
		vf.add(ProblemApplicability, where, "promoted output from %s has no validity or unit: a tool result declares neither, so valid_from, valid_until and unit are left out", e.SourceID)
		vf.recordProblem = true
	}
	vf.note(NoteNotInCorpus, where, "%s is promoted output from %s: checked against its content ID and re-derived through policy %s (validators included), not against the corpus",
		it.Ref.Address(), e.SourceID, vf.st.Policy().Name())
}

// registerRecord registers a corpus record as evidence, as it is written.
func (vf *verifier) registerRecord(where string, e EvidenceRecord) {
	ref := provenance.Ref{SourceID: e.SourceID, Version: e.Version, Lines: corpus.Range{Start: e.LineStart, End: e.LineEnd}, Unit: e.Unit,
		Role: e.Role, Serves: servesText(e.Serves)}
	for _, f := range []struct {
		key, text string
		into      *corpus.Date
	}{{"valid_from", e.ValidFrom, &ref.ValidFrom}, {"valid_until", e.ValidUntil, &ref.ValidUntil}} {
		if f.text == "" {
			continue
		}
		day, err := corpus.ParseDate(f.text)
		if err != nil {
			vf.add(ProblemApplicability, where+"/"+f.key, "%v", err)
			vf.recordProblem = true
			continue
		}
		*f.into = day
	}
	vf.register(where, provenance.NewEvidence(ref, e.Quote, noTime))
}

// checkRecord compares corpus record i, of a found source, with what
// Build writes: its lines with the ranges expected of its source, its
// place with theirs, and every field with the record Build writes for
// its address.
func (vf *verifier) checkRecord(st *evidenceState, i int, dup bool) {
	d, e, s := st.d, vf.w.Evidence[i], st.srcs[i]
	where := fmt.Sprintf("/evidence/%d", i)
	r := corpus.Range{Start: e.LineStart, End: e.LineEnd}
	idx, expected := d.bySource[s]
	if !expected {
		st.extras = append(st.extras, i)
		tmpl, err := vf.b.evidenceCandidates([]*corpus.Source{s}, vf.askedSubjects(), d.short)
		if err == nil {
			vf.compareFields(where, s, e, wantAt(tmpl[0].candidate(), s, r, e.Quote), nil)
		}
		return
	}
	skip := []string{"line_start", "line_end"}
	code, stands := d.classify(s, r)
	// A quote found at other lines that are an expected range is one
	// record with its address shifted, not a cut and an edited quote.
	if q, err := s.Quote(r); code != "" && (err != nil || q != e.Quote) {
		if r2, ok := findLines(s, e.Quote); ok {
			if c2, st2 := d.classify(s, r2); c2 == "" {
				vf.add(ProblemShiftedRange, where, "the quote is lines %s of %s, not %s", r2, s.ID, r)
				code, stands, r = "", st2, r2
				skip = append(skip, "quote")
			}
		}
	}
	if code != "" {
		vf.rangeProblem(st, where, code, s, r, stands)
	}
	for _, j := range stands {
		st.accepted[j] = true
	}
	if len(stands) > 0 || code == ProblemForm {
		st.covered[s] = true
	}
	tmpl := d.list[idx[0]].item
	if len(stands) > 0 {
		tmpl = d.list[stands[0]].item
		if !dup && code != ProblemForm {
			vf.checkPlace(st, i, stands[0])
		}
	}
	var want EvidenceRecord
	if len(stands) > 0 && d.lines(stands[0]) == r {
		want = d.list[stands[0]].rec // the record Build writes, as it is
	} else {
		want = wantAt(tmpl, s, r, e.Quote)
	}
	vf.compareFields(where, s, e, want, skip)
}

// wantAt is the record Build writes for lines r of s, from the candidate
// tmpl of the same source: the quote is the lines (the record's own quote
// when r names none, which is reported already).
func wantAt(tmpl provenance.Item, s *corpus.Source, r corpus.Range, quote string) EvidenceRecord {
	tmpl.Ref.Lines = r
	tmpl.Text = quote
	if q, err := s.Quote(r); err == nil {
		tmpl.Text = q
	}
	rec, _ := recordOf(tmpl) // read back as expectEvidence read the same writer's output
	return rec
}

// rangeProblem reports lines r of s that are not a range Build quotes.
func (vf *verifier) rangeProblem(st *evidenceState, where string, code diag.Code, s *corpus.Source, r corpus.Range, stands []int) {
	d := st.d
	switch code {
	case ProblemForm:
		if k, ok := st.exact[s]; ok {
			ke := vf.w.Evidence[k]
			vf.add(code, where, "%s is quoted %s here and %s at /evidence/%d: a contract quotes each source one way only",
				s.ID, formOf(s, r), formOf(s, corpus.Range{Start: ke.LineStart, End: ke.LineEnd}), k)
			return
		}
		// The record that decided the form quotes its source in the
		// other form than r, so it exists and is not this one.
		if k := st.decider; k >= 0 {
			ke := vf.w.Evidence[k]
			vf.add(code, where, "%s is quoted %s, but this contract quotes %s, as /evidence/%d shows (%s %s): a contract quotes every source in one form, whole bodies or cite ranges",
				s.ID, formOf(s, r), formName(d.short), k, ke.SourceID, formOf(st.srcs[k], corpus.Range{Start: ke.LineStart, End: ke.LineEnd}))
		}
	case ProblemQuote:
		_, err := s.Quote(r)
		vf.add(code, where, "%s:%s: %v", s.ID, r, err)
	case ProblemCut:
		from := d.lines(stands[0])
		what := "its cite range"
		if from == s.Body() {
			what = "its whole body"
		}
		var left []string
		if r.Start > from.Start {
			left = append(left, linesWord(corpus.Range{Start: from.Start, End: r.Start - 1}))
		}
		if r.End < from.End {
			left = append(left, linesWord(corpus.Range{Start: r.End + 1, End: from.End}))
		}
		vf.add(code, where, "lines %s of %s are cut from %s, lines %s, leaving out %s: a record quotes a whole body or exactly one cite range",
			r, s.ID, what, from, strings.Join(left, " and "))
	default: // ProblemRange
		var cites []string
		for _, j := range d.bySource[s] {
			cites = append(cites, d.lines(j).String())
		}
		vf.add(code, where, "lines %s of %s are neither its whole body (lines %s) nor one of the cite ranges this contract quotes it by (%s): a record quotes a whole body or exactly one cite range",
			r, s.ID, s.Body(), strings.Join(cites, ", "))
	}
}

// linesWord words a range as "line N" or "lines N-M".
func linesWord(r corpus.Range) string {
	if r.Start == r.End {
		return fmt.Sprintf("line %d", r.Start)
	}
	return "lines " + r.String()
}

// formOf words how lines r quote s.
func formOf(s *corpus.Source, r corpus.Range) string {
	if r == s.Body() {
		return fmt.Sprintf("whole (lines %s)", r)
	}
	return "by its cite range " + r.String()
}

func formName(short bool) string {
	if short {
		return "cite ranges"
	}
	return "whole bodies"
}

// checkPlace checks that record i, which stands for expected record j,
// comes after the record placed before it.
func (vf *verifier) checkPlace(st *evidenceState, i, j int) {
	d := st.d
	defer func() { st.last, st.lastAt = j, i }()
	if st.last < 0 || j >= st.last { // a second cut of one range is no order problem
		return
	}
	s, prev := d.list[j].src, d.list[st.last].src
	where := fmt.Sprintf("/evidence/%d", i)
	if s == prev {
		var declared []string
		for _, k := range d.bySource[s] {
			declared = append(declared, d.lines(k).String())
		}
		vf.add(ProblemCiteOrder, where, "cite range %s of %s must come before %s (/evidence/%d): cite ranges keep the order the source declares them in (%s)",
			d.lines(j), s.ID, d.lines(st.last), st.lastAt, strings.Join(declared, ", "))
		return
	}
	vf.add(ProblemSelectionOrder, where, "%s (valid_from %s) must come before %s (valid_from %s): order is valid_from descending, then source_id",
		s.ID, s.ValidFrom, prev.ID, prev.ValidFrom)
}

// checkMissing reports the expected records no record stands for: a
// source without any record, or a cite range of a source the contract
// quotes by others.
func (vf *verifier) checkMissing(st *evidenceState) {
	d := st.d
	reported := map[*corpus.Source]bool{}
	for j, x := range d.list {
		switch {
		case st.accepted[j] || reported[x.src]:
		case !st.covered[x.src]:
			reported[x.src] = true
			vf.add(ProblemSelectionMissing, "/evidence", "%s applies to the scope on %s but the contract has no record of it: rebuild the contract",
				x.src.ID, dateList(selector.Decide(x.src, d.query).Dates))
		default:
			var declared []string
			for _, k := range d.bySource[x.src] {
				declared = append(declared, d.lines(k).String())
			}
			vf.add(ProblemCiteMissing, "/evidence", "cite range %s of %s has no record: a contract that quotes a source by its cite ranges quotes every one (%s)",
				d.lines(j), x.src.ID, strings.Join(declared, ", "))
		}
	}
}

// compareFields compares every field of a record with the record Build
// writes for its address, but for the keys in skip, which were checked
// already.
func (vf *verifier) compareFields(where string, s *corpus.Source, got, want EvidenceRecord, skip []string) {
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	t := gv.Type()
	for f := range t.NumField() {
		if reflect.DeepEqual(gv.Field(f).Interface(), wv.Field(f).Interface()) {
			continue
		}
		key, _, _ := strings.Cut(t.Field(f).Tag.Get("json"), ",")
		if slices.Contains(skip, key) {
			continue
		}
		switch key {
		case "line_start", "line_end":
			// The range was compared with the expected ranges.
		case "version":
			vf.add(ProblemVersion, where+"/version", "%s has version %s in the corpus, not %s", s.ID, want.Version, got.Version)
		case "valid_from", "valid_until", "unit":
			vf.checkApplicability(where+"/"+key, s.ID, key, gv.Field(f).String(), wv.Field(f).String())
		case "quote":
			if r, ok := findLines(s, got.Quote); ok {
				vf.add(ProblemShiftedRange, where, "the quote is lines %s of %s, not %d-%d", r, s.ID, got.LineStart, got.LineEnd)
			} else {
				vf.add(ProblemQuote, where+"/quote", "the quote differs from %s: %s", got.Address(), firstDifference(want.Quote, got.Quote))
			}
		default:
			g, _ := json.Marshal(gv.Field(f).Interface())
			w, _ := json.Marshal(wv.Field(f).Interface())
			vf.add(ProblemRecord, where+"/"+key, "%s is %s, and ka2 writes %s for %s", key, g, w, want.Address())
		}
	}
}

// askedSubjects are the subjects the contract's scope asks, as the
// selector orders them (sorted, each once), which decide the serves list
// of each record build would write; none without a scope.
func (vf *verifier) askedSubjects() []string {
	if vf.w.Scope == nil {
		return nil
	}
	return slices.Compact(slices.Sorted(slices.Values(vf.w.Scope.Subjects)))
}
