package diag

import "testing"

func TestFormat(t *testing.T) {
	tests := []struct {
		path      string
		line, col int
		msg, hint string
		want      string
	}{
		{"a.md", 4, 1, "unknown key", "did you mean lang?", "a.md:4:1: unknown key; did you mean lang?"},
		{"a.md", 4, 0, "bad", "", "a.md:4: bad"},
		{"a.md", 0, 3, "bad", "", "a.md: bad"},
		{"", 0, 0, "no policy files", "point --corpus at them", "no policy files; point --corpus at them"},
	}
	for _, tt := range tests {
		if got := Format(tt.path, tt.line, tt.col, tt.msg, tt.hint); got != tt.want {
			t.Errorf("Format() = %q, want %q", got, tt.want)
		}
	}
}
