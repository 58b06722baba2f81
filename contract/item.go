package contract

import (
	"time"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// Kind is the context type of an item (see provenance.Kind).
type Kind = provenance.Kind

// The context types.
const (
	KindInstruction = provenance.KindInstruction
	KindExample     = provenance.KindExample
	KindEvidence    = provenance.KindEvidence
	KindQuestion    = provenance.KindQuestion
	KindMemory      = provenance.KindMemory
	KindToolOutput  = provenance.KindToolOutput
	KindScope       = provenance.KindScope
)

// Item is one typed piece of context (see provenance.Item). Only items a
// provenance.Store holds are assembled.
type Item = provenance.Item

// Example is the worked example's question and answer.
type Example = provenance.Example

// Ref addresses an evidence quote: the source, its version and the cited
// body lines.
type Ref = provenance.Ref

// NewItem makes a candidate item of kind from text, with its content ID.
func NewItem(kind Kind, source, text string, created time.Time) Item {
	return provenance.NewItem(kind, source, text, created)
}

// NewExample makes the candidate example item.
func NewExample(ex Example, created time.Time) Item {
	return provenance.NewExample(ex, created)
}

// NewEvidence makes a candidate evidence item quoting lines r of s, from
// source corpus:ID.
func NewEvidence(s *corpus.Source, r corpus.Range, created time.Time) (Item, error) {
	quote, err := s.Quote(r)
	if err != nil {
		return Item{}, err
	}
	return provenance.NewEvidence(SourceRef(s, r), quote, created), nil
}

// SourceRef addresses lines r of s, with the source's validity and unit,
// which every evidence record carries.
func SourceRef(s *corpus.Source, r corpus.Range) Ref {
	return Ref{SourceID: s.ID, Version: s.Version, Lang: s.Lang, Lines: r,
		ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil, Unit: s.Unit}
}

// Canonical returns the form content IDs are computed from (see
// provenance.Canonical).
func Canonical(text string) string { return provenance.Canonical(text) }

// ContentID is the hex SHA-256 of Canonical(text) (see
// provenance.ContentID).
func ContentID(text string) string { return provenance.ContentID(text) }
