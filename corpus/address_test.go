package corpus_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

var parseRangeTests = []struct {
	name    string
	in      string
	want    corpus.Range
	wantErr bool
}{
	{name: "range", in: "1-3", want: corpus.Range{Start: 1, End: 3}},
	{name: "single line", in: "2", want: corpus.Range{Start: 2, End: 2}},
	{name: "one-line range", in: "4-4", want: corpus.Range{Start: 4, End: 4}},
	{name: "several digits", in: "10-120", want: corpus.Range{Start: 10, End: 120}},
	{name: "largest line number", in: "999999999", want: corpus.Range{Start: 999999999, End: 999999999}},
	{name: "reversed", in: "3-1", wantErr: true},
	{name: "line zero", in: "0-2", wantErr: true},
	{name: "only zero", in: "0", wantErr: true},
	{name: "leading zero", in: "01-3", wantErr: true},
	{name: "leading zero at the end", in: "1-03", wantErr: true},
	{name: "no end", in: "1-", wantErr: true},
	{name: "no start", in: "-3", wantErr: true},
	{name: "empty", in: "", wantErr: true},
	{name: "three parts", in: "1-2-3", wantErr: true},
	{name: "space", in: " 1-3", wantErr: true},
	{name: "space around the dash", in: "1 - 3", wantErr: true},
	{name: "plus sign", in: "+1-3", wantErr: true},
	{name: "en dash", in: "1–3", wantErr: true},
	{name: "colon", in: "1:3", wantErr: true},
	{name: "too many digits", in: "1000000000", wantErr: true},
	{name: "too many digits at the end", in: "1-1000000000", wantErr: true},
}

func TestParseRange(t *testing.T) {
	for _, tt := range parseRangeTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.ParseRange(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRange(%q) error = %v, wantErr %t", tt.in, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, corpus.ErrBadRange) {
				t.Errorf("ParseRange(%q) error = %v, want ErrBadRange", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRange(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		name    string
		r       corpus.Range
		wantStr string
		wantLen int
	}{
		{name: "three lines", r: corpus.Range{Start: 1, End: 3}, wantStr: "1-3", wantLen: 3},
		{name: "one line", r: corpus.Range{Start: 5, End: 5}, wantStr: "5-5", wantLen: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.String(); got != tt.wantStr {
				t.Errorf("String() = %q, want %q", got, tt.wantStr)
			}
			if got := tt.r.Len(); got != tt.wantLen {
				t.Errorf("Len() = %d, want %d", got, tt.wantLen)
			}
		})
	}
}

var parseAddressTests = []struct {
	name    string
	in      string
	want    corpus.Address
	wantStr string // String() of the result
	wantErr bool
}{
	{name: "range", in: "travel-v2:1-3", want: corpus.Address{SourceID: "travel-v2", Range: corpus.Range{Start: 1, End: 3}}, wantStr: "travel-v2:1-3"},
	{name: "citation brackets", in: "[travel-v2:1-3]", want: corpus.Address{SourceID: "travel-v2", Range: corpus.Range{Start: 1, End: 3}}, wantStr: "travel-v2:1-3"},
	{name: "single line", in: "travel-v1:2", want: corpus.Address{SourceID: "travel-v1", Range: corpus.Range{Start: 2, End: 2}}, wantStr: "travel-v1:2-2"},
	{name: "whole body", in: "rail-faq-v1", want: corpus.Address{SourceID: "rail-faq-v1"}, wantStr: "rail-faq-v1"},
	{name: "whole body in brackets", in: "[rail-faq-v1]", want: corpus.Address{SourceID: "rail-faq-v1"}, wantStr: "rail-faq-v1"},
	{name: "dots and underscores", in: "policy.meals_v1:4-9", want: corpus.Address{SourceID: "policy.meals_v1", Range: corpus.Range{Start: 4, End: 9}}, wantStr: "policy.meals_v1:4-9"},
	{name: "uppercase id", in: "Travel-v2:1-3", wantErr: true},
	{name: "space in id", in: "travel v2:1", wantErr: true},
	{name: "space before colon", in: "travel-v2 :1", wantErr: true},
	{name: "no id", in: ":1-3", wantErr: true},
	{name: "empty range", in: "travel-v2:", wantErr: true},
	{name: "line zero", in: "travel-v2:0", wantErr: true},
	{name: "reversed range", in: "travel-v2:3-1", wantErr: true},
	{name: "two colons", in: "travel-v2:1:3", wantErr: true},
	{name: "open bracket only", in: "[travel-v2:1-3", wantErr: true},
	{name: "close bracket only", in: "travel-v2:1-3]", wantErr: true},
	{name: "double brackets", in: "[[travel-v2:1-3]]", wantErr: true},
	{name: "empty brackets", in: "[]", wantErr: true},
	{name: "empty", in: "", wantErr: true},
	{name: "non-ASCII id", in: "差旅-v2:1-3", wantErr: true},
}

func TestParseAddress(t *testing.T) {
	for _, tt := range parseAddressTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.ParseAddress(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseAddress(%q) error = %v, wantErr %t", tt.in, err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, corpus.ErrBadAddress) {
					t.Errorf("ParseAddress(%q) error = %v, want ErrBadAddress", tt.in, err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseAddress(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(tt.wantStr, got.String()); diff != "" {
				t.Errorf("ParseAddress(%q).String() mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseAddressMessage(t *testing.T) {
	_, err := corpus.ParseAddress("travel-v2:3-1")
	want := `"travel-v2:3-1": not an address: write SOURCE_ID:START-END, e.g. travel-v2:1-3`
	if err == nil {
		t.Fatal("ParseAddress() succeeded, want an error")
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("ParseAddress() error mismatch (-want +got):\n%s", diff)
	}
}

func TestValidSourceID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"travel-v2", true},
		{"rail.faq_v1", true},
		{"0", true},
		{"a-", true},
		{"", false},
		{"Travel-v2", false},
		{"travel v2", false},
		{"travel/v2", false},
		{"travel:v2", false},
		{"travel-v2\n", false},
		{"差旅", false},
	}
	for _, tt := range tests {
		if got := corpus.ValidSourceID(tt.id); got != tt.want {
			t.Errorf("ValidSourceID(%q) = %t, want %t", tt.id, got, tt.want)
		}
	}
}

// FuzzParseRange checks that an accepted range is well formed and that its
// String form parses back to it.
func FuzzParseRange(f *testing.F) {
	for _, tt := range parseRangeTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := corpus.ParseRange(s)
		if err != nil {
			if !errors.Is(err, corpus.ErrBadRange) || r != (corpus.Range{}) {
				t.Fatalf("ParseRange(%q) = %v, %v", s, r, err)
			}
			return
		}
		if r.Start < 1 || r.Start > r.End || r.Len() < 1 {
			t.Fatalf("ParseRange(%q) = %v, not 1 ≤ start ≤ end", s, r)
		}
		back, err := corpus.ParseRange(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRange(%q).String() = %q parses to %v, %v", s, r.String(), back, err)
		}
	})
}

// FuzzParseAddress checks that an accepted address prints in a form that
// parses back to the same address.
func FuzzParseAddress(f *testing.F) {
	for _, tt := range parseAddressTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := corpus.ParseAddress(s)
		if err != nil {
			if !errors.Is(err, corpus.ErrBadAddress) || a != (corpus.Address{}) {
				t.Fatalf("ParseAddress(%q) = %v, %v", s, a, err)
			}
			return
		}
		if !corpus.ValidSourceID(a.SourceID) {
			t.Fatalf("ParseAddress(%q) gave source_id %q", s, a.SourceID)
		}
		if a.Range != (corpus.Range{}) && (a.Range.Start < 1 || a.Range.Start > a.Range.End) {
			t.Fatalf("ParseAddress(%q) gave range %v", s, a.Range)
		}
		back, err := corpus.ParseAddress(a.String())
		if err != nil || back != a {
			t.Fatalf("ParseAddress(%q).String() = %q parses to %v, %v", s, a.String(), back, err)
		}
		if cited, err := corpus.ParseAddress("[" + a.String() + "]"); err != nil || cited != a {
			t.Fatalf("citation [%s] parses to %v, %v", a, cited, err)
		}
	})
}
