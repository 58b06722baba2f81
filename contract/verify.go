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

// The codes of the problems Verify reports, stable machine names that
// `ka2 verify --format json`, POST /v1/verify and the ka2.verify pipeline
// stage write as "code".
const (
	// ProblemText: invalid UTF-8 or a lone surrogate escape (see CheckText).
	ProblemText diag.Code = "text"
	// ProblemSchema: not JSON, or not what the contract's JSON Schema allows.
	ProblemSchema diag.Code = "schema"
	// ProblemTemplate: another template than the definition's.
	ProblemTemplate diag.Code = "template"
	// ProblemLang: the instruction is the text of no language of the definition.
	ProblemLang diag.Code = "lang"
	// ProblemInstruction: the instruction differs from the language's text.
	ProblemInstruction diag.Code = "instruction"
	// ProblemExample: the example differs from the language's example.
	ProblemExample diag.Code = "example"
	// ProblemQuestion: the question is only white space, which Build refuses.
	ProblemQuestion diag.Code = "question"
	// ProblemScope: the scope is missing or is not a scope the corpus can select for.
	ProblemScope diag.Code = "scope"
	// ProblemUnknownSource: a record's source_id names no source of the corpus.
	ProblemUnknownSource diag.Code = "unknown_source"
	// ProblemVersion: a record's version is not its source's.
	ProblemVersion diag.Code = "version"
	// ProblemApplicability: a record's valid_from, valid_until or unit is not its source's.
	ProblemApplicability diag.Code = "applicability"
	// ProblemQuote: a quote differs from the lines its address names, or the
	// address names no lines.
	ProblemQuote diag.Code = "quote"
	// ProblemShiftedRange: the quote is found at other lines of its source.
	ProblemShiftedRange diag.Code = "shifted_range"
	// ProblemCut: a record quotes part of a whole body or of a cite range,
	// its address adjusted to the lines it kept.
	ProblemCut diag.Code = "cut"
	// ProblemRange: a record's lines are neither a whole body nor one of its
	// source's cite ranges, nor inside one; or promoted output not cited whole.
	ProblemRange diag.Code = "range"
	// ProblemForm: a source is quoted whole where the contract quotes cite
	// ranges, or by cite ranges where it quotes whole bodies.
	ProblemForm diag.Code = "form"
	// ProblemCiteOrder: a source's cite ranges are not in the order it declares them.
	ProblemCiteOrder diag.Code = "cite_order"
	// ProblemCiteMissing: a short contract leaves out a cite range of a source it quotes.
	ProblemCiteMissing diag.Code = "cite_missing"
	// ProblemRecord: a field of a record other than those above differs
	// from what the build writes for it.
	ProblemRecord diag.Code = "record"
	// ProblemOrder: corpus evidence after promoted output.
	ProblemOrder diag.Code = "order"
	// ProblemDuplicate: two records with one address.
	ProblemDuplicate diag.Code = "duplicate"
	// ProblemSelectionMissing: a source applies to the scope and has no record.
	ProblemSelectionMissing diag.Code = "selection_missing"
	// ProblemSelectionExtra: a record of a source that does not apply to the scope.
	ProblemSelectionExtra diag.Code = "selection_extra"
	// ProblemSelectionOrder: sources out of the selection's order.
	ProblemSelectionOrder diag.Code = "selection_order"
	// ProblemProvenance: the provenance policy refuses a part as the type its field holds.
	ProblemProvenance diag.Code = "provenance"
	// ProblemNotCanonical: not in ka2's compact form.
	ProblemNotCanonical diag.Code = "not_canonical"
	// ProblemBudget: over budget, or the budget cannot be counted.
	ProblemBudget diag.Code = "budget"

	// NoteNotInCorpus notes a record checked as far as it can be without
	// corpus lines: promoted output, memory, tool output.
	NoteNotInCorpus diag.Code = "not_in_corpus"
	// NoteExtraInstruction notes request instructions after the template's.
	NoteExtraInstruction diag.Code = "extra_instruction"
)

// Problem is one thing Verify found wrong with a contract, or, in
// Verification.Notes, one thing it could not check. It is a diagnostic
// whose Path is a JSON pointer into the contract, e.g.
// "/evidence/1/quote" ("" for the whole document); Line and Col are not
// used. Its Code is one of the Problem and Note constants. Its Hint, when
// not zero, names settings a front end words for its user (see Phrase).
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
// /v1/verify write it, its hint worded for the front end: the one shape of
// a positioned problem (diag.Wire), its path the JSON pointer, line and
// column 0; a problem's severity is error, a note's info.
type ProblemJSON diag.Wire

// JSON words p's hint by name and returns it in its JSON shape.
func (p Problem) JSON(name func(setting string) string) ProblemJSON {
	return ProblemJSON(p.Diagnostic().Wire(name))
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
// the contract in, whether it read the contract as short (quoting cite
// ranges), and the budget accounting when the contract could be counted.
// Notes name the parts Verify could check only in part, such as promoted
// tool output, which has no corpus lines to compare with; they are not
// problems.
type Verification struct {
	Problems []Problem
	Notes    []Problem
	Lang     string
	// Short is true when the contract's corpus records were compared with
	// the short build (Request.Short), false for the whole one.
	Short  bool
	Budget *budget.Report
}

// OK reports whether no problem was found.
func (v Verification) OK() bool { return len(v.Problems) == 0 }

// Unconfirmed lists the problems that mean the corpus does not confirm
// the contract: every problem but the budget's, which depends on the
// counter and limits the contract was built under, and not_canonical,
// which is about the bytes (a client that re-encodes the contract, with
// other white space or key order, sends the same records). A grader
// grades an answer only against a contract with none.
func (v Verification) Unconfirmed() []Problem {
	var out []Problem
	for _, p := range v.Problems {
		if p.Code != ProblemBudget && p.Code != ProblemNotCanonical {
			out = append(out, p)
		}
	}
	return out
}

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

// Verify checks a serialized contract against the corpus it claims to
// quote. It lists every problem; the contract is OK when there is none.
// lang may be empty: it is then found from the instruction text. A
// trailing newline (as ka2 build prints) is ignored.
//
// The contract must be one Build can make: the schema; the template's
// instruction and example in lang; a scope the corpus can select for;
// corpus evidence that is, record for record, what Build writes for that
// scope in lang, with every field of every record compared; every part
// registered under the builder's policy as the type its field holds; the
// canonical serialization; and the budget. The corpus evidence is derived
// from the scope's selection in one of Build's two forms, whole bodies or
// short (Request.Short: each source's cite ranges, in their declared
// order, or its whole body when it declares none); the form is the one
// of the first record that quotes a source in exactly one of the two
// forms (whole when there is none). A record that is neither a whole body
// nor exactly one cite range, a source quoted in the other form, a cite
// range out of order or left out, and a source missing, extra or out of
// order are each a problem of its own code (see the Problem constants).
// Without a scope, the evidence is compared with the same form of the
// sources the records name.
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
	data = bytes.TrimSuffix(data, []byte("\n"))
	data = bytes.TrimSuffix(data, []byte("\r"))
	vf := &verifier{b: b, registered: true}
	if !vf.decode(data) {
		return vf.v
	}
	vf.checkTexts(lang)
	scope, sel, q := vf.checkScope()
	vf.st = b.NewStore()
	vf.register("/instruction", provenance.NewItem(provenance.KindInstruction, provenance.SourceSystem, vf.baseInstruction, noTime))
	vf.register("/example", provenance.NewExample(vf.w.Example, noTime))
	vf.checkEvidence(sel, q)
	vf.registerRest(scope)
	if vf.w.Template != b.Definition.Template {
		vf.add(ProblemTemplate, "/template", "template is %q, want %q", vf.w.Template, b.Definition.Template)
		return vf.v
	}
	if vf.registered {
		vf.checkBudget(data)
	}
	return vf.v
}

// verifier holds one Verify's state between its phases.
type verifier struct {
	b *Builder
	v Verification
	w Document
	// baseInstruction is the template's instruction text, extraInstruction
	// what a request added after it.
	baseInstruction, extraInstruction string

	st *provenance.Store
	// items are the parts to assemble in the order Build registers them;
	// later are those registered after the question (promoted output,
	// memory, tool output).
	items, later []provenance.Item
	// registered is false when a part could not be registered, so the
	// contract cannot be assembled again and counted.
	registered bool
	// recordProblem is set by problems that make the assembled text differ
	// from the contract, so that not_canonical is not reported for them.
	recordProblem bool
}

func (vf *verifier) add(code diag.Code, where, format string, args ...any) {
	vf.v.Problems = append(vf.v.Problems, Problem{Pos: diag.Pos{Path: where}, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (vf *verifier) note(code diag.Code, where, format string, args ...any) {
	vf.v.Notes = append(vf.v.Notes, Problem{Pos: diag.Pos{Path: where}, Code: code, Severity: diag.SeverityInfo, Message: fmt.Sprintf(format, args...)})
}

// decode checks the text and the schema and reads the contract into
// vf.w; it reports false when there is nothing further to check.
func (vf *verifier) decode(data []byte) bool {
	// encoding/json would read invalid text as U+FFFD, and the contract
	// would be checked as something it is not.
	if e := jsontext.Check(data); e != nil {
		vf.add(ProblemText, e.Pointer, "%d:%d: invalid text: %s; %s", e.Line, e.Col, e.Msg, e.Hint)
		return false
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		vf.add(ProblemSchema, "", "not a JSON document: %v", err)
		return false
	}
	def := vf.b.Definition
	sch, err := def.CompiledSchema()
	if err != nil {
		vf.add(ProblemSchema, "", "cannot compile the contract schema: %v", err)
		return false
	}
	if err := sch.Validate(inst); err != nil {
		for _, u := range schemaErrors(err) {
			vf.add(ProblemSchema, u.where, "%s", u.msg)
		}
		if m, ok := inst.(map[string]any); ok && def.field(provenance.KindScope) != nil {
			if _, has := m[def.field(provenance.KindScope).Name]; !has {
				vf.add(ProblemScope, "/scope", "the contract has no scope (the subjects and dates asked), so its selection cannot be checked; contracts from before scope was added must be rebuilt")
			}
		}
		return false
	}
	if err := json.Unmarshal(data, &vf.w); err != nil {
		vf.add(ProblemSchema, "", "%v", err)
		return false
	}
	return true
}

// checkTexts finds the language (unless given) and compares the
// instruction and example with the template's texts in it.
func (vf *verifier) checkTexts(lang string) {
	def, w := vf.b.Definition, &vf.w
	// instructionOf splits the instruction into the template's text for a
	// language and what a request added after it.
	instructionOf := func(l string) (base, extra string, ok bool) {
		c, found := def.Content[l]
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
	vf.v.Lang = lang
	if vf.v.Lang == "" {
		for _, l := range def.Langs() {
			if _, _, ok := instructionOf(l); ok {
				vf.v.Lang = l
			}
		}
		if vf.v.Lang == "" {
			vf.v.Problems = append(vf.v.Problems, Problem{Pos: diag.Pos{Path: "/instruction"}, Code: ProblemLang,
				Message: "the instruction matches no language of the contract definition", Hint: diag.Set("pass {lang}")})
		}
	}
	if strings.TrimSpace(w.Question) == "" {
		vf.add(ProblemQuestion, "/question", "the question is only white space, which ka2 build refuses as empty")
	}
	vf.baseInstruction = w.Instruction
	c, ok := def.Content[vf.v.Lang]
	if !ok {
		return
	}
	if base, extra, ok := instructionOf(vf.v.Lang); ok {
		vf.baseInstruction, vf.extraInstruction = base, extra
		if extra != "" {
			vf.note(NoteExtraInstruction, "/instruction", "the instruction has %d code points of request instructions after the %s text of template %s; verify checked only that they register as instructions under the policy",
				utf8.RuneCountInString(extra), vf.v.Lang, def.Template)
		}
	} else {
		vf.add(ProblemInstruction, "/instruction", "the instruction differs from the %s text of template %s", vf.v.Lang, def.Template)
	}
	if c.Example != w.Example {
		vf.add(ProblemExample, "/example", "the example differs from the %s example of template %s", vf.v.Lang, def.Template)
	}
}

// checkScope reads the contract's scope and selects for it in the
// contract's language. The scope is nil when the contract has none or it
// is not a scope; the selection is nil when it cannot be made (no scope,
// no language, a subject the corpus does not have), and q is its query.
func (vf *verifier) checkScope() (_ *Scope, sel []*corpus.Source, q selector.Query) {
	if vf.w.Scope == nil {
		if vf.b.Definition.field(provenance.KindScope) != nil {
			// The schema requires the scope; a definition whose schema
			// does not still cannot have its selection checked without it.
			vf.add(ProblemScope, "/scope", "the contract has no scope, so its selection cannot be checked: rebuild it with this version of ka2")
			vf.registered = false
		}
		return nil, nil, q
	}
	sc, err := vf.w.Scope.scope()
	if err != nil {
		vf.add(ProblemScope, "/scope", "%v", err)
		vf.registered = false
		return nil, nil, q
	}
	if vf.v.Lang == "" {
		return &sc, nil, q // the selection depends on the language, which is unknown
	}
	q = sc.Query(vf.v.Lang)
	selection, err := vf.b.Index.Select(q)
	if err != nil {
		vf.add(ProblemScope, "/scope", "%v", err)
		return &sc, nil, q
	}
	if selection.Sources == nil {
		return &sc, []*corpus.Source{}, q // selected, and nothing applies
	}
	return &sc, selection.Sources, q
}

// register adds candidate c to the store, reporting a refusal at where.
func (vf *verifier) register(where string, c provenance.Item) (provenance.Item, bool) {
	it, err := vf.st.Add(c)
	if err != nil {
		vf.refuse(where, err)
		return provenance.Item{}, false
	}
	vf.items = append(vf.items, it)
	return it, true
}

func (vf *verifier) refuse(where string, err error) {
	vf.add(ProblemProvenance, where, "%v", err)
	vf.registered = false
}

// derive registers text from source as the type the source may register,
// then transforms it along the policy's route to type to, and adds the
// result to vf.later.
func (vf *verifier) derive(where, source, text string, to provenance.Kind) (provenance.Item, bool) {
	if err := provenance.CheckSource(source); err != nil {
		vf.refuse(where, err)
		return provenance.Item{}, false
	}
	route, ok := requestRoute(vf.st.Policy(), source, to)
	if !ok {
		vf.add(ProblemProvenance, where, "source %s cannot become %s under policy %s as a request item (%s) or through its transforms", source, to, vf.st.Policy().Name(), kindList(requestKinds))
		vf.registered = false
		return provenance.Item{}, false
	}
	it, err := vf.st.Add(provenance.NewItem(route[0], source, text, noTime))
	for _, k := range route[1:] {
		if err != nil {
			break
		}
		it, err = vf.st.Transform(it, k)
	}
	if err != nil {
		vf.refuse(where, err)
		return provenance.Item{}, false
	}
	vf.later = append(vf.later, it)
	return it, true
}

// requestRoute is the shortest chain of types by which Build can make
// content from source into type to: a type a request may add (see
// requestKinds) that the source may register, then the policy's
// transitions. Policy.Route may start from any type the source
// registers, such as evidence from corpus:*, which no request adds.
func requestRoute(p *provenance.Policy, source string, to provenance.Kind) ([]provenance.Kind, bool) {
	prev := map[provenance.Kind]provenance.Kind{}
	var queue []provenance.Kind
	for _, k := range provenance.Kinds() {
		if slices.Contains(requestKinds, k) && p.Allows(source, k) {
			prev[k] = ""
			queue = append(queue, k)
		}
	}
	transitions := p.Transitions()
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if k == to {
			route := []provenance.Kind{k}
			for prev[route[0]] != "" {
				route = slices.Insert(route, 0, prev[route[0]])
			}
			return route, true
		}
		for _, n := range provenance.Kinds() {
			if _, seen := prev[n]; !seen && slices.ContainsFunc(transitions, func(t provenance.Transition) bool { return t.From == k && t.To == n }) {
				prev[n] = k
				queue = append(queue, n)
			}
		}
	}
	return nil, false
}

func kindList(ks []provenance.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// registerRest registers the scope, the question, request instructions,
// memory and tool output, after the evidence, as Build does.
func (vf *verifier) registerRest(sc *Scope) {
	if sc != nil {
		vf.register("/scope", NewScope(*sc, noTime))
	}
	vf.register("/question", provenance.NewItem(provenance.KindQuestion, provenance.SourceUser, vf.w.Question, noTime))
	if vf.extraInstruction != "" {
		vf.register("/instruction", provenance.NewItem(provenance.KindInstruction, provenance.SourceSystem, vf.extraInstruction, noTime))
	}
	for _, f := range []struct {
		kind provenance.Kind
		list []TextRecord
	}{{provenance.KindMemory, vf.w.Memory}, {provenance.KindToolOutput, vf.w.ToolOutput}} {
		for i, r := range f.list {
			where := fmt.Sprintf("/%s/%d", f.kind, i)
			if _, ok := vf.derive(where, r.Source, r.Text, f.kind); ok {
				vf.note(NoteNotInCorpus, where, "%s from %s: registered through policy %s, not checked against the corpus", f.kind, r.Source, vf.st.Policy().Name())
			}
		}
	}
}

// checkBudget assembles the registered parts again, checks that they make
// the contract as sent, and counts them.
func (vf *verifier) checkBudget(data []byte) {
	b := vf.b
	text, spans, _, err := assemble(b.Definition, vf.st, append(vf.items, vf.later...), "", nil)
	if err != nil {
		vf.add(ProblemSchema, "", "%v", err)
		return
	}
	if !bytes.Equal(text, data) && !vf.recordProblem {
		vf.add(ProblemNotCanonical, "", "the contract is not in ka2's compact form (whitespace, key order or escaping differ), so its cost cannot be checked as sent")
	}
	if err := b.Limits.Validate(); err != nil {
		vf.add(ProblemBudget, "", "cannot count the contract: %v", err)
		return
	}
	rep := budget.AccountBytes(b.Counter, text, spans, b.Limits)
	if b.Framing != nil {
		if rep, err = b.Framing.Account(b.Counter, string(text), spans, b.Limits); err != nil {
			vf.add(ProblemBudget, "", "cannot count the contract: %v", err)
			return
		}
	}
	vf.v.Budget = &rep
	if !rep.Fits() {
		vf.add(ProblemBudget, "", "%v", (&budget.OverError{Report: rep}).Error())
	}
}

var noTime time.Time

// checkApplicability words a difference in a record's validity or unit
// from its source's: a record that says it applies at other times, or in
// another unit, than the corpus says misleads however exact its quote is.
func (vf *verifier) checkApplicability(where, id, key, got, want string) {
	switch {
	case want == "" && key == "valid_until":
		vf.add(ProblemApplicability, where, "%s is open-ended in the corpus, not valid until %s: leave valid_until out", id, got)
	case want == "":
		vf.add(ProblemApplicability, where, "%s declares no unit in the corpus, not %q: leave unit out", id, got)
	case got == "":
		vf.add(ProblemApplicability, where, "%s has %s %s in the corpus, and the record leaves it out", id, key, quoteIfUnit(key, want))
	default:
		vf.add(ProblemApplicability, where, "%s has %s %s in the corpus, not %s", id, key, quoteIfUnit(key, want), quoteIfUnit(key, got))
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
	for start := 1; start+n-1 <= s.NumLines(); start++ {
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
