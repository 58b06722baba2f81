package contract

import (
	"slices"
	"strings"
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

// SourceRef addresses lines r of s, with the source's validity, unit and
// role, which every evidence record carries.
func SourceRef(s *corpus.Source, r corpus.Range) provenance.Ref {
	return provenance.Ref{SourceID: s.ID, Version: s.Version, Lang: s.Lang, Lines: r,
		ValidFrom: s.ValidFrom, ValidUntil: s.ValidUntil, Unit: s.Unit, Role: s.Role}
}

// Serves lists the asked subjects a source serves, in the order asked:
// those of asked it is about. A contract records them only when the
// question asked more than one subject (with one, every record serves it),
// so it returns nil then.
func Serves(s *corpus.Source, asked []string) []string {
	if len(asked) < 2 {
		return nil
	}
	var out []string
	for _, a := range asked {
		if slices.Contains(s.Subjects, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// appendDate appends an evidence record's validity date, not zero, as a
// JSON string: the text of its String, which has nothing to escape.
func appendDate(b []byte, d corpus.Date) []byte {
	b = append(b, '"')
	b = d.Time().AppendFormat(b, time.DateOnly)
	return append(b, '"')
}

// servesText is Serves as a provenance.Ref carries it.
func servesText(subjects []string) string { return strings.Join(subjects, " ") }
