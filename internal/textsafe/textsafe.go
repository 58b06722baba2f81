// Package textsafe decides which characters of file-supplied text may
// reach a terminal as they are: control characters, line and paragraph
// separators and bidirectional overrides are refused in values (Unsafe)
// and escaped in text output (Escape), so that a value can neither forge
// a line of a report nor send an escape sequence to the terminal.
package textsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// IsUnsafe reports whether r may not appear in a value that is printed as
// text: the C0 controls except tab, DEL, the C1 controls, U+2028 and
// U+2029 (line and paragraph separators, which some terminals and
// editors break lines at), and the bidirectional embeddings, overrides
// and isolates U+202A–U+202E and U+2066–U+2069, which reorder what
// follows them on screen ("Trojan Source", CVE-2021-42574). The plain
// direction marks U+200E, U+200F and U+061C stay allowed: they change no
// order beyond their own place and right-to-left text needs them.
func IsUnsafe(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, 0x7F <= r && r <= 0x9F:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// FirstUnsafe returns the first unsafe character of s and its byte
// offset, or -1 when there is none. An invalid UTF-8 byte counts as
// unsafe and is returned as utf8.RuneError.
func FirstUnsafe(s string) (i int, r rune) {
	for i, r := range s {
		if IsUnsafe(r) {
			return i, r
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i, r
			}
		}
	}
	return -1, 0
}

// Escape returns s with every unsafe character, tab and invalid byte
// written as a Go escape (\n, \x1b, \u202e), and a backslash doubled
// when s has anything to escape, so the result is one line that shows
// what the text holds. Text without such characters is returned as it
// is.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t' || IsUnsafe(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i, r := range s {
		if r == '\t' || IsUnsafe(r) {
			return true
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return true
			}
		}
	}
	return false
}
