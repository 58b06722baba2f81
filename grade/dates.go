package grade

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// date is one date found in a text; a part left out is 0 ("1 January"
// has no year, "March 2025" no day).
type date struct {
	Text     string
	Y, M, D  int
	Off, End int // byte span in the text
}

// String is the date as YYYY-MM-DD, with the parts it has.
func (d date) String() string {
	switch {
	case d.Y != 0 && d.M != 0 && d.D != 0:
		return fmt.Sprintf("%04d-%02d-%02d", d.Y, d.M, d.D)
	case d.Y != 0 && d.M != 0:
		return fmt.Sprintf("%04d-%02d", d.Y, d.M)
	}
	return d.Text
}

// within reports whether every part d has equals the same part of full.
func (d date) within(full date) bool {
	return (d.Y == 0 || d.Y == full.Y) && (d.M == 0 || d.M == full.M) && (d.D == 0 || d.D == full.D)
}

var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

const monthRe = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

// dateForms are the ways a date is written, most specific first; each
// names which group holds the year, month and day (0: none).
var dateForms = []struct {
	re      *regexp.Regexp
	y, m, d int
}{
	{regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`), 1, 2, 3},
	{regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]`), 1, 2, 3},
	{regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `,?\s+(\d{4})\b`), 3, 2, 1},
	{regexp.MustCompile(`(?i)\b` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`), 3, 1, 2},
	{regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月`), 1, 2, 0},
	{regexp.MustCompile(`(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]`), 0, 1, 2},
	{regexp.MustCompile(`(?i)\b` + monthRe + `,?\s+(\d{4})\b`), 2, 1, 0},
	{regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `\b`), 0, 2, 1},
	{regexp.MustCompile(`(?i)\b` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?\b`), 0, 1, 2},
	{regexp.MustCompile(`(\d{4})\s*年`), 1, 0, 0},
}

// dates lists the dates of a normalised text, in order, none overlapping
// another; a stretch that reads as a date but is none (2026-02-30) is
// left to the number reader, which then reports its parts.
func dates(s string) []date {
	var out []date
	for _, f := range dateForms {
		for _, m := range f.re.FindAllStringSubmatchIndex(s, -1) {
			if overlaps(out, m[0], m[1]) {
				continue
			}
			group := func(i int) string {
				if i == 0 || m[2*i] < 0 {
					return ""
				}
				return s[m[2*i]:m[2*i+1]]
			}
			d := date{Text: s[m[0]:m[1]], Off: m[0], End: m[1]}
			d.Y, _ = strconv.Atoi(group(f.y))
			if f.m != 0 {
				if n, err := strconv.Atoi(group(f.m)); err == nil {
					d.M = n
				} else {
					d.M = months[strings.TrimSuffix(strings.ToLower(group(f.m)), ".")]
				}
			}
			d.D, _ = strconv.Atoi(group(f.d))
			if !valid(d) {
				continue
			}
			out = append(out, d)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Off < out[j-1].Off; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func overlaps(ds []date, start, end int) bool {
	for _, d := range ds {
		if start < d.End && d.Off < end {
			return true
		}
	}
	return false
}

// valid reports whether the parts d has can be one day of the calendar.
func valid(d date) bool {
	if d.M < 0 || d.M > 12 || d.D < 0 || d.D > 31 || (d.Y != 0 && (d.Y < 1000 || d.Y > 9999)) {
		return false
	}
	if d.M == 0 && d.D != 0 {
		return false
	}
	if d.Y != 0 && d.M != 0 && d.D != 0 {
		t := time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC)
		return t.Day() == d.D
	}
	return true
}

// fullDate reads YYYY-MM-DD; ok is false for anything else.
func fullDate(s string) (date, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return date{}, false
	}
	return date{Text: s, Y: t.Year(), M: int(t.Month()), D: t.Day()}, true
}

// dayBefore is the day before d, a full date: the last day a record
// valid until d applies.
func dayBefore(d date) date {
	t := time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	return date{Text: t.Format(time.DateOnly), Y: t.Year(), M: int(t.Month()), D: t.Day()}
}

// mask replaces the bytes of spans by spaces, so offsets stay and what
// they hold is not read again.
func mask(s string, spans [][2]int) string {
	b := []byte(s)
	for _, sp := range spans {
		for i := sp[0]; i < sp[1] && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// dateSpans are the spans of ds, for mask.
func dateSpans(ds []date) [][2]int {
	out := make([][2]int, len(ds))
	for i, d := range ds {
		out[i] = [2]int{d.Off, d.End}
	}
	return out
}
