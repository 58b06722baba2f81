package contract

import (
	"time"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// NewEvidence makes a candidate evidence item quoting lines r of s, from
// source corpus:ID.
func NewEvidence(s *corpus.Source, r corpus.Range, created time.Time) (provenance.Item, error) {
	quote, err := s.Quote(r)
	if err != nil {
		return provenance.Item{}, err
	}
	return provenance.NewEvidence(SourceRef(s, r), quote, created), nil
}

// SourceRef addresses lines r of s, with the source's validity and unit,
// which every evidence record carries.
func SourceRef(s *corpus.Source, r corpus.Range) provenance.Ref {
	return provenance.Ref{SourceID: s.ID, Version: s.Version, Lang: s.Lang, Lines: r,
		ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil, Unit: s.Unit}
}

// appendDate appends an evidence record's validity date, not zero, as a
// JSON string: the text of its String, which has nothing to escape.
func appendDate(b []byte, d corpus.Date) []byte {
	b = append(b, '"')
	b = d.Time().AppendFormat(b, time.DateOnly)
	return append(b, '"')
}
