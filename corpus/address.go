package corpus

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Range is an inclusive range of 1-based body line numbers.
type Range struct {
	Start, End int
}

// String formats r as "START-END".
func (r Range) String() string { return strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End) }

// overlaps reports whether r and o share a line.
func (r Range) overlaps(o Range) bool { return r.Start <= o.End && o.Start <= r.End }

// Len is the number of lines in r.
func (r Range) Len() int { return r.End - r.Start + 1 }

// ErrBadRange reports a line range that is not "N" or "N-M" with 1 ≤ N ≤ M.
var ErrBadRange = errors.New("not a line range: write N-M with 1 ≤ N ≤ M, e.g. 1-3")

// ParseRange parses "N-M" or a single line "N".
func ParseRange(s string) (Range, error) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	start, err1 := parseLineNumber(a)
	end, err2 := parseLineNumber(b)
	if err1 != nil || err2 != nil || start > end {
		return Range{}, fmt.Errorf("%q: %w", s, ErrBadRange)
	}
	return Range{Start: start, End: end}, nil
}

// parseLineNumber accepts only plain decimal digits (no sign, no spaces, no
// leading zeros), so every address has one spelling.
func parseLineNumber(s string) (int, error) {
	if s == "" || len(s) > 9 || (s[0] == '0') {
		return 0, ErrBadRange
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, ErrBadRange
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}

// Address names cited lines of one source, written "SOURCE_ID:START-END".
// A zero Range means the whole body.
type Address struct {
	SourceID string
	Range    Range
}

// String formats a as "SOURCE_ID:START-END", or "SOURCE_ID" for a whole body.
func (a Address) String() string {
	if a.Range == (Range{}) {
		return a.SourceID
	}
	return a.SourceID + ":" + a.Range.String()
}

// ErrBadAddress reports text that is not a source address.
var ErrBadAddress = errors.New("not an address: write SOURCE_ID:START-END, e.g. travel-v2:1-3")

// ParseAddress parses "SOURCE_ID:START-END", "SOURCE_ID:LINE" or a bare
// "SOURCE_ID" (the whole body). Surrounding brackets, as in a citation
// "[travel-v2:1-3]", are accepted.
func ParseAddress(s string) (Address, error) {
	t := s
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		t = t[1 : len(t)-1]
	}
	id, rng, hasRange := strings.Cut(t, ":")
	if !ValidSourceID(id) {
		return Address{}, fmt.Errorf("%q: %w", s, ErrBadAddress)
	}
	a := Address{SourceID: id}
	if hasRange {
		r, err := ParseRange(rng)
		if err != nil {
			return Address{}, fmt.Errorf("%q: %w", s, ErrBadAddress)
		}
		a.Range = r
	}
	return a, nil
}

// ValidSourceID reports whether id is a well-formed source_id: one or more
// lowercase ASCII letters, digits, '.', '_' or '-'.
func ValidSourceID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
