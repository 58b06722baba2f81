package lsp

import (
	"unicode/utf16"
	"unicode/utf8"
)

// utf16Col converts a 1-based column in code points on line to LSP's
// 0-based column in UTF-16 code units. A column past the end is the end.
func utf16Col(line string, col int) int {
	n, i := 0, 1
	for _, r := range line {
		if i >= col {
			break
		}
		n += utf16.RuneLen(r)
		i++
	}
	return n
}

// byteOffset converts LSP's 0-based UTF-16 column on line to a byte offset
// in line. A column inside a surrogate pair or past the end is clamped.
func byteOffset(line string, char int) int {
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1 // an invalid rune is one code unit (U+FFFD)
		}
		n += w
	}
	return len(line)
}

// runeColFromUTF16 converts LSP's 0-based UTF-16 column to ka2's 1-based
// column in code points.
func runeColFromUTF16(line string, char int) int {
	return utf8.RuneCountInString(line[:byteOffset(line, char)]) + 1
}
