package grade

import (
	"regexp"
	"unicode/utf8"
)

// citation is one bracketed address in an answer.
type citation struct {
	Text     string // as written, e.g. "[travel-v2:1-3]"
	SourceID string
	Start    int  // first line; 0 when the range does not parse
	End      int  // last line
	Parsed   bool // the range is N or N-M with 1 ≤ N ≤ M
	Off, Len int  // byte span in the normalised answer
}

// citationRe matches what is meant as a citation: a bracketed source id
// (tool:NAME and memory:NAME included), a colon and a range. Brackets
// that do not start with a source id and a colon ("[note]") are prose.
var citationRe = regexp.MustCompile(`\[\s*((?:(?:tool|memory):)?[A-Za-z0-9][A-Za-z0-9._-]*)\s*:\s*([^\[\]\n]*?)\s*\]`)

var rangeRe = regexp.MustCompile(`^(\d+)(?:\s*-\s*(\d+))?$`)

func citations(s string) []citation {
	var out []citation
	for _, m := range citationRe.FindAllStringSubmatchIndex(s, -1) {
		c := citation{Text: s[m[0]:m[1]], SourceID: s[m[2]:m[3]], Off: m[0], Len: m[1] - m[0]}
		if r := rangeRe.FindStringSubmatch(s[m[4]:m[5]]); r != nil {
			c.Start = atoi(r[1])
			c.End = c.Start
			if r[2] != "" {
				c.End = atoi(r[2])
			}
			c.Parsed = c.Start >= 1 && c.End >= c.Start
		}
		out = append(out, c)
	}
	return out
}

// atoi reads a run of ASCII digits, saturating instead of overflowing.
func atoi(s string) int {
	n := 0
	for _, r := range s {
		if n > 1<<30 {
			return n
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// sentence is a stretch of the answer that ends at . ! ? ; (or their
// fullwidth forms) or a line break.
type sentence struct {
	Start, End int // byte span in the normalised answer
}

// sentences splits s. A '.' ends a sentence only before a space, a line
// break or the end (so "750.00" and "travel-v2.md" stay whole); nothing
// inside brackets ends one.
func sentences(s string) []sentence {
	var out []sentence
	start, depth := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
			continue
		case ']':
			depth = max(0, depth-1)
			continue
		}
		if depth > 0 && r != '\n' {
			continue
		}
		end := false
		switch r {
		case '\n', '!', '?', ';', '。', '！', '？', '；':
			end = true
		case '.':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			end = i+1 == len(s) || next == ' ' || next == '\n' || next == '\t'
		}
		if end {
			depth = 0
			stop := i + utf8.RuneLen(r)
			out = append(out, sentence{start, stop})
			start = stop
		}
	}
	if start < len(s) {
		out = append(out, sentence{start, len(s)})
	}
	return out
}
