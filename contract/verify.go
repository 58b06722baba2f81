package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Problem is one thing Verify found wrong with a contract, or, in
// Verification.Notes, one thing it could not check. It is a diagnostic
// whose Path is a JSON pointer into the contract, e.g.
// "/evidence/1/quote" ("" for the whole document); Line and Col are not
// used. Its Code is a stable machine name: schema, template, lang,
// instruction, example, scope, unknown_source, version, applicability,
// quote, shifted_range, range, order, duplicate, selection_missing,
// selection_extra, selection_order, provenance, not_canonical, budget,
// text (invalid UTF-8 or a lone surrogate escape, see CheckText); for
// notes, not_in_corpus and extra_instruction. Its Hint, when not zero,
// names settings a front end words for its user (see Phrase).
type Problem diag.Diagnostic

// Diagnostic returns p as the diagnostic it is.
func (p *Problem) Diagnostic() *diag.Diagnostic { return (*diag.Diagnostic)(p) }

// Phrase is p's message followed by its hint, with each setting the hint
// names worded by name: the CLI passes flag names, the service request
// fields or query parameters.
func (p Problem) Phrase(name func(setting string) string) string {
	return diag.Format(diag.Pos{}, p.Message, p.Hint.Phrase(name))
}

// String formats p as "where: code: message; hint", the hint in
// front-end-neutral words.
func (p Problem) String() string { return p.Text(diag.SettingWords) }

// Text is String with the hint's settings worded by name.
func (p Problem) Text(name func(setting string) string) string {
	if p.Path == "" {
		return string(p.Code) + ": " + p.Phrase(name)
	}
	return p.Path + ": " + string(p.Code) + ": " + p.Phrase(name)
}

// ProblemJSON is a Problem as `ka2 verify --format json` and POST
// /v1/verify write it, its hint worded for the front end.
type ProblemJSON struct {
	Code    string `json:"code"`
	Where   string `json:"where"`
	Message string `json:"message"`
}

// JSON words p's hint by name and returns it in its JSON shape.
func (p Problem) JSON(name func(setting string) string) ProblemJSON {
	return ProblemJSON{Code: string(p.Code), Where: p.Path, Message: p.Phrase(name)}
}

// MarshalJSON writes p in its JSON shape, the hint in front-end-neutral
// words; a front end calls JSON with its own wording instead.
func (p Problem) MarshalJSON() ([]byte, error) { return json.Marshal(p.JSON(diag.SettingWords)) }

// ProblemsJSON is JSON on each problem; it is never nil, so an empty list
// is written as [].
func ProblemsJSON(ps []Problem, name func(setting string) string) []ProblemJSON {
	out := make([]ProblemJSON, len(ps))
	for i, p := range ps {
		out[i] = p.JSON(name)
	}
	return out
}

// Verification is what Verify found: the problems, the language it checked
// the contract in, and the budget accounting when the contract could be
// counted. Notes name the parts Verify could check only in part, such as
// promoted tool output, which has no corpus lines to compare with; they
// are not problems.
type Verification struct {
	Problems []Problem
	Notes    []Problem
	Lang     string
	Budget   *budget.Report
}

// OK reports whether no problem was found.
func (v Verification) OK() bool { return len(v.Problems) == 0 }

// CompiledSchema compiles the definition's output schema. It is compiled once per
// definition.
func (d *Definition) CompiledSchema() (*jsonschema.Schema, error) {
	d.schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Schema))
		if err != nil {
			d.schemaErr = fmt.Errorf("output_schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		const url = "ka2:output_schema.json"
		if err := c.AddResource(url, doc); err != nil {
			d.schemaErr = fmt.Errorf("output_schema: %w", err)
			return
		}
		d.schema, d.schemaErr = c.Compile(url)
	})
	return d.schema, d.schemaErr
}

// Verify checks a serialized contract against the corpus it claims to quote:
// the schema, that every quote equals the lines its address names, the
// ordering rule, no duplicate records, that every record can be registered
// under the builder's policy as the type its field holds, the canonical
// serialization, and the budget. It lists every problem, in the order of
// the contract. lang may be empty: it is then found from the instruction
// text. A trailing newline (as ka2 build prints) is ignored.
//
// Records that do not quote the corpus are checked as far as they can be,
// and each gets a note: an evidence record whose source_id is a tool:NAME
// (or memory:NAME) source is promoted output, so Verify registers its
// quote under that source and re-runs the policy's transforms to evidence,
// validators included, and checks that its version is the first 12 hex
// digits of the quote's content ID and its lines are 1 to the quote's last
// line; memory and tool_output records are registered under their sources
// through the policy. Request instructions after the template's
// instruction text are registered as instructions and noted.
func (b *Builder) Verify(data []byte, lang string) Verification {
	var v Verification
	add := func(code diag.Code, where, format string, args ...any) {
		v.Problems = append(v.Problems, Problem{Pos: diag.Pos{Path: where}, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	note := func(code diag.Code, where, format string, args ...any) {
		v.Notes = append(v.Notes, Problem{Pos: diag.Pos{Path: where}, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	data = bytes.TrimSuffix(data, []byte("\r"))

	// encoding/json would read invalid text as U+FFFD, and the contract
	// would be checked as something it is not.
	if e := jsontext.Check(data); e != nil {
		add("text", e.Pointer, "%d:%d: invalid text: %s; %s", e.Line, e.Col, e.Msg, e.Hint)
		return v
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		add("schema", "", "not a JSON document: %v", err)
		return v
	}
	sch, err := b.Definition.CompiledSchema()
	if err != nil {
		add("schema", "", "cannot compile the contract schema: %v", err)
		return v
	}
	if err := sch.Validate(inst); err != nil {
		for _, u := range schemaErrors(err) {
			add("schema", u.where, "%s", u.msg)
		}
		if m, ok := inst.(map[string]any); ok && b.Definition.field(provenance.KindScope) != nil {
			if _, has := m[b.Definition.field(provenance.KindScope).Name]; !has {
				add("scope", "/scope", "the contract has no scope (the subjects and dates asked), so its selection cannot be checked; contracts from before scope was added must be rebuilt")
			}
		}
		return v
	}
	var w Document
	if err := json.Unmarshal(data, &w); err != nil {
		add("schema", "", "%v", err)
		return v
	}

	// instructionOf splits the instruction into the template's text for a
	// language and what a request added after it.
	instructionOf := func(l string) (base, extra string, ok bool) {
		c, found := b.Definition.Content[l]
		switch {
		case !found:
			return "", "", false
		case w.Instruction == c.Instruction:
			return c.Instruction, "", true
		case strings.HasPrefix(w.Instruction, c.Instruction+"\n\n"):
			return c.Instruction, w.Instruction[len(c.Instruction)+2:], true
		}
		return "", "", false
	}
	v.Lang = lang
	if v.Lang == "" {
		for _, l := range b.Definition.Langs() {
			if _, _, ok := instructionOf(l); ok {
				v.Lang = l
			}
		}
		if v.Lang == "" {
			v.Problems = append(v.Problems, Problem{Pos: diag.Pos{Path: "/instruction"}, Code: "lang",
				Message: "the instruction matches no language of the contract definition", Hint: diag.Set("pass {lang}")})
		}
	}
	baseInstruction, extraInstruction := w.Instruction, ""
	if c, ok := b.Definition.Content[v.Lang]; ok {
		if base, extra, ok := instructionOf(v.Lang); ok {
			baseInstruction, extraInstruction = base, extra
			if extra != "" {
				note("extra_instruction", "/instruction", "the instruction has %d code points of request instructions after the %s text of template %s; verify checked only that they register as instructions under the policy",
					utf8.RuneCountInString(extra), v.Lang, b.Definition.Template)
			}
		} else {
			add("instruction", "/instruction", "the instruction differs from the %s text of template %s", v.Lang, b.Definition.Template)
		}
		if c.Example != w.Example {
			add("example", "/example", "the example differs from the %s example of template %s", v.Lang, b.Definition.Template)
		}
	}

	st := b.NewStore()
	registered := true
	refuse := func(where string, err error) {
		add("provenance", where, "%v", err)
		registered = false
	}
	reg := func(where string, c provenance.Item) (provenance.Item, bool) {
		it, err := st.Add(c)
		if err != nil {
			refuse(where, err)
			return provenance.Item{}, false
		}
		return it, true
	}
	// derive registers text from source as the type the source may
	// register, then transforms it along the policy's route to type to.
	derive := func(where, source, text string, to provenance.Kind) (provenance.Item, bool) {
		if err := provenance.CheckSource(source); err != nil {
			refuse(where, err)
			return provenance.Item{}, false
		}
		route, ok := st.Policy().Route(source, to)
		if !ok {
			add("provenance", where, "source %s cannot become %s under policy %s, directly or through its transforms", source, to, st.Policy().Name())
			registered = false
			return provenance.Item{}, false
		}
		it, ok := reg(where, provenance.NewItem(route[0], source, text, noTime))
		for _, k := range route[1:] {
			if !ok {
				break
			}
			var err error
			if it, err = st.Transform(it, k); err != nil {
				refuse(where, err)
				ok = false
			}
		}
		return it, ok
	}

	c := b.Index.Corpus()
	var items, later []provenance.Item
	if it, ok := reg("/instruction", provenance.NewItem(provenance.KindInstruction, provenance.SourceSystem, baseInstruction, noTime)); ok {
		items = append(items, it)
	}
	if it, ok := reg("/example", provenance.NewExample(w.Example, noTime)); ok {
		items = append(items, it)
	}
	var prev *corpus.Source
	// records are the corpus evidence records whose source was found.
	type record struct {
		i int
		s *corpus.Source
	}
	var records []record
	seen := map[string]int{}
	promoted := -1 // index of the first promoted evidence record
	recordProblem := false
	for i, e := range w.Evidence {
		where := fmt.Sprintf("/evidence/%d", i)
		addr := corpus.Address{SourceID: e.SourceID, Range: corpus.Range{Start: e.LineStart, End: e.LineEnd}}
		if j, dup := seen[addr.String()]; dup {
			add("duplicate", where, "%s is also record %d", addr, j)
		}
		seen[addr.String()] = i
		if strings.Contains(e.SourceID, ":") {
			if promoted < 0 {
				promoted = i
			}
			it, ok := derive(where, e.SourceID, e.Quote, provenance.KindEvidence)
			if !ok {
				continue
			}
			later = append(later, it)
			if e.Version != it.Ref.Version {
				add("version", where+"/version", "promoted output from %s must have the first 12 hex digits of its content ID, %s, as version, not %q", e.SourceID, it.Ref.Version, e.Version)
				recordProblem = true
			}
			if addr.Range != it.Ref.Lines {
				add("range", where, "promoted output from %s is cited whole, as lines %s, not %s", e.SourceID, it.Ref.Lines, addr.Range)
				recordProblem = true
			}
			if e.ValidFrom != "" || e.ValidUntil != "" || e.Unit != "" {
				add("applicability", where, "promoted output from %s has no validity or unit: a tool result declares neither, so valid_from, valid_until and unit are left out", e.SourceID)
				recordProblem = true
			}
			note("not_in_corpus", where, "%s is promoted output from %s: checked against its content ID and re-derived through policy %s (validators included), not against the corpus",
				it.Ref.Address(), e.SourceID, st.Policy().Name())
			continue
		}
		if promoted >= 0 {
			add("order", where, "corpus evidence %s must come before promoted output (record %d)", addr, promoted)
			recordProblem = true
		}
		ref := provenance.Ref{SourceID: e.SourceID, Version: e.Version, Lines: addr.Range, Unit: e.Unit}
		for _, d := range []struct {
			key, text string
			into      *corpus.Date
		}{{"valid_from", e.ValidFrom, &ref.ValidFrom}, {"valid_until", e.ValidUntil, &ref.ValidUntil}} {
			if d.text == "" {
				continue
			}
			day, err := corpus.ParseDate(d.text)
			if err != nil {
				add("applicability", where+"/"+d.key, "%v", err)
				recordProblem = true
				continue
			}
			*d.into = day
		}
		if it, ok := reg(where, provenance.NewEvidence(ref, e.Quote, noTime)); ok {
			items = append(items, it)
		}
		s, err := c.Lookup(e.SourceID, v.Lang)
		if err != nil {
			add("unknown_source", where+"/source_id", "%v", err)
			continue
		}
		records = append(records, record{i, s})
		if s.Version != e.Version {
			add("version", where+"/version", "%s has version %s in the corpus, not %s", s.ID, s.Version, e.Version)
		}
		checkApplicability(add, where, s, e)
		quote, err := s.Quote(addr.Range)
		switch {
		case err != nil:
			add("quote", where, "%s: %v", addr, err)
		case quote != e.Quote:
			if r, ok := findLines(s, e.Quote); ok {
				add("shifted_range", where, "the quote is lines %s of %s, not %s", r, s.ID, addr.Range)
			} else {
				add("quote", where+"/quote", "the quote differs from %s: %s", addr, firstDifference(quote, e.Quote))
			}
		}
		if prev != nil && selector.Compare(prev, s) > 0 {
			add("selection_order", where, "%s (valid_from %s) must come before %s (valid_from %s): order is valid_from descending, then source_id",
				s.ID, s.ValidFrom, prev.ID, prev.ValidFrom)
		}
		prev = s
	}
	// The scope: the evidence must be exactly the selection for its
	// subjects and dates in the contract's language.
	switch {
	case w.Scope != nil:
		sc, err := w.Scope.scope()
		if err != nil {
			add("scope", "/scope", "%v", err)
			registered = false
			break
		}
		if it, ok := reg("/scope", NewScope(sc, noTime)); ok {
			items = append(items, it)
		}
		if v.Lang == "" {
			break // the selection depends on the language, which is unknown
		}
		q := sc.Query(v.Lang)
		sel, err := b.Index.Select(q)
		if err != nil {
			add("scope", "/scope", "%v", err)
			break
		}
		recorded := map[*corpus.Source]bool{}
		for _, r := range records {
			recorded[r.s] = true
		}
		for _, s := range sel.Sources {
			if !recorded[s] {
				add("selection_missing", "/evidence", "%s applies to the scope on %s but the contract has no record of it: rebuild the contract",
					s.ID, dateList(selector.Decide(s, q).Dates))
			}
		}
		selected := map[*corpus.Source]bool{}
		for _, s := range sel.Sources {
			selected[s] = true
		}
		reported := map[*corpus.Source]bool{}
		for _, r := range records {
			if !selected[r.s] && !reported[r.s] {
				reported[r.s] = true
				add("selection_extra", fmt.Sprintf("/evidence/%d", r.i), "%s does not apply to the scope (%s): rebuild the contract",
					r.s.ID, selector.Decide(r.s, q).Explain())
			}
		}
	case b.Definition.field(provenance.KindScope) != nil:
		// The schema requires the scope; a definition whose schema does
		// not still cannot have its selection checked without it.
		add("scope", "/scope", "the contract has no scope, so its selection cannot be checked: rebuild it with this version of ka2")
		registered = false
	}
	if it, ok := reg("/question", provenance.NewItem(provenance.KindQuestion, provenance.SourceUser, w.Question, noTime)); ok {
		items = append(items, it)
	}
	if extraInstruction != "" {
		if it, ok := reg("/instruction", provenance.NewItem(provenance.KindInstruction, provenance.SourceSystem, extraInstruction, noTime)); ok {
			items = append(items, it)
		}
	}
	for _, f := range []struct {
		kind provenance.Kind
		list []TextRecord
	}{{provenance.KindMemory, w.Memory}, {provenance.KindToolOutput, w.ToolOutput}} {
		for i, r := range f.list {
			where := fmt.Sprintf("/%s/%d", f.kind, i)
			if it, ok := derive(where, r.Source, r.Text, f.kind); ok {
				later = append(later, it)
				note("not_in_corpus", where, "%s from %s: registered through policy %s, not checked against the corpus", f.kind, r.Source, st.Policy().Name())
			}
		}
	}
	items = append(items, later...)

	if w.Template != b.Definition.Template {
		add("template", "/template", "template is %q, want %q", w.Template, b.Definition.Template)
		return v
	}
	if !registered {
		return v
	}
	text, spans, err := assemble(b.Definition, st, items, "")
	if err != nil {
		add("schema", "", "%v", err)
		return v
	}
	if !bytes.Equal(text, data) && !recordProblem {
		add("not_canonical", "", "the contract is not in ka2's compact form (whitespace, key order or escaping differ), so its cost cannot be checked as sent")
	}
	if err := b.Limits.Validate(); err != nil {
		add("budget", "", "cannot count the contract: %v", err)
		return v
	}
	rep := budget.AccountBytes(b.Counter, text, spans, b.Limits)
	if b.Framing != nil {
		var err error
		if rep, err = b.Framing.Account(b.Counter, string(text), spans, b.Limits); err != nil {
			add("budget", "", "cannot count the contract: %v", err)
			return v
		}
	}
	v.Budget = &rep
	if !rep.Fits() {
		add("budget", "", "%v", (&budget.OverError{Report: rep}).Error())
	}
	return v
}

var noTime time.Time

// checkApplicability compares a record's validity and unit with its
// source's: a record that says it applies at other times, or in another
// unit, than the corpus says misleads however exact its quote is.
func checkApplicability(add func(code diag.Code, where, format string, args ...any), where string, s *corpus.Source, e EvidenceRecord) {
	for _, f := range []struct {
		key, got, want string
	}{
		{"valid_from", e.ValidFrom, s.ValidFrom.String()},
		{"valid_until", e.ValidUntil, s.ValidUntil.String()},
		{"unit", e.Unit, s.Unit},
	} {
		switch {
		case f.got == f.want:
		case f.want == "" && f.key == "valid_until":
			add("applicability", where+"/"+f.key, "%s is open-ended in the corpus, not valid until %s: leave valid_until out", s.ID, f.got)
		case f.want == "":
			add("applicability", where+"/"+f.key, "%s declares no unit in the corpus, not %q: leave unit out", s.ID, f.got)
		case f.got == "":
			add("applicability", where+"/"+f.key, "%s has %s %s in the corpus, and the record leaves it out", s.ID, f.key, quoteIfUnit(f.key, f.want))
		default:
			add("applicability", where+"/"+f.key, "%s has %s %s in the corpus, not %s", s.ID, f.key, quoteIfUnit(f.key, f.want), quoteIfUnit(f.key, f.got))
		}
	}
}

func quoteIfUnit(key, v string) string {
	if key == "unit" {
		return strconv.Quote(v)
	}
	return v
}

// findLines looks for the quote's lines elsewhere in the source, to tell a
// shifted range from an edited quote.
func findLines(s *corpus.Source, quote string) (corpus.Range, bool) {
	n := strings.Count(quote, "\n") + 1
	for start := 1; start+n-1 <= len(s.Lines); start++ {
		r := corpus.Range{Start: start, End: start + n - 1}
		if q, _ := s.Quote(r); q == quote {
			return r, true
		}
	}
	return corpus.Range{}, false
}

// firstDifference describes the first line where two quotes differ.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("quote line %d is %q, the source has %q", i+1, g, w)
		}
	}
	return "they differ"
}

type schemaProblem struct{ where, msg string }

// schemaErrors flattens a validation error into its leaf causes, sorted.
func schemaErrors(err error) []schemaProblem {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []schemaProblem{{"", err.Error()}}
	}
	var out []schemaProblem
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			out = append(out, schemaProblem{u.InstanceLocation, u.Error.String()})
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.BasicOutput())
	slices.SortFunc(out, func(a, b schemaProblem) int {
		return strings.Compare(a.where+"\x00"+a.msg, b.where+"\x00"+b.msg)
	})
	return slices.Compact(out)
}

// schemaCache lives in Definition; declared here with the code that uses it.
type schemaCache struct {
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
}
