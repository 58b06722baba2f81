package selector

import (
	"strings"

	"github.com/ka2/ka2/corpus"
)

// Report is one query's decisions written out for people and machines: the
// shape of `ka2 select --format json`, of GET /v1/select and of the
// decisions in a build trace.
type Report struct {
	CorpusDigest string           `json:"corpus_digest"`
	Subjects     []string         `json:"subjects"`
	Dates        []string         `json:"dates"`
	Lang         string           `json:"lang"`
	Decisions    []DecisionRecord `json:"decisions"`
	Conflicts    []ConflictRecord `json:"conflicts"`
}

// DecisionRecord is what a query decided for one source, and why.
type DecisionRecord struct {
	SourceID   string   `json:"source_id"`
	Lang       string   `json:"lang,omitempty"`
	Version    string   `json:"version"`
	Path       string   `json:"path"`
	Subjects   []string `json:"subjects"`
	ValidFrom  string   `json:"valid_from"`
	ValidUntil string   `json:"valid_until,omitempty"`
	Selected   bool     `json:"selected"`
	Reason     Reason   `json:"reason"`
	Explain    string   `json:"explain"`
}

// Interval formats the source's validity as "[FROM, UNTIL)" or "[FROM, open)".
func (d DecisionRecord) Interval() string { return interval(d.ValidFrom, d.ValidUntil) }

func interval(from, until string) string {
	if until == "" {
		until = "open"
	}
	return "[" + from + ", " + until + ")"
}

// ConflictRecord is a Conflict written out.
type ConflictRecord struct {
	Subject string   `json:"subject"`
	Lang    string   `json:"lang,omitempty"`
	Dates   []string `json:"dates"`
	Sources []string `json:"sources"`
}

// String describes the conflict in one line.
func (c ConflictRecord) String() string {
	lang := ""
	if c.Lang != "" {
		lang = " (" + c.Lang + ")"
	}
	return "subject " + c.Subject + lang + " on " + strings.Join(c.Dates, ", ") + ": " + strings.Join(c.Sources, ", ") + " all apply"
}

// NewReport decides every source of the index's corpus for q (Explain) and
// lists the conflicts among the selected ones (Select).
func (ix *Index) NewReport(q Query) (Report, error) {
	decisions, err := ix.Explain(q)
	if err != nil {
		return Report{}, err
	}
	sel, err := ix.Select(q)
	if err != nil {
		return Report{}, err
	}
	r := Report{CorpusDigest: ix.corpus.Digest, Subjects: sel.Query.Subjects, Dates: dateStrings(sel.Query.Dates),
		Lang: q.Lang, Decisions: Records(decisions), Conflicts: ConflictRecords(sel.Conflicts)}
	return r, nil
}

// Records writes out decisions, in their order.
func Records(decisions []Decision) []DecisionRecord {
	out := make([]DecisionRecord, 0, len(decisions))
	for _, d := range decisions {
		s := d.Source
		out = append(out, DecisionRecord{SourceID: s.ID, Lang: s.Lang, Version: s.Version, Path: s.Path,
			Subjects: s.Subjects, ValidFrom: s.ValidFrom.String(), ValidUntil: s.ValidUntil.String(),
			Selected: d.Selected(), Reason: d.Reason, Explain: d.Explain()})
	}
	return out
}

// ConflictRecords writes out conflicts, in their order.
func ConflictRecords(conflicts []Conflict) []ConflictRecord {
	out := make([]ConflictRecord, 0, len(conflicts))
	for _, c := range conflicts {
		out = append(out, ConflictRecord{Subject: c.Subject, Lang: c.Lang, Dates: dateStrings(c.Dates), Sources: c.Sources})
	}
	return out
}

func dateStrings(ds []corpus.Date) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}
