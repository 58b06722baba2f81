package contract

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/selector"
)

// Trace records one build: enough to rebuild the contract byte for byte and
// to see why each source was or was not used.
type Trace struct {
	KA2Version string          `json:"ka2_version"`
	Template   string          `json:"template"`
	Corpus     TraceCorpus     `json:"corpus"`
	Request    TraceRequest    `json:"request"`
	Decisions  []TraceDecision `json:"decisions"`
	Conflicts  []TraceConflict `json:"conflicts"`
	Items      []TraceItem     `json:"items"`
	Budget     budget.Report   `json:"budget"`
	// ContractSHA256 is the hex SHA-256 of the contract bytes, without the
	// final newline.
	ContractSHA256 string `json:"contract_sha256"`
}

// TraceCorpus names the corpus a build read.
type TraceCorpus struct {
	// Location is what the caller passed: a directory, or "embedded:sample".
	Location string `json:"location"`
	Digest   string `json:"digest"`
	Sources  int    `json:"sources"`
}

// TraceRequest is the request as resolved, defaults included.
type TraceRequest struct {
	Subjects        []string `json:"subjects"`
	Dates           []string `json:"dates"`
	Lang            string   `json:"lang"`
	Question        string   `json:"question"`
	Short           bool     `json:"short"`
	RequireEvidence bool     `json:"require_evidence"`
	Counter         string   `json:"counter"`
	budget.Limits
}

// TraceDecision is what the selection decided for one source.
type TraceDecision struct {
	SourceID   string `json:"source_id"`
	Lang       string `json:"lang,omitempty"`
	Version    string `json:"version"`
	Path       string `json:"path"`
	ValidFrom  string `json:"valid_from"`
	ValidUntil string `json:"valid_until,omitempty"`
	Decision   string `json:"decision"`
	Reason     string `json:"reason"`
	Explain    string `json:"explain"`
}

// TraceConflict is a set of sources that all apply on the same dates.
type TraceConflict struct {
	Subject string   `json:"subject"`
	Lang    string   `json:"lang,omitempty"`
	Dates   []string `json:"dates"`
	Sources []string `json:"sources"`
}

// TraceItem is one item that went into the contract.
type TraceItem struct {
	Kind        Kind   `json:"kind"`
	Source      string `json:"source"`
	ID          string `json:"id"`
	DerivedFrom string `json:"derived_from,omitempty"`
	Address     string `json:"address,omitempty"`
}

// NewTrace records a build. decisions should come from Index.Explain for
// the same query; location names the corpus as the caller gave it.
func NewTrace(version, location string, b *Builder, req Request, res *Result, decisions []selector.Decision) Trace {
	c := b.Index.Corpus()
	t := Trace{
		KA2Version: version,
		Template:   b.Definition.Template,
		Corpus:     TraceCorpus{Location: location, Digest: c.Digest, Sources: len(c.Sources)},
		Request: TraceRequest{
			Subjects: res.Selection.Query.Subjects, Lang: res.Lang, Question: req.Question,
			Short: req.Short, RequireEvidence: req.RequireEvidence, Counter: b.Counter.Name(), Limits: b.Limits,
		},
		Decisions: []TraceDecision{},
		Conflicts: []TraceConflict{},
		Budget:    res.Budget,
	}
	for _, d := range res.Selection.Query.Dates {
		t.Request.Dates = append(t.Request.Dates, d.String())
	}
	for _, d := range decisions {
		s := d.Source
		decision := "excluded"
		if d.Selected() {
			decision = "selected"
		}
		t.Decisions = append(t.Decisions, TraceDecision{
			SourceID: s.ID, Lang: s.Lang, Version: s.Version, Path: s.Path,
			ValidFrom: s.ValidFrom.String(), ValidUntil: s.ValidUntil.String(),
			Decision: decision, Reason: string(d.Reason), Explain: d.Explain(),
		})
	}
	for _, cf := range res.Selection.Conflicts {
		tc := TraceConflict{Subject: cf.Subject, Lang: cf.Lang, Sources: cf.Sources}
		for _, d := range cf.Dates {
			tc.Dates = append(tc.Dates, d.String())
		}
		t.Conflicts = append(t.Conflicts, tc)
	}
	for _, it := range res.Items {
		ti := TraceItem{Kind: it.Kind, Source: it.Source, ID: it.ID, DerivedFrom: it.DerivedFrom}
		if it.Kind == KindEvidence {
			ti.Address = it.Ref.Address()
		}
		t.Items = append(t.Items, ti)
	}
	sum := sha256.Sum256(res.JSON)
	t.ContractSHA256 = hex.EncodeToString(sum[:])
	return t
}
