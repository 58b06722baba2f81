package datetext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	tests := []struct {
		text string
		want []string // Mention.String() and Text, as "2026-09-14=text"
	}{
		{"What is the lodging limit on 2026-09-14?", []string{"2026-09-14=2026-09-14"}},
		{"limit on 2026/9/4 and 2026.10.01", []string{"2026-09-04=2026/9/4", "2026-10-01=2026.10.01"}},
		{"What was it on 14 September 2026?", []string{"2026-09-14=14 September 2026"}},
		{"on the 1st of Jan. 2026", []string{"2026-01-01=1st of Jan. 2026"}},
		{"September 14, 2026 and Sept 3rd 2025", []string{"2026-09-14=September 14, 2026", "2025-09-03=Sept 3rd 2025"}},
		{"a business trip in March 2025", []string{"2025-03=March 2025"}},
		{"2026年9月14日的住宿标准是多少？", []string{"2026-09-14=2026年9月14日"}},
		{"2026 年 9 月 14 号", []string{"2026-09-14=2026 年 9 月 14 号"}},
		{"2025年3月出差", []string{"2025-03=2025年3月"}},
		{"２０２６年９月１４日", []string{"2026-09-14=２０２６年９月１４日"}},
		// Not dates: an impossible day, a year alone, an amount, a day without a year.
		{"2026-02-30 is no day", nil},
		{"the 2026 rules; 750 CNY; 9-14", nil},
		{"on 14 September", nil},
		{"May I book 2 rooms?", nil},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range Find(tt.text) {
			got = append(got, m.String()+"="+m.Text)
			if tt.text[m.Offset:m.Offset+len(m.Text)] != m.Text {
				t.Errorf("Find(%q): offset %d does not hold %q", tt.text, m.Offset, m.Text)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Find(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

// FuzzFind: every mention is in the text and a half-open interval, and
// Find, which runs only the patterns whose needs the text meets, finds
// what running every pattern finds.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"2026-09-14", "14 September 2026", "2026年9月14日", "２０２６年９月", "March 2025", "\xff2026-01-01",
		"ſept 3rd 2025", "SEP 2026", "May I book 2 rooms?", "the 2026 rules", "12345 mar", "jan2026", "Ｍar 2026"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if diff := cmp.Diff(find(s, func(pattern) bool { return true }), Find(s)); diff != "" {
			t.Errorf("Find(%q) differs from running every pattern (-all +Find):\n%s", s, diff)
		}
		for _, m := range Find(s) {
			if m.Offset < 0 || m.Offset+len(m.Text) > len(s) || s[m.Offset:m.Offset+len(m.Text)] != m.Text {
				t.Fatalf("mention %+v is not in %q", m, s)
			}
			if !m.From.Before(m.Until) || !m.Contains(m.From) || m.Contains(m.Until) {
				t.Fatalf("mention %+v is not a half-open interval", m)
			}
		}
	})
}

func TestFilters(t *testing.T) {
	for _, tt := range []struct {
		text        string
		year, month bool
	}{
		{"no digits", false, false},
		{"12 34 567", false, false},
		{"1234", true, false},
		{"１２３４", true, false},
		{"12３4", true, false},
		{"in SEPT", false, true},
		{"ſep", false, true},
		{"Decimal", false, true},
		{"Ｊan", false, false}, // a full-width letter folds to no ASCII one
	} {
		if got := hasYear(tt.text); got != tt.year {
			t.Errorf("hasYear(%q) = %v, want %v", tt.text, got, tt.year)
		}
		if got := namesMonth(tt.text); got != tt.month {
			t.Errorf("namesMonth(%q) = %v, want %v", tt.text, got, tt.month)
		}
	}
}

// BenchmarkFind times Find on questions with no year, with a month and a
// year, and with a day, beside running every pattern (all).
func BenchmarkFind(b *testing.B) {
	for _, q := range []string{"What is the Beijing lodging limit?", "What was the lodging limit in March 2025?", "住宿标准 2026-09-14 是多少？"} {
		b.Run("find/"+q, func(b *testing.B) {
			for b.Loop() {
				Find(q)
			}
		})
		b.Run("all/"+q, func(b *testing.B) {
			for b.Loop() {
				find(q, func(pattern) bool { return true })
			}
		})
	}
}
