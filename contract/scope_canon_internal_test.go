package contract

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

// TestWritesCanonically: a scope the build trusts without parsing its
// item again is one ParseScope reads back as itself; one it does not
// trust is one ParseScope refuses, so the build still reports it.
func TestWritesCanonically(t *testing.T) {
	d := corpus.MustDate(2026, time.September, 14)
	tests := []struct {
		name string
		sc   Scope
		want bool
	}{
		{"one subject and date", Scope{Subjects: []string{"lodging"}, Dates: []corpus.Date{d}}, true},
		{"several", Scope{Subjects: []string{"lodging", "rail"}, Dates: []corpus.Date{d, corpus.MustDate(1, 1, 1), corpus.MustDate(9999, 12, 31)}}, true},
		{"quotes, escapes, controls, unicode", Scope{Subjects: []string{"a\"b\\c", "tab\there\n", "住宿 😀", "\u2028<&>", "\x00"}, Dates: []corpus.Date{d}}, true},
		{"no subject", Scope{Dates: []corpus.Date{d}}, false},
		{"no date", Scope{Subjects: []string{"lodging"}}, false},
		{"zero date", Scope{Subjects: []string{"lodging"}, Dates: []corpus.Date{{}}}, false},
		{"invalid UTF-8", Scope{Subjects: []string{"bad\xff"}, Dates: []corpus.Date{d}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.sc.writesCanonically(); got != tt.want {
				t.Fatalf("writesCanonically() = %v, want %v", got, tt.want)
			}
			got, err := ParseScope(tt.sc.Text())
			if !tt.want {
				if err == nil {
					t.Fatalf("ParseScope(%q) = nil error; a scope the build does not trust must be refused", tt.sc.Text())
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseScope(%q) = %v", tt.sc.Text(), err)
			}
			if diff := cmp.Diff(tt.sc, got, cmp.AllowUnexported(corpus.Date{})); diff != "" {
				t.Errorf("ParseScope() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScopeTextDates: Text writes every date as its String, zero and out
// of range dates included.
func TestScopeTextDates(t *testing.T) {
	d := corpus.MustDate(2026, time.September, 14)
	dates := []corpus.Date{d, {}, corpus.MustDate(1, 1, 1), corpus.MustDate(9999, 12, 31), d.AddDays(3_000_000), d.AddDays(-3_000_000)}
	sc := Scope{Subjects: []string{"lodging", "住宿 \"x\""}, Dates: dates}
	want := `{"subjects":["lodging","住宿 \"x\""],"dates":[`
	for i, d := range dates {
		if i > 0 {
			want += ","
		}
		want += `"` + d.String() + `"`
	}
	want += "]}"
	if got := sc.Text(); got != want {
		t.Errorf("Text() = %s, want %s", got, want)
	}
}
