package diag

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiagnosticError(t *testing.T) {
	tests := []struct {
		name string
		d    *Diagnostic
		want string
	}{
		{"everything", &Diagnostic{Pos: Pos{"a.md", 3, 7}, Message: "bad", Hint: Fix("fix it")}, "a.md:3:7: bad; fix it"},
		{"no column", &Diagnostic{Pos: Pos{"a.md", 3, 0}, Message: "bad"}, "a.md:3: bad"},
		{"no line", &Diagnostic{Pos: Pos{"a.md", 0, 7}, Message: "bad"}, "a.md: bad"},
		{"no path", &Diagnostic{Message: "bad", Hint: Fix("fix it")}, "bad; fix it"},
		{"setting", &Diagnostic{Message: "no policy files", Hint: Set("point {corpus} at them")},
			"no policy files; point the corpus setting at them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.d.Error()); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListSortsAndPrints(t *testing.T) {
	// Each diagnostic sorts before the next: path, then line, column,
	// code, message.
	want := List{
		{Pos: Pos{Path: "a.md", Line: 9}},
		{Pos: Pos{"b.md", 1, 5}},
		{Pos: Pos{"b.md", 2, 1}},
		{Pos: Pos{"b.md", 2, 3}, Code: "bad_date"},
		{Pos: Pos{"b.md", 2, 3}, Code: "unknown_key", Message: "a"},
		{Pos: Pos{"b.md", 2, 3}, Code: "unknown_key", Message: "b"},
	}
	got := List{want[5], want[3], want[0], want[4], want[2], want[1]}
	err := got.Err()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sort() mismatch (-want +got):\n%s", diff)
	}
	if err.Error() != "a.md:9: \nb.md:1:5: \nb.md:2:1: \nb.md:2:3: \nb.md:2:3: a\nb.md:2:3: b" {
		t.Errorf("Error() = %q", err.Error())
	}
	var d *Diagnostic
	if !errors.As(err, &d) || d != want[0] {
		t.Errorf("errors.As found %v, want the first diagnostic", d)
	}
	if (List{}).Err() != nil || (List{}).Mark(errors.ErrUnsupported) != nil {
		t.Error("an empty list must be no error")
	}
}

func TestMark(t *testing.T) {
	sentinel := errors.New("broken")
	l := List{{Pos: Pos{Path: "b"}, Message: "two"}, {Pos: Pos{Path: "a"}, Message: "one"}}
	err := fmt.Errorf("load: %w", l.Mark(sentinel))
	if !errors.Is(err, sentinel) {
		t.Error("errors.Is(err, sentinel) = false")
	}
	var got List
	if !errors.As(err, &got) || len(got) != 2 {
		t.Errorf("errors.As(List) = %v", got)
	}
	if err.Error() != "load: a: one\nb: two" {
		t.Errorf("Error() = %q", err.Error())
	}
	if diff := cmp.Diff(List{l[0], l[1]}, As(err)); diff != "" {
		t.Errorf("As() mismatch (-want +got):\n%s", diff)
	}
}

func TestDiagnosticUnwrap(t *testing.T) {
	sentinel := errors.New("bad query")
	err := fmt.Errorf("build: %w", &Diagnostic{Message: "no date", Err: sentinel})
	if !errors.Is(err, sentinel) {
		t.Error("errors.Is(err, sentinel) = false")
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []Severity{SeverityOff, SeverityInfo, SeverityWarning, SeverityError} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%s does not round-trip: %v %v", s, back, err)
		}
	}
	if _, err := Severity(7).MarshalText(); err == nil {
		t.Error("Severity(7) marshalled")
	}
	if Severity(7).String() != "Severity(7)" {
		t.Errorf("String() = %q", Severity(7).String())
	}
	var s Severity
	if err := s.UnmarshalText([]byte("fatal")); err == nil {
		t.Error("fatal parsed")
	}
	if !(SeverityOff < SeverityInfo && SeverityInfo < SeverityWarning && SeverityWarning < SeverityError) {
		t.Error("severities out of order")
	}
}

func TestHint(t *testing.T) {
	flag := func(s string) string { return "--" + s }
	tests := []struct {
		name          string
		h             Hint
		plain, phrase string
		settings      []string
	}{
		{"fix", Fix("write each key once"), "write each key once", "write each key once", nil},
		{"settings", Set("raise {capacity}, lower {reserve}, or ask about fewer dates"),
			"raise the capacity setting, lower the reserve setting, or ask about fewer dates",
			"raise --capacity, lower --reserve, or ask about fewer dates", []string{"capacity", "reserve"}},
		{"braces in advice", Fix("write stages: {build: {uses: ka2.build}}"), "write stages: {build: {uses: ka2.build}}",
			"write stages: {build: {uses: ka2.build}}", nil},
		{"unclosed brace", Set("raise {capacity"), "raise {capacity", "raise {capacity", nil},
		{"zero", Hint{}, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.String(); got != tt.plain {
				t.Errorf("String() = %q, want %q", got, tt.plain)
			}
			if got := tt.h.Phrase(flag); got != tt.phrase {
				t.Errorf("Phrase() = %q, want %q", got, tt.phrase)
			}
			if diff := cmp.Diff(tt.settings, tt.h.Settings()); diff != "" {
				t.Errorf("Settings() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

type hinted struct{ h Hint }

func (e hinted) Error() string { return "over budget; " + e.h.String() }
func (e hinted) Hint() Hint    { return e.h }

func TestPhrase(t *testing.T) {
	flag := func(s string) string { return "--" + s }
	l := List{
		{Pos: Pos{Path: "a.md"}, Message: "no source", Hint: Set("pass {lang} to choose one")},
		{Pos: Pos{Path: "b.md"}, Message: "ambiguous", Hint: Set("pass {lang} to choose one")},
	}
	err := fmt.Errorf("show: %w", l.Err())
	want := "show: a.md: no source; pass --lang to choose one\nb.md: ambiguous; pass --lang to choose one"
	if got := Phrase(err, flag); got != want {
		t.Errorf("Phrase() = %q, want %q", got, want)
	}
	err = fmt.Errorf("build: %w", hinted{Set("raise {capacity}")})
	if got := Phrase(err, flag); got != "build: over budget; raise --capacity" {
		t.Errorf("Phrase() = %q", got)
	}
	if got := Phrase(errors.New("plain"), flag); got != "plain" {
		t.Errorf("Phrase() = %q", got)
	}
}

// TestErrors: several errors of one type print one per line, and each is
// found by errors.As and errors.Is.
func TestErrors(t *testing.T) {
	sentinel := errors.New("sentinel")
	a := &Diagnostic{Pos: Pos{Path: "a", Line: 1}, Message: "one"}
	b := &Diagnostic{Pos: Pos{Path: "a", Line: 2}, Message: "two", Err: sentinel}
	var err error = Errors[*Diagnostic]{a, b}
	if got := err.Error(); got != "a:1: one\na:2: two" {
		t.Errorf("Error() = %q", got)
	}
	var d *Diagnostic
	if !errors.As(err, &d) || d != a || !errors.Is(err, sentinel) {
		t.Errorf("errors.As finds %v, errors.Is(sentinel) = %v", d, errors.Is(err, sentinel))
	}
}

func TestSettings(t *testing.T) {
	l := List{
		{Message: "a", Hint: Set("raise {capacity}, lower {reserve}")},
		{Message: "b", Hint: Fix("edit {the file}")}, // not a setting hint
	}
	err := fmt.Errorf("x: %w", errors.Join(l.Err(), hinted{Set("pass {short}")}, errors.New("plain")))
	if diff := cmp.Diff([]string{"capacity", "reserve", "short"}, Settings(err)); diff != "" {
		t.Errorf("Settings() mismatch (-want +got):\n%s", diff)
	}
	if got := Settings(errors.New("plain")); got != nil {
		t.Errorf("Settings(plain) = %v, want nil", got)
	}
}
