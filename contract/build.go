package contract

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
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
}

// Result is a built contract and everything that decided it.
type Result struct {
	// JSON is the contract: compact, without a final newline.
	JSON      []byte
	Lang      string
	Selection selector.Selection
	Items     []Item
	Budget    budget.Report
}

// ErrNoEvidence is returned when Request.RequireEvidence is set and no
// source applies.
var ErrNoEvidence = errors.New("no applicable evidence")

// ErrBadRequest reports a request that cannot be built, such as an empty
// question or a language without instruction text.
var ErrBadRequest = errors.New("bad request")

// Build selects the evidence for req, assembles the contract and counts it.
// Over budget, it returns the full Result together with a
// *budget.OverError, so callers can show the accounting; the JSON must not
// be used then.
func (b *Builder) Build(req Request) (*Result, error) {
	lang := req.Query.Lang
	content, err := b.Definition.ContentFor(lang)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if strings.TrimSpace(req.Question) == "" {
		return nil, fmt.Errorf("%w: the question is empty: pass --question", ErrBadRequest)
	}
	if !utf8.ValidString(req.Question) {
		return nil, fmt.Errorf("%w: the question is not valid UTF-8", ErrBadRequest)
	}
	sel, err := b.Index.Select(req.Query)
	if err != nil {
		return nil, err
	}
	if req.RequireEvidence && len(sel.Sources) == 0 {
		return nil, fmt.Errorf("%w for subject %s on %s%s", ErrNoEvidence,
			strings.Join(sel.Query.Subjects, ", "), dateList(sel.Query.Dates), langNote(lang))
	}
	now := time.Time{}
	if b.Now != nil {
		now = b.Now()
	}
	items := []Item{
		NewItem(KindInstruction, "system", content.Instruction, now),
		NewExample(content.Example, now),
	}
	evidence, err := EvidenceItems(sel.Sources, req.Short, now)
	if err != nil {
		return nil, err
	}
	items = append(items, evidence...)
	items = append(items, NewItem(KindQuestion, "user", req.Question, now))
	res, err := b.Assemble(items)
	if res != nil {
		res.Lang, res.Selection = lang, sel
	}
	return res, err
}

// Assemble serializes items and counts them against the budget. Over
// budget, it returns the Result with a *budget.OverError.
func (b *Builder) Assemble(items []Item) (*Result, error) {
	text, spans, err := Assemble(b.Definition, items)
	if err != nil {
		return nil, err
	}
	rep := budget.Account(b.Counter, string(text), spans, b.Limits)
	res := &Result{JSON: text, Items: items, Budget: rep}
	if !rep.Fits() {
		return res, &budget.OverError{Report: rep}
	}
	return res, nil
}

// EvidenceItems quotes each source: its whole body, or with short its cite
// ranges, one item per range, in the order given.
func EvidenceItems(sources []*corpus.Source, short bool, now time.Time) ([]Item, error) {
	var items []Item
	for _, s := range sources {
		ranges := []corpus.Range{s.Body()}
		if short && len(s.Cite) > 0 {
			ranges = s.Cite
		}
		for _, r := range ranges {
			it, err := NewEvidence(s, r, now)
			if err != nil {
				return nil, err
			}
			items = append(items, it)
		}
	}
	return items, nil
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
