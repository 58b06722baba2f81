package corpus

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Date is a civil calendar date (no time, no zone). ka2 compares dates as
// days, so a boundary such as 2026-01-01 can never depend on a clock or a
// time zone. The zero Date is "no date"; use IsZero to test for it.
type Date struct {
	// n is days since 0001-01-01, plus one, so that the zero value is unset.
	n int32
}

// unixDayOfYear1 is the Unix day number of 0001-01-01.
const unixDayOfYear1 = -719162

// ErrNotCivilDate reports a date written with a time or a zone offset.
var ErrNotCivilDate = errors.New("ka2 compares civil dates: write the date as YYYY-MM-DD, without a time or zone")

// ErrBadDate reports text that is not a valid YYYY-MM-DD calendar date.
var ErrBadDate = errors.New("not a calendar date: write it as YYYY-MM-DD, e.g. 2026-01-01")

// MustDate returns the date y-m-d. It panics if the date does not exist; it is
// meant for constants in code and tests. Use ParseDate for input.
func MustDate(y int, m time.Month, d int) Date {
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || t.Month() != m || t.Day() != d || y < 1 || y > 9999 {
		panic(fmt.Sprintf("corpus.MustDate: %04d-%02d-%02d does not exist", y, m, d))
	}
	return fromTime(t)
}

// MustParseDate is ParseDate for dates written in code and tests: it
// panics if s is not a date.
func MustParseDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic("corpus.MustParseDate: " + err.Error())
	}
	return d
}

func fromTime(t time.Time) Date {
	return Date{n: int32(t.Unix()/86400-unixDayOfYear1) + 1}
}

// ParseDate parses a calendar date written as YYYY-MM-DD. A time or zone
// suffix is refused with ErrNotCivilDate rather than silently dropped, so
// "2026-01-01" and "2026-01-01T00:00:00Z" can never disagree at a boundary.
func ParseDate(s string) (Date, error) {
	if len(s) > 10 && isDateShape(s[:10]) && isTimeOrZone(s[10:]) {
		return Date{}, fmt.Errorf("%q: %w", s, ErrNotCivilDate)
	}
	if !isDateShape(s) {
		return Date{}, fmt.Errorf("%q: %w", s, ErrBadDate)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 1 {
		return Date{}, fmt.Errorf("%q: %w", s, ErrBadDate)
	}
	return fromTime(t), nil
}

// isTimeOrZone reports whether rest, the text after a YYYY-MM-DD date, starts
// a time of day ("T10:00", " 10:00") or a zone ("Z", "+08:00", "-05:00"), as
// in RFC 3339 and ISO 8601 timestamps. Other trailing text is just a bad date.
func isTimeOrZone(rest string) bool {
	digitAt := func(i int) bool { return i < len(rest) && '0' <= rest[i] && rest[i] <= '9' }
	switch rest[0] {
	case 'T', 't', ' ', '+', '-':
		return digitAt(1)
	case 'Z', 'z':
		return len(rest) == 1
	}
	return false
}

// isDateShape reports whether s is exactly ten characters shaped NNNN-NN-NN.
func isDateShape(s string) bool {
	if len(s) != 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsZero reports whether d is the zero Date (no date).
func (d Date) IsZero() bool { return d.n == 0 }

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.n < e.n:
		return -1
	case d.n > e.n:
		return 1
	}
	return 0
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.n < e.n }

// AddDays returns the date n days after d (before, for negative n).
func (d Date) AddDays(n int) Date { return Date{n: d.n + int32(n)} }

// Time returns midnight UTC of d.
func (d Date) Time() time.Time {
	return time.Unix((int64(d.n)-1+unixDayOfYear1)*86400, 0).UTC()
}

// String formats d as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Time().Format(time.DateOnly)
}

// MarshalText formats d as YYYY-MM-DD, or as empty text for the zero Date.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses YYYY-MM-DD. Empty text gives the zero Date, so that
// what MarshalText writes for an open-ended valid_until reads back.
func (d *Date) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Equal reports whether d and e are the same day. It lets go-cmp compare
// values that hold dates.
func (d Date) Equal(e Date) bool { return d == e }
