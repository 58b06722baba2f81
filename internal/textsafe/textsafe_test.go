package textsafe

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{`a\b`, `a\b`},
		{"住宿 750 元/晚", "住宿 750 元/晚"},
		{"v1\nforged row", `v1\nforged row`},
		{"v1\x1b[31mred", `v1\x1b[31mred`},
		{`a\b` + "\r", `a\\b\r`},
		{"tab\there", `tab\there`},
		{"\u0085 \u009b", `\u0085 \u009b`},
		{"\u2028\u2029", `\u2028\u2029`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"\u2066x\u2069", `\u2066x\u2069`},
		{"\u200fمرحبا", "\u200fمرحبا"},
		{"bad \xff byte", `bad \xff byte`},
		{"\x7f", `\x7f`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFirstUnsafe(t *testing.T) {
	tests := []struct {
		in    string
		wantI int
		wantR rune
	}{
		{"plain\ttext", -1, 0},
		{"v1\nx", 2, '\n'},
		{"é\x1b", 2, 0x1b},
		{"x\u202e", 1, 0x202e},
		{"x\u2028", 1, 0x2028},
		{"x\u0085", 1, 0x85},
		{"x\xff", 1, 0xFFFD},
		{"\uFFFD is a real character", -1, 0},
	}
	for _, tt := range tests {
		if i, r := FirstUnsafe(tt.in); i != tt.wantI || r != tt.wantR {
			t.Errorf("FirstUnsafe(%q) = %d, %U; want %d, %U", tt.in, i, r, tt.wantI, tt.wantR)
		}
	}
}
