package grade

import (
	"math/big"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// numberSeeds are the notations issue 23 lists, and forms near them.
var numberSeeds = []string{
	"CNY900", "RMB900", "USD900", "900CNY", "US$900", "¥750", "900K", "1.5k", "2M CNY", "9百元", "1.5万元", "7百5十元",
	"七百五十元", "七百五", "两千元", "一万二", "十五元", "百分之八十", "80%", "1,500.00 元", "７５０元", "750.00 CNY",
	"seven hundred and fifty CNY", "twenty-five thousand yuan", "hundred fifty CNY", "7百百元",
	"万一", "千万不要", "十分重要", "一起", "A-104", "travel-v2", "v2", "3rd", "12B", "1. 750", "1.2.3",
	"2026-01-01", "From 1 January 2026", "2026 年 1 月 1 日", "31 December 2025", "March 2025", "2026-02-30",
}

// TestNumbers: what the number reader reads, value and unit.
func TestNumbers(t *testing.T) {
	type n struct{ Text, Value, Unit string }
	tests := []struct {
		in   string
		want []n
		bad  []string
	}{
		{"CNY900", []n{{"CNY900", "900", "CNY"}}, nil},
		{"RMB900", []n{{"RMB900", "900", "CNY"}}, nil},
		{"USD900", []n{{"USD900", "900", "USD"}}, nil},
		{"900CNY", []n{{"900", "900", "CNY"}}, nil},
		{"¥750", []n{{"¥750", "750", "CNY"}}, nil},
		{"900K", []n{{"900K", "900000", ""}}, nil},
		{"1.5k CNY", []n{{"1.5k", "1500", "CNY"}}, nil},
		{"2M", []n{{"2M", "2000000", ""}}, nil},
		{"1,500.00 元", []n{{"1,500.00", "1500", "CNY"}}, nil},
		{"0.50", []n{{"0.50", "0.5", ""}}, nil},
		{"9百元", []n{{"9百", "900", "CNY"}}, nil},
		{"1.5万元", []n{{"1.5万", "15000", "CNY"}}, nil},
		{"7百5十元", []n{{"7百5十", "750", "CNY"}}, nil},
		{"七百五十元", []n{{"七百五十", "750", "CNY"}}, nil},
		{"七百五", []n{{"七百五", "750", ""}}, nil},
		{"两千元", []n{{"两千", "2000", "CNY"}}, nil},
		{"一万二", []n{{"一万二", "12000", ""}}, nil},
		{"十五元", []n{{"十五", "15", "CNY"}}, nil},
		{"一元", []n{{"一", "1", "CNY"}}, nil},
		{"百分之八十", []n{{"百分之八十", "80", "%"}}, nil},
		{"80%", []n{{"80%", "80", "%"}}, nil},
		{"seven hundred and fifty CNY", []n{{"seven hundred and fifty", "750", "CNY"}}, nil},
		{"twenty-five thousand yuan", []n{{"twenty-five thousand", "25000", "CNY"}}, nil},
		{"one of them", nil, nil},
		{"hundred fifty CNY", nil, []string{"hundred fifty"}},
		{"7百百元", nil, []string{"7百百"}},
		{"万一 千万不要 十分重要 一起 统一", nil, nil},
		{"A-104 travel-v2 v2 3rd 12B", nil, nil},
		{"1. The limit", nil, nil},
		{"1.2.3", []n{{"1.2", "1.2", ""}}, nil},
	}
	for _, tt := range tests {
		ns, bad := numbers(normalise(tt.in))
		var got []n
		for _, x := range ns {
			got = append(got, n{x.Text, x.Value, x.Unit})
		}
		var gotBad []string
		for _, u := range bad {
			gotBad = append(gotBad, u.Text)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("numbers(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(tt.bad, gotBad); diff != "" {
			t.Errorf("numbers(%q) unreadable mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestDates: dates are read as dates, whole, in each notation.
func TestDates(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"from 2026-01-01 on", []string{"2026-01-01"}},
		{"2026/1/1", []string{"2026-01-01"}},
		{"From 1 January 2026", []string{"2026-01-01"}},
		{"January 1, 2026", []string{"2026-01-01"}},
		{"31 December 2025", []string{"2025-12-31"}},
		{"自 2026 年 1 月 1 日起", []string{"2026-01-01"}},
		{"March 2025", []string{"2025-03"}},
		{"1 January", []string{"1 January"}},
		{"2026-02-30", nil},
		{"750 CNY", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, d := range dates(normalise(tt.in)) {
			got = append(got, d.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("dates(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzNumbers checks that the number and date readers never panic, give
// the same answer twice, keep every span inside the text and apart from
// the others, and give values that are decimals.
func FuzzNumbers(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = normalise(s)
		ds := dates(s)
		masked := mask(s, dateSpans(ds))
		ns, bad := numbers(masked)
		ns2, bad2 := numbers(masked)
		if !slices.Equal(ns, ns2) || !slices.Equal(bad, bad2) {
			t.Fatalf("numbers(%q) is not deterministic", masked)
		}
		var spans [][2]int
		for _, n := range ns {
			if _, ok := new(big.Rat).SetString(n.Value); !ok || n.Off < 0 || n.End > len(s) || n.Off >= n.End {
				t.Fatalf("numbers(%q) gave %+v", masked, n)
			}
			spans = append(spans, [2]int{n.Off, n.End})
		}
		for _, u := range bad {
			spans = append(spans, [2]int{u.Off, u.End})
		}
		for _, d := range ds {
			if d.Off < 0 || d.End > len(s) || d.Off >= d.End {
				t.Fatalf("dates(%q) gave %+v", s, d)
			}
		}
		slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
		for i := 1; i < len(spans); i++ {
			if spans[i][0] < spans[i-1][1] {
				t.Fatalf("numbers(%q): spans %v and %v overlap", masked, spans[i-1], spans[i])
			}
		}
	})
}
