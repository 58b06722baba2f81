package contract

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Trace records one build: enough to rebuild the contract byte for byte and
// to see why each source was or was not used.
type Trace struct {
	KA2Version string                    `json:"ka2_version"`
	Template   string                    `json:"template"`
	Corpus     TraceCorpus               `json:"corpus"`
	Request    TraceRequest              `json:"request"`
	Decisions  []selector.DecisionRecord `json:"decisions"`
	Conflicts  []selector.ConflictRecord `json:"conflicts"`
	// Policy names the provenance policy the build's store used.
	Policy TracePolicy `json:"policy"`
	// Items lists every item the build's store holds, in registration
	// order: those in the contract and the forms promoted items were
	// transformed from, so each derived_from can be followed back.
	Items  []TraceItem   `json:"items"`
	Budget budget.Report `json:"budget"`
	// ContractSHA256 is the hex SHA-256 of the contract bytes, without the
	// final newline; empty when an item was refused and there is no
	// contract.
	ContractSHA256 string `json:"contract_sha256"`
	// Refusal is the store's refusal that stopped the build, if any.
	Refusal *provenance.Error `json:"refusal,omitempty"`
}

// TracePolicy names a provenance policy: the file as given, or
// provenance.DefaultPolicyName, and the SHA-256 of its bytes.
type TracePolicy struct {
	Location string `json:"location"`
	SHA256   string `json:"sha256"`
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
	// Items and Promote are the request's extra typed items and
	// promotions, as given.
	Items   []RequestItem `json:"items,omitempty"`
	Promote []Promotion   `json:"promote,omitempty"`
}

// TraceItem is one item of the build's store.
type TraceItem struct {
	Kind   provenance.Kind `json:"kind"`
	Source string          `json:"source"`
	// ID is the content ID; Item the item's key, which DerivedFrom names.
	ID          string `json:"id"`
	Item        string `json:"item"`
	DerivedFrom string `json:"derived_from,omitempty"`
	Address     string `json:"address,omitempty"`
	// InContract is false for an item that was transformed into another
	// one, which the contract carries instead.
	InContract bool `json:"in_contract"`
}

// NewTrace records a build. decisions should come from Index.Explain for
// the same query; location names the corpus as the caller gave it. res may
// be the partial Result of a refused build (no JSON); the caller sets
// Refusal then.
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
		Decisions: selector.Records(decisions),
		Conflicts: selector.ConflictRecords(res.Selection.Conflicts),
		Budget:    res.Budget,
	}
	for _, d := range res.Selection.Query.Dates {
		t.Request.Dates = append(t.Request.Dates, d.String())
	}
	for _, it := range req.Items {
		t.Request.Items = append(t.Request.Items, RequestItem{Type: it.Kind, Source: it.Source, Text: it.Text})
	}
	t.Request.Promote = req.Promote
	policy := b.Policy
	if res.Store != nil {
		policy = res.Store.Policy()
	}
	if policy == nil {
		policy = provenance.DefaultPolicy()
	}
	t.Policy = TracePolicy{Location: policy.Name(), SHA256: policy.Digest()}
	inContract := map[string]bool{}
	for _, it := range res.Items {
		inContract[it.Key] = true
	}
	all := res.Items
	if res.Store != nil {
		all = res.Store.Items()
	}
	t.Items = []TraceItem{}
	for _, it := range all {
		ti := TraceItem{Kind: it.Kind, Source: it.Source, ID: it.ID, Item: it.Key, DerivedFrom: it.DerivedFrom, InContract: inContract[it.Key]}
		if it.Kind == provenance.KindEvidence {
			ti.Address = it.Ref.Address()
		}
		t.Items = append(t.Items, ti)
	}
	if res.JSON != nil {
		sum := sha256.Sum256(res.JSON)
		t.ContractSHA256 = hex.EncodeToString(sum[:])
	}
	return t
}
