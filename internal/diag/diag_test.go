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

func TestKeyOrder(t *testing.T) {
	// Each key sorts before the next: path, then line, column, code, message.
	keys := []Key{
		{Path: "a.md", Line: 9},
		{Path: "b.md", Line: 1, Col: 5},
		{Path: "b.md", Line: 2, Col: 1},
		{Path: "b.md", Line: 2, Col: 3, Code: "bad-date"},
		{Path: "b.md", Line: 2, Col: 3, Code: "unknown-key", Msg: "a"},
		{Path: "b.md", Line: 2, Col: 3, Code: "unknown-key", Msg: "b"},
	}
	for i := 0; i+1 < len(keys); i++ {
		if keys[i].Compare(keys[i+1]) >= 0 || keys[i+1].Compare(keys[i]) <= 0 {
			t.Errorf("%+v should sort before %+v", keys[i], keys[i+1])
		}
	}
	if keys[2].Compare(keys[2]) != 0 {
		t.Error("a key must equal itself")
	}
}
