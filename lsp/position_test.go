package lsp

import "testing"

func TestUTF16Columns(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		col       int // 1-based code points
		wantChar  int // 0-based UTF-16
		roundTrip bool
	}{
		{"ascii", "valid_from: 2026-01-01", 13, 12, true},
		{"cjk is one unit each", "适用范围：住宿 750 元", 8, 7, true},
		{"emoji is two units", "😀 limit 750", 3, 3, true},
		{"after two emoji", "😀😀x", 3, 4, true},
		{"past the end", "abc", 10, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := utf16Col(tt.line, tt.col); got != tt.wantChar {
				t.Errorf("utf16Col(%q, %d) = %d, want %d", tt.line, tt.col, got, tt.wantChar)
			}
			if tt.roundTrip {
				if got := runeColFromUTF16(tt.line, tt.wantChar); got != tt.col {
					t.Errorf("runeColFromUTF16(%q, %d) = %d, want %d", tt.line, tt.wantChar, got, tt.col)
				}
			}
		})
	}
	// A column in the middle of a surrogate pair is clamped to the rune's
	// end, never to a byte inside it.
	if got := byteOffset("😀x", 1); got != 4 {
		t.Errorf("byteOffset inside a surrogate pair = %d, want 4", got)
	}
}
