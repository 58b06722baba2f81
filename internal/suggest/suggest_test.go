package suggest

import "testing"

func TestClosest(t *testing.T) {
	keys := []string{"Out", "source_id", "version", "subjects", "subject", "valid_from", "valid_until", "supersedes", "lang", "unit", "cite"}
	tests := []struct {
		in   string
		want string
	}{
		{"valid_untill", "valid_until"},
		{"valid-from", "valid_from"},
		{"Source_ID", "source_id"},
		{"lnag", "lang"},
		{"supercedes", "supersedes"},
		{"subjet", "subject"},
		{"approved_by_the_finance_team", ""},
		{"x", ""},
		{"Prt", ""}, // two edits of three letters is not a typo
		{"", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, keys); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Ties go to the first candidate in sort order, whatever the input order.
	if got := Closest("ab", []string{"bb", "aa"}); got != "aa" {
		t.Errorf("Closest tie = %q, want aa", got)
	}
}

func TestOneOf(t *testing.T) {
	tests := []struct {
		in    []string
		limit int
		want  string
	}{
		{nil, 8, ""},
		{[]string{"a"}, 8, "a"},
		{[]string{"a", "b"}, 8, "a or b"},
		{[]string{"a", "b", "c"}, 8, "a, b or c"},
		{[]string{"a", "b", "c"}, 2, "a, b or 1 more"},
	}
	for _, tt := range tests {
		if got := OneOf(tt.in, tt.limit); got != tt.want {
			t.Errorf("OneOf(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}
