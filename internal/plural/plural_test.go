package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0 code points"},
		{1, "1 code point"},
		{-1, "-1 code point"},
		{2, "2 code points"},
		{11, "11 code points"},
		{21, "21 code points"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, "code point", "code points"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
