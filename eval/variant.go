package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Status says what became of a variant.
type Status string

// The statuses of a variant.
const (
	// Sent: the variant went to the generator, once per repeat.
	Sent Status = "sent"
	// Degenerate: the variant does not differ from the base contract as
	// its condition says (no distractor to stand among, no evidence to
	// remove); it was not sent and is not a pass.
	Degenerate Status = "degenerate"
	// OverBudget: the variant does not fit the case's budget, counted as
	// ka2 build counts a contract; it was not sent.
	OverBudget Status = "over_budget"
)

// MaxTokensFrom says where a variant's max_tokens came from.
type MaxTokensFrom string

// The sources of max_tokens.
const (
	// FromOverride: Options.MaxTokens.
	FromOverride MaxTokensFrom = "override"
	// FromReserve: the case's reserve, as the case counts in a token
	// encoding (cl100k_base, o200k_base).
	FromReserve MaxTokensFrom = "reserve"
	// FromDefault: the case counts code points, so its reserve is no
	// token count; the contract definition's o200k_base reserve applies.
	FromDefault MaxTokensFrom = "default"
)

// Variant is one case's contract under one condition: how it was made,
// what eval put into it, how it was counted, and whether it was sent.
type Variant struct {
	Case      string    `json:"case"`
	Condition Condition `json:"condition"`
	Status    Status    `json:"status"`
	// Reason says why a variant was not sent.
	Reason string `json:"reason,omitempty"`
	// Distractors is how many records of other subjects the variant
	// holds.
	Distractors int `json:"distractors"`
	// Injected lists the source_id of every record eval added to the
	// case's evidence (distractors, the hostile record), in contract
	// order: records that are not evidence for the question. It is what
	// a grade of the variant must be told.
	Injected []string `json:"injected"`
	// Budget is the variant's count, as ka2 build counts a contract;
	// a degenerate variant is not counted.
	Budget Budget `json:"budget,omitzero"`
	// MaxTokens is the reply's limit sent with the variant, and From
	// where it came from.
	MaxTokens     int           `json:"max_tokens"`
	MaxTokensFrom MaxTokensFrom `json:"max_tokens_from"`
	// SHA256 is the hex digest of the contract's bytes exactly as sent
	// (compact JSON); Contract holds them, for a re-grade with ka2
	// grade. Both are set for sent variants only.
	SHA256   string          `json:"sha256,omitempty"`
	Contract json.RawMessage `json:"contract,omitempty"`
}

// Budget is a variant's count against its case's limit (W − R).
type Budget struct {
	Counter string `json:"counter"`
	Total   int    `json:"total"`
	Limit   int    `json:"limit"`
}

func budgetOf(r budget.Report) Budget {
	return Budget{Counter: r.Counter, Total: r.Total, Limit: r.Limit()}
}

// made is a variant and, when it is to be sent, its contract.
type made struct {
	Variant
	doc []byte
}

// variants makes case c's variant for each condition from its base
// build. Every variant but the base is assembled by the case's builder,
// under a definition whose template carries "+condition", and counted
// against the case's budget as a build is.
func variants(ctx context.Context, c *Case, base *contract.Result, conds []Condition, opts *Options, tokens int, from MaxTokensFrom) ([]made, error) {
	// The variants' items are held by the base build's store, so that
	// they are assembled as the build's own are (promoted tool output
	// included); the records eval adds are registered there too, as
	// corpus evidence is.
	s := base.Store
	var fixed, evidence []provenance.Item
	for _, it := range base.Items {
		if it.Kind == provenance.KindEvidence {
			evidence = append(evidence, it)
		} else {
			fixed = append(fixed, it)
		}
	}
	var distractors []provenance.Item
	if slices.ContainsFunc(conds, isPosition) {
		others, err := otherSubjects(ctx, c, evidence, opts.Distractors)
		if err != nil {
			return nil, fmt.Errorf("distractors: %w", err)
		}
		for _, d := range others {
			it, err := s.AddContext(ctx, d)
			if err != nil {
				return nil, fmt.Errorf("distractor %s: %w", d.Ref.Address(), err)
			}
			distractors = append(distractors, it)
		}
	}
	var hostile provenance.Item
	if slices.Contains(conds, Hostile) {
		var err error
		if hostile, err = s.AddContext(ctx, hostileItem(c, opts.Hostile)); err != nil {
			return nil, fmt.Errorf("the hostile record: %w", err)
		}
	}
	out := make([]made, 0, len(conds))
	for _, cond := range conds {
		m := made{Variant: Variant{Case: c.Name, Condition: cond, Status: Sent, Injected: []string{}, MaxTokens: tokens, MaxTokensFrom: from}}
		if cond == Base {
			m.Budget, m.doc = budgetOf(base.Budget), base.JSON
			out = append(out, m.sent())
			continue
		}
		items, injected, reason := change(cond, fixed, evidence, distractors, hostile)
		if isPosition(cond) {
			m.Distractors = len(distractors)
		}
		m.Injected = append(m.Injected, injected...)
		if reason != "" {
			m.Status, m.Reason = Degenerate, reason
			out = append(out, m)
			continue
		}
		vb := *c.Builder
		vb.Definition = variantDefinition(c.Builder.Definition, cond)
		res, err := vb.AssembleIn(s, items)
		var oe *budget.OverError
		switch {
		case errors.As(err, &oe):
			m.Budget = budgetOf(oe.Report)
			m.Status, m.Reason = OverBudget, fmt.Sprintf("%d of %d %s (%d over)", oe.Report.Total, oe.Report.Limit(), oe.Report.Counter, oe.Report.Shortfall())
		case err != nil:
			return nil, fmt.Errorf("%s: %w", cond, err)
		default:
			m.Budget, m.doc = budgetOf(res.Budget), res.JSON
			m = m.sent()
		}
		out = append(out, m)
	}
	return out, nil
}

// sent records the contract of a variant that goes to the generator.
func (m made) sent() made {
	sum := sha256.Sum256(m.doc)
	m.SHA256, m.Contract = hex.EncodeToString(sum[:]), json.RawMessage(m.doc)
	return m
}

// change makes the items of condition cond's variant: the base's fixed
// items and its evidence changed as cond says. It returns the source_id
// of each record it added, and a reason when the variant would not
// differ from the base as cond says (then the items are nil).
func change(cond Condition, fixed, evidence, distractors []provenance.Item, hostile provenance.Item) (items []provenance.Item, injected []string, degenerate string) {
	ev := evidence
	switch cond {
	case PositionStart, PositionMid, PositionEnd:
		switch need := map[Condition]int{PositionStart: 1, PositionMid: 2, PositionEnd: 1}[cond]; {
		case len(evidence) == 0:
			return nil, nil, "the case has no applicable evidence to place among other records"
		case len(distractors) == 0:
			return nil, nil, "no record of another subject applies on the case's dates"
		case len(distractors) < need:
			return nil, nil, fmt.Sprintf("%d distractor: the evidence needs one before and one after it to stand in the middle", len(distractors))
		}
		at := map[Condition]int{PositionStart: 0, PositionMid: len(distractors) / 2, PositionEnd: len(distractors)}[cond]
		ev = slices.Concat(distractors[:at], evidence, distractors[at:])
		for _, d := range distractors {
			injected = append(injected, d.Ref.SourceID)
		}
	case NoExample:
		fixed = slices.DeleteFunc(slices.Clone(fixed), func(it provenance.Item) bool { return it.Kind == provenance.KindExample })
	case Hostile:
		ev = slices.Concat([]provenance.Item{hostile}, evidence)
		injected = []string{hostile.Ref.SourceID}
	case Duplicate:
		if len(evidence) == 0 {
			return nil, nil, "the case has no applicable evidence to repeat"
		}
		ev = nil
		for _, e := range evidence {
			ev = append(ev, e, e)
		}
	case Missing:
		if len(evidence) == 0 {
			return nil, nil, "the case has no applicable evidence to remove"
		}
		ev = nil
	}
	return slices.Concat(fixed, ev), injected, ""
}

// hostileID is HostileSource, or, when the case's corpus has a source of
// that id, the first of HostileSource-2, -3, … it has not: the injected
// record must never share an id with the corpus's own, or grading it as
// injected would excuse that source, and citing the source would count
// as citing the hostile record.
func hostileID(c *Case) string {
	id := HostileSource
	if c.Builder == nil || c.Builder.Index == nil {
		return id
	}
	corp := c.Builder.Index.Corpus()
	for n := 2; corp.HasID(id); n++ {
		id = fmt.Sprintf("%s-%d", HostileSource, n)
	}
	return id
}

// hostileItem is the hostile record as evidence: lines 1..n of source
// hostileID, valid from the case's first date, so that it reads as
// applying.
func hostileItem(c *Case, text string) provenance.Item {
	var from corpus.Date
	if ds := c.Request.Query.Dates; len(ds) > 0 {
		from = slices.MinFunc(ds, func(a, b corpus.Date) int { return a.Compare(b) })
	}
	n := strings.Count(text, "\n") + 1
	id := hostileID(c)
	return provenance.Item{Kind: provenance.KindEvidence, Source: provenance.SchemeCorpus + ":" + id, Text: text,
		Ref: provenance.Ref{SourceID: id, Version: "v1", Lang: c.Request.Query.Lang, Lines: corpus.Range{Start: 1, End: n}, ValidFrom: from}}
}

// variantDefinition is def under another template id, def's plus
// "+condition", so that a variant is never taken for what ka2 build
// prints; for no_example, the example field is optional.
func variantDefinition(def *contract.Definition, cond Condition) *contract.Definition {
	d := &contract.Definition{Template: def.Template + "+" + string(cond), Description: def.Description, ContentFile: def.ContentFile,
		Rules: def.Rules, Budget: def.Budget, Content: def.Content}
	for _, f := range def.Fields {
		if cond == NoExample && f.ContextType == string(provenance.KindExample) {
			f.Required = false
		}
		d.Fields = append(d.Fields, f)
	}
	return d
}

// otherSubjects collects up to n evidence records of the corpus's other
// subjects on the case's dates, in its language and quoting mode, one
// per source, sorted by source_id, leaving out sources the case's own
// evidence quotes.
func otherSubjects(ctx context.Context, c *Case, own []provenance.Item, n int) ([]provenance.Item, error) {
	seen := map[string]bool{}
	for _, e := range own {
		seen[e.Ref.SourceID] = true
	}
	var out []provenance.Item
	for _, s := range c.Builder.Index.Subjects() {
		if slices.Contains(c.Request.Query.Subjects, s) {
			continue
		}
		req := contract.Request{Query: selector.Query{Subjects: []string{s}, Dates: c.Request.Query.Dates, Lang: c.Request.Query.Lang},
			Question: c.Request.Question, Short: c.Request.Short}
		res, err := c.Builder.Build(ctx, req)
		var oe *budget.OverError
		switch {
		case err == nil, errors.As(err, &oe) && res != nil: // a record is a distractor whatever its subject's contract costs
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			continue // a subject with no text in the case's language offers none
		}
		for _, it := range res.Items {
			if it.Kind == provenance.KindEvidence && !seen[it.Ref.SourceID] {
				seen[it.Ref.SourceID] = true
				out = append(out, provenance.Item{Kind: it.Kind, Source: it.Source, Text: it.Text, Ref: it.Ref})
			}
		}
	}
	slices.SortFunc(out, func(a, b provenance.Item) int { return strings.Compare(a.Ref.SourceID, b.Ref.SourceID) })
	return out[:min(n, len(out))], nil
}
