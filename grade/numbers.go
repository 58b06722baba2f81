package grade

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalise maps the forms a generator may write for the same characters
// onto one, rune for rune, so that a position in the result is the same
// code-point position in the original: fullwidth digits and Latin
// letters (７５０, ＣＮＹ), fullwidth brackets and colon around citations
// (［travel-v2：3］), the ideographic and no-break spaces, and the hyphen
// and en dash. The Chinese comma '，' is kept: it separates clauses, never
// digit groups.
func normalise(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '０' && r <= '９':
			return '0' + (r - '０')
		case r >= 'Ａ' && r <= 'Ｚ':
			return 'A' + (r - 'Ａ')
		case r >= 'ａ' && r <= 'ｚ':
			return 'a' + (r - 'ａ')
		}
		switch r {
		case '［':
			return '['
		case '］':
			return ']'
		case '：':
			return ':'
		case '－', '\u2010', '\u2011', '\u2012', '\u2013':
			return '-'
		case '．':
			return '.'
		case '\u3000', '\u00a0', '\u202f', '\u2009':
			return ' '
		}
		return r
	}, s)
}

// number is one number found in a text, with its unit when it has a
// currency unit.
type number struct {
	Text  string // as written, e.g. "1,500.00"
	Value string // canonical: no separators, no leading zeros, no trailing fractional zeros
	Unit  string // a currency class such as "CNY", or "" when none is written
	Off   int    // byte offset in the text
}

// String is the number with its unit, for findings.
func (n number) String() string {
	if n.Unit == "" {
		return n.Text
	}
	return n.Text + " " + n.Unit
}

// numberRe matches a number: digit groups separated by commas
// (1,500), or plain digits, with an optional decimal part.
var numberRe = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)

// currencies maps the ways a currency is written after or before an
// amount to its class. ¥ is read as CNY (it is also the yen sign) and $ as
// USD.
var currencies = []struct {
	text, class string
	word        bool // an ASCII word: must not run on into letters
}{
	{"人民币", "CNY", false}, {"元", "CNY", false}, {"块", "CNY", false}, {"¥", "CNY", false}, {"￥", "CNY", false},
	{"CNY", "CNY", true}, {"RMB", "CNY", true}, {"yuan", "CNY", true}, {"renminbi", "CNY", true},
	{"美元", "USD", false}, {"US$", "USD", false}, {"$", "USD", false}, {"USD", "USD", true}, {"dollars", "USD", true}, {"dollar", "USD", true},
	{"欧元", "EUR", false}, {"€", "EUR", false}, {"EUR", "EUR", true}, {"euros", "EUR", true}, {"euro", "EUR", true},
	{"英镑", "GBP", false}, {"£", "GBP", false}, {"GBP", "GBP", true}, {"pounds", "GBP", true},
	{"日元", "JPY", false}, {"JPY", "JPY", true}, {"yen", "JPY", true},
	{"港元", "HKD", false}, {"港币", "HKD", false}, {"HKD", "HKD", true},
}

// currencyAt returns the class of a currency written at the start of s.
func currencyAt(s string) string {
	for _, c := range currencies {
		if len(s) < len(c.text) || !strings.EqualFold(s[:len(c.text)], c.text) {
			continue
		}
		if c.word {
			if r, _ := utf8.DecodeRuneInString(s[len(c.text):]); unicode.IsLetter(r) && r < utf8.RuneSelf {
				continue
			}
		}
		return c.class
	}
	return ""
}

// currencyBefore returns the class of a currency written right before the
// end of s (¥750, USD 750).
func currencyBefore(s string) string {
	s = strings.TrimRight(s, " ")
	for _, c := range currencies {
		if len(s) < len(c.text) || !strings.EqualFold(s[len(s)-len(c.text):], c.text) {
			continue
		}
		if c.word {
			if r, _ := utf8.DecodeLastRuneInString(s[:len(s)-len(c.text)]); unicode.IsLetter(r) && r < utf8.RuneSelf {
				continue
			}
		}
		return c.class
	}
	return ""
}

// UnitClass is the currency class a unit declares, e.g. "CNY" for
// "CNY per room-night" and for "元/间夜", or "" when it names none.
func UnitClass(unit string) string {
	for i := range unit {
		if c := currencyAt(unit[i:]); c != "" {
			if i > 0 {
				r, _ := utf8.DecodeLastRuneInString(unit[:i])
				if r < utf8.RuneSelf && unicode.IsLetter(r) {
					continue
				}
			}
			return c
		}
	}
	return ""
}

// numbers lists the numbers of a normalised text. A number written
// against letters is part of a name and left out (A-104, v2, travel-v1),
// and so is a list marker at the start of a line ("1. ", "2) ").
func numbers(s string) []number {
	var out []number
	for _, m := range numberRe.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		before := s[:start]
		if r, _ := utf8.DecodeLastRuneInString(before); r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '_') {
			continue
		}
		if strings.HasSuffix(before, "-") {
			if r, _ := utf8.DecodeLastRuneInString(before[:len(before)-1]); r < utf8.RuneSelf && unicode.IsLetter(r) {
				continue
			}
		}
		if r, _ := utf8.DecodeRuneInString(s[end:]); r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '_') && currencyAt(s[end:]) == "" {
			continue
		}
		line := before[strings.LastIndexByte(before, '\n')+1:]
		if strings.TrimSpace(line) == "" && (strings.HasPrefix(s[end:], ". ") || strings.HasPrefix(s[end:], ") ")) {
			continue
		}
		text := s[start:end]
		unit := currencyAt(strings.TrimLeft(s[end:], " "))
		if unit == "" {
			unit = currencyBefore(before)
		}
		out = append(out, number{Text: text, Value: canonical(text), Unit: unit, Off: start})
	}
	return out
}

// canonical writes a number without digit-group commas, leading zeros or
// trailing fractional zeros: "1,500.00" → "1500", "01" → "1", "0.50" →
// "0.5".
func canonical(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	whole, frac, _ := strings.Cut(s, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

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
