package corpus_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

var parseDateTests = []struct {
	name    string
	in      string
	want    string // String() of the result
	wantErr error
	wantMsg string // the error's text, where a row pins it
}{
	{name: "plain date", in: "2026-01-01", want: "2026-01-01"},
	{name: "last day of a year", in: "2025-12-31", want: "2025-12-31"},
	{name: "leap day", in: "2024-02-29", want: "2024-02-29"},
	{name: "leap day in a year divisible by 400", in: "2000-02-29", want: "2000-02-29"},
	{name: "first representable day", in: "0001-01-01", want: "0001-01-01"},
	{name: "last representable day", in: "9999-12-31", want: "9999-12-31"},
	{name: "before the Unix epoch", in: "1969-12-31", want: "1969-12-31"},
	{name: "no leap day in 2026", in: "2026-02-29", wantErr: corpus.ErrBadDate},
	{name: "no leap day in a century year", in: "1900-02-29", wantErr: corpus.ErrBadDate},
	{name: "no leap day in 2100", in: "2100-02-29", wantErr: corpus.ErrBadDate},
	{name: "february 30", in: "2026-02-30", wantErr: corpus.ErrBadDate,
		wantMsg: `"2026-02-30": not a calendar date: write it as YYYY-MM-DD, e.g. 2026-01-01`},
	{name: "april 31", in: "2026-04-31", wantErr: corpus.ErrBadDate},
	{name: "month 13", in: "2026-13-01", wantErr: corpus.ErrBadDate},
	{name: "month 0", in: "2026-00-10", wantErr: corpus.ErrBadDate},
	{name: "day 0", in: "2026-01-00", wantErr: corpus.ErrBadDate},
	{name: "year 0", in: "0000-01-01", wantErr: corpus.ErrBadDate},
	{name: "one-digit month and day", in: "2026-1-1", wantErr: corpus.ErrBadDate},
	{name: "two-digit year", in: "26-01-01", wantErr: corpus.ErrBadDate},
	{name: "slashes", in: "2026/01/01", wantErr: corpus.ErrBadDate},
	{name: "day first", in: "01-01-2026", wantErr: corpus.ErrBadDate},
	{name: "empty", in: "", wantErr: corpus.ErrBadDate},
	{name: "leading space", in: " 2026-01-01", wantErr: corpus.ErrBadDate},
	{name: "trailing space", in: "2026-01-01 ", wantErr: corpus.ErrBadDate},
	{name: "trailing text", in: "2026-01-01x", wantErr: corpus.ErrBadDate},
	{name: "a bare T", in: "2026-01-01T", wantErr: corpus.ErrBadDate},
	{name: "full-width digits", in: "２０２６-01-01", wantErr: corpus.ErrBadDate},
	{name: "RFC 3339 UTC", in: "2026-01-01T00:00:00Z", wantErr: corpus.ErrNotCivilDate,
		wantMsg: `"2026-01-01T00:00:00Z": ka2 compares civil dates: write the date as YYYY-MM-DD, without a time or zone`},
	{name: "RFC 3339 with offset", in: "2026-01-01T08:00:00+08:00", wantErr: corpus.ErrNotCivilDate},
	{name: "time without zone", in: "2026-01-01T00:00", wantErr: corpus.ErrNotCivilDate},
	{name: "lowercase t", in: "2026-01-01t00:00", wantErr: corpus.ErrNotCivilDate},
	{name: "time after a space", in: "2026-01-01 10:00:00", wantErr: corpus.ErrNotCivilDate},
	{name: "zone Z only", in: "2026-01-01Z", wantErr: corpus.ErrNotCivilDate},
	{name: "positive offset only", in: "2026-01-01+08:00", wantErr: corpus.ErrNotCivilDate},
	{name: "negative offset only", in: "2026-01-01-05:00", wantErr: corpus.ErrNotCivilDate},
	{name: "time on a day that does not exist", in: "2026-02-30T00:00:00Z", wantErr: corpus.ErrNotCivilDate},
}

func TestParseDate(t *testing.T) {
	for _, tt := range parseDateTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.ParseDate(tt.in)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("ParseDate(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				if !got.IsZero() {
					t.Errorf("ParseDate(%q) = %v with an error, want the zero Date", tt.in, got)
				}
				if tt.wantMsg != "" {
					if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
						t.Errorf("ParseDate(%q) error mismatch (-want +got):\n%s", tt.in, diff)
					}
				}
				return
			}
			if diff := cmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("ParseDate(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDateArithmetic(t *testing.T) {
	tests := []struct {
		name string
		from string
		days int
		want string
	}{
		{name: "into a leap day", from: "2024-02-28", days: 1, want: "2024-02-29"},
		{name: "over a leap day", from: "2024-02-28", days: 2, want: "2024-03-01"},
		{name: "over a missing leap day", from: "2026-02-28", days: 1, want: "2026-03-01"},
		{name: "into the next year", from: "2025-12-31", days: 1, want: "2026-01-01"},
		{name: "back into the last year", from: "2026-01-01", days: -1, want: "2025-12-31"},
		{name: "a whole leap year", from: "2024-01-01", days: 366, want: "2025-01-01"},
		{name: "across the Unix epoch", from: "1969-12-31", days: 1, want: "1970-01-01"},
		{name: "no change", from: "2026-09-14", days: 0, want: "2026-09-14"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := corpus.MustParseDate(tt.from)
			got := d.AddDays(tt.days)
			if diff := cmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("AddDays(%d) mismatch (-want +got):\n%s", tt.days, diff)
			}
			if back := got.AddDays(-tt.days); back != d {
				t.Errorf("AddDays(%d) then AddDays(%d) = %v, want %v", tt.days, -tt.days, back, d)
			}
		})
	}
}

func TestDateCompare(t *testing.T) {
	var zero corpus.Date
	v1End := corpus.MustParseDate("2025-12-31")
	v2Start := corpus.MustParseDate("2026-01-01")
	tests := []struct {
		name       string
		a, b       corpus.Date
		want       int
		wantBefore bool
	}{
		{name: "earlier", a: v1End, b: v2Start, want: -1, wantBefore: true},
		{name: "later", a: v2Start, b: v1End, want: 1},
		{name: "equal", a: v2Start, b: corpus.MustParseDate("2026-01-01"), want: 0},
		{name: "zero is before any date", a: zero, b: corpus.MustParseDate("0001-01-01"), want: -1, wantBefore: true},
		{name: "zero equals zero", a: zero, b: zero, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Compare(tt.b); got != tt.want {
				t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := tt.a.Before(tt.b); got != tt.wantBefore {
				t.Errorf("%v.Before(%v) = %t, want %t", tt.a, tt.b, got, tt.wantBefore)
			}
		})
	}
}

func TestDateZero(t *testing.T) {
	var d corpus.Date
	if !d.IsZero() {
		t.Error("zero Date: IsZero() = false")
	}
	if got := d.String(); got != "" {
		t.Errorf("zero Date: String() = %q, want \"\"", got)
	}
	if corpus.MustParseDate("0001-01-01").IsZero() {
		t.Error("0001-01-01: IsZero() = true")
	}
}

func TestMustDate(t *testing.T) {
	got := corpus.MustDate(2026, time.January, 1)
	if want := corpus.MustParseDate("2026-01-01"); got != want {
		t.Errorf("MustDate(2026, January, 1) = %v, want %v", got, want)
	}
	if got, want := got.Time(), time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Time() = %v, want %v", got, want)
	}
	for _, bad := range []struct {
		y int
		m time.Month
		d int
	}{{2026, time.February, 29}, {2026, time.February, 30}, {0, time.January, 1}, {10000, time.January, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MustDate(%d, %v, %d) did not panic", bad.y, bad.m, bad.d)
				}
			}()
			corpus.MustDate(bad.y, bad.m, bad.d)
		}()
	}
}

func TestDateJSON(t *testing.T) {
	type record struct {
		From  corpus.Date `json:"from"`
		Until corpus.Date `json:"until"`
	}
	tests := []struct {
		name string
		in   record
		want string
	}{
		{name: "both dates", in: record{From: corpus.MustParseDate("2025-01-01"), Until: corpus.MustParseDate("2026-01-01")},
			want: `{"from":"2025-01-01","until":"2026-01-01"}`},
		{name: "open-ended", in: record{From: corpus.MustParseDate("2026-01-01")},
			want: `{"from":"2026-01-01","until":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("json.Marshal() mismatch (-want +got):\n%s", diff)
			}
			var back record
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("json.Unmarshal(%s): %v", b, err)
			}
			if diff := cmp.Diff(tt.in, back, dateCmp); diff != "" {
				t.Errorf("json round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDateUnmarshalTextRefuses(t *testing.T) {
	for _, in := range []string{"2026-02-30", "2026-01-01T00:00:00Z", "soon"} {
		var d corpus.Date
		if err := d.UnmarshalText([]byte(in)); err == nil {
			t.Errorf("UnmarshalText(%q) = %v, want an error", in, d)
		}
	}
	var d corpus.Date
	if err := d.UnmarshalText([]byte("2026-01-01T00:00:00Z")); !errors.Is(err, corpus.ErrNotCivilDate) {
		t.Errorf("UnmarshalText(timestamp) error = %v, want ErrNotCivilDate", err)
	}
}

// FuzzParseDate checks that every date ParseDate accepts prints back as the
// same text, and that it agrees with the standard library on what exists.
func FuzzParseDate(f *testing.F) {
	for _, tt := range parseDateTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := corpus.ParseDate(s)
		if err != nil {
			if !errors.Is(err, corpus.ErrBadDate) && !errors.Is(err, corpus.ErrNotCivilDate) {
				t.Fatalf("ParseDate(%q) error %v wraps neither ErrBadDate nor ErrNotCivilDate", s, err)
			}
			if !d.IsZero() {
				t.Fatalf("ParseDate(%q) = %v with an error", s, d)
			}
		} else {
			if got := d.String(); got != s {
				t.Fatalf("ParseDate(%q).String() = %q", s, got)
			}
			again, err := corpus.ParseDate(d.String())
			if err != nil || again != d {
				t.Fatalf("ParseDate(%q) round trip = %v, %v", s, again, err)
			}
			if got := d.Time().Format(time.DateOnly); got != s {
				t.Fatalf("ParseDate(%q).Time() = %s", s, got)
			}
			if d.AddDays(1).Compare(d) != 1 || d.AddDays(-1).AddDays(1) != d {
				t.Fatalf("ParseDate(%q): AddDays disagrees with Compare", s)
			}
		}
		if len(s) == 10 {
			tm, terr := time.Parse(time.DateOnly, s)
			stdOK := terr == nil && tm.Year() >= 1
			if stdOK != (err == nil) {
				t.Fatalf("ParseDate(%q) error = %v, but time.Parse error = %v", s, err, terr)
			}
		}
	})
}

func TestMustParseDate(t *testing.T) {
	if got := corpus.MustParseDate("2026-09-14"); got != corpus.MustDate(2026, 9, 14) {
		t.Errorf("MustParseDate() = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParseDate(2026-02-30) did not panic")
		}
	}()
	corpus.MustParseDate("2026-02-30")
}
