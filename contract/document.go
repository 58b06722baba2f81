package contract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"

	"github.com/ka2/ka2/provenance"
)

// Document is a serialized contract read back, field by field: what Verify
// checks, what package grade grades an answer against, what package eval
// rewrites into variants and what a regression diff compares. The keys
// are those of the embedded ka2-context-v1 definition; a part the
// contract leaves out is the zero value.
type Document struct {
	Template    string             `json:"template"`
	Instruction string             `json:"instruction"`
	Example     provenance.Example `json:"example"`
	Memory      []TextRecord       `json:"memory,omitempty"`
	Evidence    []EvidenceRecord   `json:"evidence"`
	ToolOutput  []TextRecord       `json:"tool_output,omitempty"`
	Scope       *ScopeRecord       `json:"scope,omitempty"`
	Question    string             `json:"question"`
}

// TextRecord is a memory or tool_output record: its source and text.
type TextRecord struct {
	Source string `json:"source"`
	Text   string `json:"text"`
}

// EvidenceRecord is one evidence record of a serialized contract: the
// body lines LineStart..LineEnd of a source, quoted. Its JSON is the
// contract's: validity and unit are left out when the source has none
// (an open-ended source, no declared unit, promoted tool output).
type EvidenceRecord struct {
	SourceID   string `json:"source_id"`
	Version    string `json:"version"`
	ValidFrom  string `json:"valid_from,omitempty"`
	ValidUntil string `json:"valid_until,omitempty"`
	Unit       string `json:"unit,omitempty"`
	// Role is the source's role when it is not primary: "supplement", a
	// source that applies together with the others of its subject, so it
	// is in no conflict. "" for a primary source.
	Role string `json:"role,omitempty"`
	// Serves lists the asked subjects the record serves, in the order
	// asked, when the scope asks more than one; nil when it asks one,
	// which every record then serves. Two records conflict only when they
	// serve one subject (see ServesSubject).
	Serves    []string `json:"serves,omitempty"`
	LineStart int      `json:"line_start"`
	LineEnd   int      `json:"line_end"`
	Quote     string   `json:"quote"`
}

// IsSupplement reports whether the record's source declares role:
// supplement.
func (r EvidenceRecord) IsSupplement() bool { return r.Role == corpus.RoleSupplement }

// ServesSubject reports whether the record serves asked subject subj of
// a scope that asks subjects: every record serves the one subject of a
// single-subject scope; with more, the record names those it serves.
func (r EvidenceRecord) ServesSubject(subj string, subjects []string) bool {
	if len(subjects) < 2 {
		return len(subjects) == 0 || subjects[0] == subj
	}
	return slices.Contains(r.Serves, subj)
}

// Address is the record's citation address, "ID:START-END".
func (r EvidenceRecord) Address() string {
	return fmt.Sprintf("%s:%d-%d", r.SourceID, r.LineStart, r.LineEnd)
}

// Line returns body line n of the record's source, if the record quotes it.
func (r EvidenceRecord) Line(n int) (string, bool) {
	if n < r.LineStart || n > r.LineEnd {
		return "", false
	}
	return strings.Split(r.Quote, "\n")[n-r.LineStart], true
}

// Applies reports whether the record is in force on date d (YYYY-MM-DD):
// valid_from ≤ d < valid_until. A record without valid_from (promoted tool
// output) applies on no date: it declares no validity.
func (r EvidenceRecord) Applies(d string) bool {
	return r.ValidFrom != "" && r.ValidFrom <= d && (r.ValidUntil == "" || d < r.ValidUntil)
}

// ScopeRecord is a contract's scope as serialized: the subjects and dates
// (YYYY-MM-DD) the question asked about. ParseScope checks it.
type ScopeRecord struct {
	Subjects []string `json:"subjects"`
	Dates    []string `json:"dates"`
}
