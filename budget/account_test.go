package budget

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/provenance"
)

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		want   RangeErrors // nil: valid
	}{
		{"smallest", Limits{Capacity: 1}, nil},
		{"largest", Limits{Capacity: MaxCapacity, Reserve: MaxCapacity - 1, Wrapper: MaxCapacity - 1}, nil},
		{"zero capacity", Limits{}, RangeErrors{{Limit: LimitCapacity, Got: 0, Min: 1, Max: MaxCapacity}}},
		{"capacity over the maximum", Limits{Capacity: MaxCapacity + 1}, RangeErrors{{Limit: LimitCapacity, Got: MaxCapacity + 1, Min: 1, Max: MaxCapacity}}},
		{"reserve equal to capacity", Limits{Capacity: 1400, Reserve: 1400}, RangeErrors{{Limit: LimitReserve, Got: 1400, Min: 0, Max: 1399, Capacity: 1400}}},
		{"negative reserve", Limits{Capacity: 10, Reserve: -1}, RangeErrors{{Limit: LimitReserve, Got: -1, Min: 0, Max: 9, Capacity: 10}}},
		{"huge wrapper", Limits{Capacity: 1, Wrapper: math.MaxInt}, RangeErrors{{Limit: LimitWrapper, Got: math.MaxInt, Min: 0, Max: 0, Capacity: 1}}},
		{"most negative values", Limits{Capacity: math.MinInt, Reserve: math.MinInt, Wrapper: math.MinInt}, RangeErrors{
			{Limit: LimitCapacity, Got: math.MinInt, Min: 1, Max: MaxCapacity},
			{Limit: LimitReserve, Got: math.MinInt, Min: 0, Max: MaxCapacity - 1},
			{Limit: LimitWrapper, Got: math.MinInt, Min: 0, Max: MaxCapacity - 1},
		}},
		{"huge values", Limits{Capacity: math.MaxInt, Reserve: math.MaxInt, Wrapper: math.MaxInt}, RangeErrors{
			{Limit: LimitCapacity, Got: math.MaxInt, Min: 1, Max: MaxCapacity},
			{Limit: LimitReserve, Got: math.MaxInt, Min: 0, Max: MaxCapacity - 1},
			{Limit: LimitWrapper, Got: math.MaxInt, Min: 0, Max: MaxCapacity - 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.limits.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrLimitRange) {
				t.Fatalf("Validate() = %v, want ErrLimitRange", err)
			}
			var got RangeErrors
			if !errors.As(err, &got) {
				t.Fatalf("Validate() = %T, want RangeErrors", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
			var first *RangeError
			if !errors.As(err, &first) || first.Limit != tt.want[0].Limit {
				t.Errorf("errors.As(*RangeError) = %v, want the %s error", first, tt.want[0].Limit)
			}
		})
	}
}

// TestRangeErrorMessage pins the library's wording: the setting's name,
// the value and the range, and never a command-line flag.
func TestRangeErrorMessage(t *testing.T) {
	err := Limits{Capacity: 1400, Reserve: 1400, Wrapper: -3}.Validate()
	want := "reserve 1400 is out of range 0..1399: it must be smaller than the capacity 1400; wrapper -3 is out of range 0..1399: it must be smaller than the capacity 1400"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("Error() = %q names a flag", err)
	}
}

func TestAccountLargestLimits(t *testing.T) {
	l := Limits{Capacity: MaxCapacity, Reserve: MaxCapacity - 1, Wrapper: MaxCapacity - 1}
	r := Account(Codepoint, "abc", []Span{{Kind: provenance.KindEvidence, Start: 0, End: 3}}, l)
	want := Report{Counter: "codepoint", Limits: l,
		Parts: []Part{{Kind: provenance.KindEvidence, Cost: 3}, {Kind: KindOverhead, Cost: MaxCapacity - 1}},
		Total: MaxCapacity + 2, Fixed: MaxCapacity - 1, EvidenceBudget: 1 - (MaxCapacity - 1), EvidenceCost: 3,
		Left: 1 - (MaxCapacity - 1) - 3}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Account() mismatch (-want +got):\n%s", diff)
	}
	if r.Fits() || r.Shortfall() != MaxCapacity+1 {
		t.Errorf("Fits() = %v, Shortfall() = %d, want false, %d", r.Fits(), r.Shortfall(), MaxCapacity+1)
	}
}

func TestAccountPanicsOnInvalidLimits(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "wrapper") {
			t.Errorf("recover() = %v, want a panic naming the wrapper", r)
		}
	}()
	Account(Codepoint, "abc", nil, Limits{Capacity: 1, Wrapper: math.MaxInt})
}

func TestCheckedArithmetic(t *testing.T) {
	tests := []struct {
		name      string
		f         func(a, b int) int
		a, b      int
		want      int
		wantPanic bool
	}{
		{"add", add, 2, 3, 5, false},
		{"add negative", add, -2, -3, -5, false},
		{"add at the top", add, math.MaxInt - 1, 1, math.MaxInt, false},
		{"add overflow", add, math.MaxInt, 1, 0, true},
		{"add underflow", add, math.MinInt, -1, 0, true},
		{"sub", sub, 2, 3, -1, false},
		{"sub overflow", sub, math.MaxInt, -1, 0, true},
		{"sub underflow", sub, math.MinInt, 1, 0, true},
		{"sub of the most negative", sub, 0, math.MinInt, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r != nil) != tt.wantPanic {
					t.Errorf("panic = %v, want panic %v", r, tt.wantPanic)
				}
			}()
			if got := tt.f(tt.a, tt.b); got != tt.want {
				t.Errorf("= %d, want %d", got, tt.want)
			}
		})
	}
}

// FuzzAccountLimits checks that limits that pass Validate never make the
// accounting wrap around, and that any others are refused.
func FuzzAccountLimits(f *testing.F) {
	f.Add(1400, 200, 0, "policy text")
	f.Add(1, 0, math.MaxInt, "x")
	f.Add(MaxCapacity, MaxCapacity-1, MaxCapacity-1, "")
	f.Add(math.MinInt, math.MinInt, math.MinInt, "y")
	f.Add(math.MaxInt, -1, 7, "z")
	f.Fuzz(func(t *testing.T, capacity, reserve, wrapper int, text string) {
		l := Limits{Capacity: capacity, Reserve: reserve, Wrapper: wrapper}
		if err := l.Validate(); err != nil {
			if !errors.Is(err, ErrLimitRange) {
				t.Fatalf("Validate() = %v, want ErrLimitRange", err)
			}
			return
		}
		r := Account(Codepoint, text, []Span{{Kind: provenance.KindEvidence, Start: 0, End: len(text)}}, l)
		if r.Total < 0 || r.Total != r.Fixed+r.EvidenceCost || r.Left != l.Limit()-r.Total || r.Shortfall() < 0 {
			t.Fatalf("inconsistent report %+v", r)
		}
	})
}

// TestAccountBytes: accounting a text held as bytes gives Account's
// report, for every counter.
func TestAccountBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	limits := Limits{Capacity: 1000, Reserve: 100, Wrapper: 7}
	for _, n := range Names() {
		c, _ := Lookup(n)
		for _, text := range splitTexts {
			for k := range 4 {
				cuts := randomCuts(r, len(text), 2*k)
				spans := make([]Span, k)
				for i := range spans {
					spans[i] = Span{Kind: provenance.KindEvidence, Label: "e", Start: cuts[2*i], End: cuts[2*i+1]}
				}
				want := Account(c, text, spans, limits)
				if diff := cmp.Diff(want, AccountBytes(c, []byte(text), spans, limits)); diff != "" {
					t.Errorf("%s AccountBytes(%q, %v) mismatch (-Account +AccountBytes):\n%s", n, text, spans, diff)
				}
			}
		}
	}
}

// TestWordFit: a front end's words replace the library's for the fit of
// an OverError wherever the error's text went into a message, and only
// there.
func TestWordFit(t *testing.T) {
	over := &OverError{Report: Report{Counter: "codepoint", Limits: Limits{Capacity: 100, Reserve: 10}, Total: 120}, Fit: &Fit{Setting: "short", Total: 80, Limit: 90}}
	noFit := &OverError{Report: over.Report}
	flag := func(f Fit) string { return fmt.Sprintf("or pass --%s (%d of %d)", f.Setting, f.Total, f.Limit) }
	wrapped := fmt.Errorf("build lodging: %w", over)
	tests := []struct {
		name string
		msg  string
		err  error
		word func(Fit) string
		want string
	}{
		{"wrapped", wrapped.Error(), wrapped, flag, "build lodging: " + over.Summary() + "; or pass --short (80 of 90)"},
		{"bare", over.Error(), over, flag, over.Summary() + "; or pass --short (80 of 90)"},
		{"no fit", noFit.Error(), noFit, flag, noFit.Error()},
		{"not an over error", "disk full", errors.New("disk full"), flag, "disk full"},
		{"word declines", over.Error(), over, func(Fit) string { return "" }, over.Error()},
	}
	for _, tt := range tests {
		if got := WordFit(tt.msg, tt.err, tt.word); got != tt.want {
			t.Errorf("%s: WordFit() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAccountCounted: a text whose spans' costs are partly known gives
// AccountBytes's report for every counter, whichever spans are known and
// wherever the cuts fall (inside a rune too); the code-point counter
// takes the known costs as they are, the BPE counters ignore them.
func TestAccountCounted(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 7))
	limits := Limits{Capacity: 1000, Reserve: 100, Wrapper: 7}
	for _, n := range Names() {
		c, _ := Lookup(n)
		for _, text := range splitTexts {
			for k := range 40 {
				k %= 5
				cuts := randomCuts(r, len(text), 2*k)
				spans := make([]Span, k)
				for i := range spans {
					spans[i] = Span{Kind: provenance.KindEvidence, Label: "e", Start: cuts[2*i], End: cuts[2*i+1]}
				}
				want := AccountBytes(c, []byte(text), spans, limits)
				runes := make([]int, r.IntN(k+1))
				for i := range runes {
					runes[i] = -1
					if r.IntN(3) > 0 {
						runes[i] = want.Parts[i].Cost
					}
				}
				if diff := cmp.Diff(want, AccountCounted(c, []byte(text), spans, runes, limits)); diff != "" {
					t.Errorf("%s AccountCounted(%q, %v, %v) mismatch (-AccountBytes +AccountCounted):\n%s", n, text, spans, runes, diff)
				}
			}
		}
	}
	// The code-point counter reads no known span: a wrong count shows.
	text := []byte(`{"a":"ü","b":"x"}`)
	spans := []Span{{Kind: provenance.KindEvidence, Start: 5, End: 9}, {Kind: provenance.KindQuestion, Start: 13, End: 16}}
	got := AccountCounted(Codepoint, text, spans, []int{40}, limits)
	if got.Parts[0].Cost != 40 || got.Parts[1].Cost != 3 {
		t.Errorf("AccountCounted with a known cost of 40 gave parts %+v, want 40 and 3", got.Parts)
	}
	if got := AccountCounted(nameCounter(t, nameO200K), text, spans, []int{40}, limits); got.Parts[0].Cost == 40 {
		t.Errorf("o200k_base took the known code-point cost: parts %+v", got.Parts)
	}
}

func nameCounter(t *testing.T, name string) Counter {
	t.Helper()
	c, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FuzzAccountCounted: for any text and spans whose edges are at the
// start of a rune, the code-point counter given each span's code points
// counted alone (utf8.RuneCount of its bytes, as a contract's parts are
// counted once per load) reports what counting the text in full reports.
func FuzzAccountCounted(f *testing.F) {
	for _, s := range splitTexts {
		f.Add(s, uint64(1))
	}
	limits := Limits{Capacity: 1000, Reserve: 100, Wrapper: 3}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>1))
		k := r.IntN(4)
		cuts := randomCuts(r, len(text), 2*k)
		spans := make([]Span, k)
		runes := make([]int, k)
		for i := range spans {
			spans[i] = Span{Kind: provenance.KindEvidence, Label: "e", Start: cuts[2*i], End: cuts[2*i+1]}
			runes[i] = utf8.RuneCountInString(text[spans[i].Start:spans[i].End])
		}
		want := AccountBytes(Codepoint, []byte(text), spans, limits)
		if diff := cmp.Diff(want, AccountCounted(Codepoint, []byte(text), spans, runes, limits)); diff != "" && cutsOnRunes(text, cuts) {
			t.Errorf("AccountCounted(%q, %v, %v) mismatch (-AccountBytes +AccountCounted):\n%s", text, spans, runes, diff)
		}
	})
}

// cutsOnRunes reports whether every cut is at the start of a rune or the
// end of text: there a span's bytes counted alone are what the counter
// attributes to it.
func cutsOnRunes(text string, cuts []int) bool {
	for _, c := range cuts {
		if c < len(text) && !utf8.RuneStart(text[c]) {
			return false
		}
	}
	return true
}
