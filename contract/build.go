package contract

import (
	"context"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Request is one question to build a contract for.
type Request struct {
	Query    selector.Query
	Question string
	// Short quotes each source's author-declared cite ranges instead of its
	// whole body. A source without cite ranges is still quoted whole.
	Short bool
	// RequireEvidence makes a selection with no applicable source an error
	// (ErrNoEvidence) instead of a contract with an empty evidence list.
	RequireEvidence bool
	// Items are extra typed items: candidates (see NewItem) of type
	// instruction, memory or tool_output, registered in the order given
	// after the contract's own instruction, example, selected evidence and
	// question. Extra instructions are joined to the contract's instruction.
	Items []provenance.Item
	// Promote transforms items by their index in Items, in order. Several
	// promotions of one index chain: each starts from the form the
	// previous one made (tool_output to evidence, then that evidence to
	// memory, as the default policy allows). A transform makes a new item
	// and never takes the place of an earlier one: the contract carries
	// every promoted form, each with its lineage back to the request's
	// item, which itself stays in the store. The same item promoted to the
	// same type twice is a bad request.
	Promote []Promotion
}

// Promotion asks for Items[Item] to be transformed to type To, through the
// policy's transition and its validators.
type Promotion struct {
	Item int             `json:"item"`
	To   provenance.Kind `json:"to"`
}

// Builder builds contracts from one corpus with one definition, counter
// and budget. It is safe for concurrent use.
type Builder struct {
	Definition *Definition
	Index      *selector.Index
	Counter    budget.Counter
	Limits     budget.Limits
	// Now stamps items; nil means the zero time, which keeps builds
	// reproducible. Nothing in the contract depends on it.
	Now func() time.Time
	// Policy decides which items the build's store accepts; nil means
	// provenance.DefaultPolicy().
	Policy *provenance.Policy
	// Framing, when set, counts the input as a model API carries it (see
	// render.Provider) instead of as the serialized contract plus
	// Limits.Wrapper.
	Framing Framing
	// Catalog, when set, holds the evidence records of Index's corpus
	// prepared (see NewCatalog): a build looks up the records it quotes
	// there instead of deriving their content IDs and keys again. The
	// contract, the trace and the history are the same either way.
	Catalog *Catalog
	// CorpusName is what the paths of the corpus's files are joined to in
	// a build's problems, as Corpus.Name is for load problems; "" leaves
	// them relative to the corpus root.
	CorpusName string
}

// Framing counts a serialized contract as a model API's request carries
// it, attributing every unit to a part; it replaces limits.Wrapper with
// the API's own framing.
type Framing interface {
	Account(c budget.Counter, text string, spans []budget.Span, limits budget.Limits) (budget.Report, error)
}

// Result is a built contract and everything that decided it.
type Result struct {
	// JSON is the contract: compact, without a final newline.
	JSON      []byte
	Lang      string
	Selection selector.Selection
	// Items are the items in the contract, in the order they were given to
	// the assembler.
	Items  []provenance.Item
	Budget budget.Report
	// Store holds every item of the build, including the forms promoted
	// items were transformed from, and its history.
	Store *provenance.Store
}

// ErrNoEvidence is returned when Request.RequireEvidence is set and no
// source applies.
var ErrNoEvidence = errors.New("no applicable evidence")

// ErrBadRequest reports a request that cannot be built, such as an empty
// question or a language without instruction text.
var ErrBadRequest = errors.New("bad request")

// NewStore makes an empty store under the builder's policy and clock.
func (b *Builder) NewStore() *provenance.Store {
	return provenance.NewStore(b.Policy, provenance.WithClock(b.Now))
}

// Build selects the evidence for req, registers every item in a new store
// under the builder's policy and clock (see NewStore), assembles the contract and counts it: the
// instruction and example from system, each selected quote as evidence
// from corpus:ID, the question from user, then req.Items in order, then
// req.Promote. Over budget, it returns the full Result together with a
// *budget.OverError, so callers can show the accounting; the JSON must not
// be used then. When the store refuses an item (errors.Is(err,
// provenance.ErrRefused)), it returns a Result with only Lang, Selection
// and Store set, whose history records the refusal, and the error; no
// contract is made.
//
// The build looks at ctx between its steps and inside the store's long
// checks (see provenance.Store.AddContext): when ctx is done it stops and
// returns ctx's error wrapped with the step it stopped at
// (errors.Is(err, context.Canceled) or context.DeadlineExceeded) and no
// Result.
func (b *Builder) Build(ctx context.Context, req Request) (*Result, error) {
	return b.build(ctx, nil, req)
}

// build is Build in store s, or when s is nil in a new store under b's
// policy and clock.
func (b *Builder) build(ctx context.Context, s *provenance.Store, req Request) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	lang := req.Query.Lang
	content, err := b.Definition.ContentFor(lang)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if strings.TrimSpace(req.Question) == "" {
		return nil, &diag.Diagnostic{Message: ErrBadRequest.Error() + ": the question is empty", Err: ErrBadRequest,
			Hint: diag.Set("ask it with {question}")}
	}
	if !utf8.ValidString(req.Question) {
		return nil, fmt.Errorf("%w: the question is not valid UTF-8", ErrBadRequest)
	}
	if err := checkExtras(req); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("build, before selecting: %w", err)
	}
	sel, err := b.Index.Select(req.Query)
	if err != nil {
		return nil, err
	}
	if req.RequireEvidence && len(sel.Sources) == 0 {
		return nil, fmt.Errorf("%w for subject %s on %s%s", ErrNoEvidence,
			strings.Join(sel.Query.Subjects, ", "), dateList(sel.Query.Dates), langNote(lang))
	}
	evidence, err := b.evidenceCandidates(sel.Sources, sel.Query.Subjects, req.Short)
	if err != nil {
		return nil, err
	}
	refused := func(what string, err error) (*Result, error) {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			return nil, fmt.Errorf("build, at %s: %w", what, err)
		}
		return &Result{Lang: lang, Selection: sel, Store: s}, fmt.Errorf("%s: %w", what, err)
	}
	items := make([]provenance.Item, 0, 4+len(evidence)+len(req.Items))
	// known[i] is the encoding of items[i] when a catalog holds it.
	var known []knownItem
	if b.Catalog != nil {
		known = make([]knownItem, 2+len(evidence))
	}
	var extras []provenance.Item
	add := func(c provenance.Item) error {
		it, err := s.AddContext(ctx, c)
		if err == nil {
			items = append(items, it)
		}
		return err
	}
	s, held, fixed := b.storeFor(ctx, s, content, len(evidence), req)
	if fixed {
		items = append(items, held[:]...)
		k := b.Catalog.fixedKnown(held)
		copy(known, k[:])
	}
	// The store computes the content IDs of candidates without one, so
	// the build's own items leave them out rather than compute them twice.
	if !fixed {
		if err := add(provenance.Item{Kind: provenance.KindInstruction, Source: provenance.SourceSystem, Text: content.Instruction}); err != nil {
			return refused("the instruction", err)
		}
		if err := add(provenance.Item{Kind: provenance.KindExample, Source: provenance.SourceSystem, Text: provenance.ExampleText(content.Example), Example: content.Example}); err != nil {
			return refused("the example", err)
		}
	}
	for _, c := range evidence {
		var err error
		if c.pre != nil {
			var it provenance.Item
			if it, err = s.AddPrepared(ctx, *c.pre); err == nil {
				known[len(items)] = knownAs(c.enc, c.pre.Item())
				items = append(items, it)
			}
		} else {
			err = add(*c.item)
		}
		if err != nil {
			return refused("evidence "+c.candidate().Ref.Address(), err)
		}
	}
	var madeScope string
	if b.Definition.field(provenance.KindScope) != nil {
		sc := scopeOf(req.Query)
		text := sc.Text()
		if err := add(provenance.Item{Kind: provenance.KindScope, Source: provenance.SourceUser, Text: text}); err != nil {
			return refused("the scope", err)
		}
		if sc.writesCanonically() {
			madeScope = text
		}
	}
	if err := add(provenance.Item{Kind: provenance.KindQuestion, Source: provenance.SourceUser, Text: req.Question}); err != nil {
		return refused("the question", err)
	}
	for i, c := range req.Items {
		it, err := s.AddContext(ctx, c)
		if err != nil {
			return refused(fmt.Sprintf("request items[%d]", i), err)
		}
		extras = append(extras, it)
	}
	if len(req.Promote) > 0 {
		var what string
		if extras, what, err = promote(ctx, s, extras, req.Promote); err != nil {
			if what == "" {
				return nil, err
			}
			return refused(what, err)
		}
	}
	// Counting a long contract takes time too: a build whose client is
	// gone stops before it.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("build, before counting: %w", err)
	}
	res, err := b.assembleIn(s, append(items, extras...), madeScope, known)
	if res != nil {
		res.Lang, res.Selection = lang, sel
	}
	if err != nil { // oe escapes: a build that fits does not make it
		var oe *budget.OverError
		if errors.As(err, &oe) {
			oe.Fit = b.shortFit(ctx, req, sel)
		}
	}
	return res, err
}

// storeFor returns the store a build registers in: s when given, else a
// new store that starts, when it can, layered over a template that holds
// the instruction and the example already (fixed; see fixedStore), with
// room for every registration the build makes, each of the store's lists
// allocated once: the quotes, the question, the request's items and
// promotions, the scope if the template has one, and the instruction and
// example unless the store holds them (then held are the two).
func (b *Builder) storeFor(ctx context.Context, s *provenance.Store, content Content, quotes int, req Request) (_ *provenance.Store, held [2]provenance.Item, fixed bool) {
	if s == nil {
		if s, held, fixed = b.fixedStore(ctx, content); !fixed {
			s = b.NewStore()
		}
	}
	n := quotes + 1 + len(req.Items) + len(req.Promote)
	if b.Definition.field(provenance.KindScope) != nil {
		n++
	}
	if !fixed {
		n += 2
	}
	s.Grow(n)
	return s, held, fixed
}

// promote transforms the request's items extras (as registered in s) as
// promotions asks, in order, and returns the items the contract carries:
// a transform makes a new item and never takes the place of an earlier
// form, so every promoted form is carried (see Request.Promote). A
// refusal is returned with what was refused; ctx's error without.
func promote(ctx context.Context, s *provenance.Store, extras []provenance.Item, promotions []Promotion) ([]provenance.Item, string, error) {
	promoted := make([][]provenance.Item, len(extras))
	for j, p := range promotions {
		if err := ctx.Err(); err != nil {
			return nil, "", fmt.Errorf("build, at request promote[%d]: %w", j, err)
		}
		from := extras[p.Item]
		if forms := promoted[p.Item]; len(forms) > 0 {
			from = forms[len(forms)-1]
		}
		it, err := s.Transform(from, p.To)
		if err != nil {
			return nil, fmt.Sprintf("request promote[%d] (items[%d] to %s)", j, p.Item, p.To), err
		}
		promoted[p.Item] = append(promoted[p.Item], it)
	}
	carried := make([]provenance.Item, 0, len(extras)+len(promotions))
	for i, it := range extras {
		if len(promoted[i]) == 0 {
			carried = append(carried, it)
		}
		carried = append(carried, promoted[i]...)
	}
	return carried, "", nil
}

// SettingShort names Request.Short in a budget.Fit.
const SettingShort Setting = "short"

// shortFit builds req again with the cite ranges, in a store of its own,
// when that could shorten it, and returns the fit if the short form fits:
// an over-budget error can then say what would fit instead of only what
// does not.
func (b *Builder) shortFit(ctx context.Context, req Request, sel selector.Selection) *budget.Fit {
	if req.Short || !slices.ContainsFunc(sel.Sources, func(s *corpus.Source) bool { return len(s.Cite) > 0 }) {
		return nil
	}
	req.Short = true
	res, err := b.Build(ctx, req)
	if err != nil || res == nil {
		return nil
	}
	return &budget.Fit{Setting: string(SettingShort), Total: res.Budget.Total, Limit: res.Budget.Limit()}
}

// requestKinds are the types a request may add as items.
var requestKinds = []provenance.Kind{provenance.KindInstruction, provenance.KindMemory, provenance.KindToolOutput}

// checkExtras refuses request items and promotions that cannot be built,
// as ErrBadRequest; what the policy decides is left to the store.
func checkExtras(req Request) error {
	for i, it := range req.Items {
		if !slices.Contains(requestKinds, it.Kind) {
			return fmt.Errorf("%w: items[%d] has type %q: a request may add instruction, memory or tool_output items; evidence comes from the corpus or from promoting a tool_output item", ErrBadRequest, i, it.Kind)
		}
	}
	for j, p := range req.Promote {
		if p.Item < 0 || p.Item >= len(req.Items) {
			return fmt.Errorf("%w: promote[%d] names items[%d], but the request has %s", ErrBadRequest, j, p.Item, plural.Count(len(req.Items), "item", "items"))
		}
		if !p.To.Valid() {
			_, err := provenance.ParseKind(string(p.To))
			return fmt.Errorf("%w: promote[%d].to: %w", ErrBadRequest, j, err)
		}
		if i := repeatedPromotion(req.Promote[:j], p); i >= 0 {
			return fmt.Errorf("%w: promote[%d] repeats promote[%d]: items[%d] to %s", ErrBadRequest, j, i, p.Item, p.To)
		}
	}
	return nil
}

// repeatedPromotion returns the index in earlier of a promotion of the same
// item to the same type as p, or -1.
func repeatedPromotion(earlier []Promotion, p Promotion) int {
	return slices.Index(earlier, p)
}

// Assemble serializes items and counts them against the budget. The items
// are candidates (as provenance.NewItem and NewEvidence make them),
// registered in the order given in a new store under the builder's
// policy; a refusal is returned as the *provenance.Error. Over budget, it
// returns the Result with a *budget.OverError.
func (b *Builder) Assemble(items []provenance.Item) (*Result, error) {
	return b.assembleIn(nil, items, "", nil)
}

// AssembleIn is Assemble of items that s holds already, exactly as given
// (see provenance.Store.Holds), as its Add and transforms return them:
// anything else is refused with a provenance error of code not_held. ka2
// eval assembles its variants so, from one store.
func (b *Builder) AssembleIn(s *provenance.Store, items []provenance.Item) (*Result, error) {
	return b.assembleIn(s, items, "", nil)
}

// assembleIn is Assemble with the store given (nil for a new one) and the
// text of the scope item the build made itself, if any, and what it
// knows of the items' encodings (see assemble).
// Items of a store given must be held by it exactly as given (see
// provenance.Store.Holds), as transforms make them; anything else is
// refused with a provenance error of code not_held.
func (b *Builder) assembleIn(s *provenance.Store, items []provenance.Item, madeScope string, known []knownItem) (*Result, error) {
	if s == nil {
		s = b.NewStore()
		held := make([]provenance.Item, len(items))
		for i, it := range items {
			h, err := s.Add(it)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			held[i] = h
		}
		items = held
	}
	// Account panics on limits out of range; a Builder made by hand
	// rather than through Config gets an error instead.
	if err := b.Limits.Validate(); err != nil {
		return nil, &ConfigError{SettingLimits, err}
	}
	text, spans, runes, err := assemble(b.Definition, s, items, madeScope, known)
	if err != nil {
		return nil, err
	}
	var rep budget.Report
	if b.Framing != nil {
		if rep, err = b.Framing.Account(b.Counter, string(text), spans, b.Limits); err != nil {
			return nil, err
		}
	} else {
		rep = budget.AccountCounted(b.Counter, text, spans, runes, b.Limits)
	}
	res := &Result{JSON: text, Items: items, Budget: rep, Store: s}
	if !rep.Fits() {
		return res, &budget.OverError{Report: rep}
	}
	return res, nil
}

// evidenceCandidates quotes each source: its whole body, or with short its
// cite ranges, one item per range, in the order given. Each names the
// asked subjects it serves when more than one was asked (see Serves). A
// record b.Catalog holds comes prepared; any other is a candidate without
// a content ID, which the store computes when it registers it.
func (b *Builder) evidenceCandidates(sources []*corpus.Source, asked []string, short bool) ([]evidenceCandidate, error) {
	items := make([]evidenceCandidate, 0, len(sources))
	for _, s := range sources {
		serves := servesText(Serves(s, asked))
		if short && len(s.Cite) > 0 {
			if err := shortKeeps(s, b.CorpusName); err != nil {
				return nil, err
			}
		}
		if recs, ok := b.Catalog.records(s, short); ok {
			for i := range recs {
				p := &recs[i].pre // the catalog's, shared, not to be changed
				if serves != "" {
					withServes, err := p.WithServes(serves)
					if err != nil {
						return nil, err
					}
					p = &withServes
				}
				items = append(items, evidenceCandidate{pre: p, enc: &recs[i].enc})
			}
			continue
		}
		ranges := []corpus.Range{s.Body()}
		if short && len(s.Cite) > 0 {
			ranges = s.Cite
		}
		for _, r := range ranges {
			quote, err := s.Quote(r)
			if err != nil {
				return nil, err
			}
			ref := SourceRef(s, r)
			ref.Serves = serves
			items = append(items, evidenceCandidate{item: &provenance.Item{Kind: provenance.KindEvidence, Source: provenance.SchemeCorpus + ":" + s.ID, Text: quote,
				Ref: ref}})
		}
	}
	return items, nil
}

// evidenceCandidate is one evidence record of a build: a candidate item,
// or when pre is set one prepared, with its encoding (without serves).
// Pointers only: a build's list of them is a few words a record, not a
// copy of each item.
type evidenceCandidate struct {
	item *provenance.Item
	pre  *provenance.Prepared
	enc  *encoded
}

// candidate is the record's item (with its content ID and key when it
// comes prepared).
func (c evidenceCandidate) candidate() provenance.Item {
	if c.pre != nil {
		return c.pre.Item()
	}
	return *c.item
}

// ErrShortLoses is wrapped by the error a short build returns for a
// source whose cite ranges lose its scope or the unit of an amount (see
// corpus.Source.ShortLoss).
var ErrShortLoses = errors.New("the short form loses what the body states")

// shortKeeps refuses a source whose short form would lose its scope or a
// unit: shortening never loses scope, date or unit, and a quote such as
// "Ceiling: 750." has neither. The positioned problem names the file (its
// path joined to name), the cite list and what the cited lines lack.
func shortKeeps(s *corpus.Source, name string) error {
	loss := s.ShortLoss()
	if loss == nil {
		return nil
	}
	pos, _ := s.Keys.Get("cite")
	return &diag.Diagnostic{Pos: diag.Pos{Path: path.Join(name, s.Path), Line: pos.Line, Col: pos.Col}, Code: corpus.CodeShortLosesScope, Err: ErrShortLoses,
		Message: fmt.Sprintf("the short form of %s loses what its body states: cite %s leaves out %s", s.ID, corpus.CiteList(s.Cite), loss.What()),
		Hint:    diag.Set(fmt.Sprintf("write cite: %s in its front matter, which keeps it, or build without {%s}", corpus.CiteList(loss.Fix), SettingShort))}
}

func dateList(ds []corpus.Date) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, ", ")
}

func langNote(lang string) string {
	if lang == "" {
		return ""
	}
	return " in lang " + lang
}
