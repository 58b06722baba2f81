package golden

import (
	"encoding/json"
	"slices"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// The changes of a RecordChange.
const (
	RecordSame    = "same"
	RecordAdded   = "added"
	RecordRemoved = "removed"
	RecordChanged = "changed"
)

// RecordChange pairs one evidence record of a golden with the build's:
// the same, added (only the build has it), removed (only the golden), or
// changed, with the fields that differ.
type RecordChange struct {
	Change string                   `json:"change"`
	Golden *contract.EvidenceRecord `json:"golden,omitempty"`
	Actual *contract.EvidenceRecord `json:"actual,omitempty"`
	// Fields are the keys that differ in a changed record: "lines",
	// "version", "valid_from", "valid_until", "unit", "role", "serves",
	// "quote".
	Fields []string `json:"fields,omitempty"`
}

// RecordChanges compares the evidence of want (a golden; nil when there
// is none) and got, record by record, matched as Summarize matches them:
// by address, then by source ID. The build's records come first in its
// order, each with its golden partner, then the removed ones in the
// golden's order. Output that is not a contract has no records.
func RecordChanges(want, got []byte) []RecordChange {
	w, g := parseRecords(want), parseRecords(got)
	matchW, matchG := matchRecords(w, g)
	var out []RecordChange
	for j := range g {
		actual := &g[j]
		i := matchG[j]
		if i < 0 {
			out = append(out, RecordChange{Change: RecordAdded, Actual: actual})
			continue
		}
		gold := &w[i]
		c := RecordChange{Change: RecordSame, Golden: gold, Actual: actual}
		a, b := w[i], g[j]
		for _, f := range []struct {
			key  string
			same bool
		}{
			{"lines", a.LineStart == b.LineStart && a.LineEnd == b.LineEnd},
			{"version", a.Version == b.Version},
			{"valid_from", a.ValidFrom == b.ValidFrom},
			{"valid_until", a.ValidUntil == b.ValidUntil},
			{"unit", a.Unit == b.Unit},
			{"role", a.Role == b.Role},
			{"serves", slices.Equal(a.Serves, b.Serves)},
			{"quote", a.Quote == b.Quote},
		} {
			if !f.same {
				c.Fields = append(c.Fields, f.key)
			}
		}
		if len(c.Fields) > 0 {
			c.Change = RecordChanged
		}
		out = append(out, c)
	}
	for i := range w {
		if matchW[i] < 0 {
			out = append(out, RecordChange{Change: RecordRemoved, Golden: &w[i]})
		}
	}
	return out
}

// parseRecords reads the evidence of a contract; nil for anything else.
func parseRecords(b []byte) []contract.EvidenceRecord {
	if b == nil {
		return nil
	}
	var top struct {
		Evidence []contract.EvidenceRecord `json:"evidence"`
	}
	if json.Unmarshal(b, &top) != nil {
		return nil
	}
	return top.Evidence
}

// CaseBudget is a case's budget by part: what each kind of part costs,
// in the order the contract serializes them with the overhead last, the
// total and the limit W − R it must fit.
type CaseBudget struct {
	Counter string     `json:"counter"`
	Limit   int        `json:"limit"`
	Total   int        `json:"total"`
	Parts   []PartCost `json:"parts"`
}

// PartCost is what one kind of part costs (all evidence records together).
type PartCost struct {
	Kind provenance.Kind `json:"kind"`
	Cost int             `json:"cost"`
}

// caseBudget sums a budget report by kind; nil for no report.
func caseBudget(r *budget.Report) *CaseBudget {
	if r == nil {
		return nil
	}
	cb := &CaseBudget{Counter: r.Counter, Limit: r.Limit(), Total: r.Total, Parts: []PartCost{}}
	for _, p := range r.Parts {
		k := -1
		for i, pc := range cb.Parts {
			if pc.Kind == p.Kind {
				k = i
			}
		}
		if k < 0 {
			cb.Parts = append(cb.Parts, PartCost{Kind: p.Kind})
			k = len(cb.Parts) - 1
		}
		cb.Parts[k].Cost += p.Cost
	}
	return cb
}
