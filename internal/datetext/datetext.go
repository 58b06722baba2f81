// Package datetext finds the calendar dates a piece of prose names: a
// question's "on 2026-09-14", "14 September 2026", "March 2025" or
// "2026年9月14日". Each mention is a half-open interval of days, like a
// source's validity: a day is [d, d+1), a month [its first day, the next
// month's). A year alone ("in 2026") is not read: in a question about
// money it is as often an amount as a date; nor are dates in Chinese
// numerals (二〇二六年九月) or a day without its year ("on 14 September").
package datetext

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ka2/ka2/corpus"
)

// Mention is one date the text names.
type Mention struct {
	// Text is the mention as written; Offset is its byte offset in the
	// text given to Find (after full-width digits were read as ASCII, the
	// offset is still in the original text).
	Text   string
	Offset int
	// From and Until bound the days it names: From ≤ d < Until.
	From, Until corpus.Date
}

// Day reports whether the mention names a single day.
func (m Mention) Day() bool { return m.Until == m.From.AddDays(1) }

// Contains reports whether d is a day the mention names.
func (m Mention) Contains(d corpus.Date) bool { return !d.Before(m.From) && d.Before(m.Until) }

// String is the mention in ka2's form: 2026-09-14 for a day, 2026-09 for a
// month.
func (m Mention) String() string {
	if m.Day() {
		return m.From.String()
	}
	return m.From.String()[:7]
}

var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		months[name] = m
		months[name[:3]] = m
	}
	months["sept"] = time.September
}

const monthNames = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

// pattern is one way of writing a date.
type pattern struct {
	re *regexp.Regexp
	// y, m, d are submatch indexes; d is 0 for a month mention.
	y, m, d int
	named   bool // m is a month name
	han     bool // the pattern writes 年
}

var patterns = []pattern{
	// 2026-09-14, 2026/9/14, 2026.09.14
	{re: regexp.MustCompile(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`), y: 1, m: 2, d: 3},
	// 2026年9月14日 (or 号), 2026年9月
	{re: regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]`), y: 1, m: 2, d: 3, han: true},
	{re: regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月`), y: 1, m: 2, han: true},
	// 14 September 2026, 14th of Sept. 2026
	{re: regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthNames + `,?\s+(\d{4})\b`), y: 3, m: 2, d: 1, named: true},
	// September 14, 2026; Sep 14th 2026
	{re: regexp.MustCompile(`(?i)\b` + monthNames + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`), y: 3, m: 1, d: 2, named: true},
	// September 2026, March of 2025
	{re: regexp.MustCompile(`(?i)\b` + monthNames + `,?\s+(?:of\s+)?(\d{4})\b`), y: 2, m: 1, named: true},
}

// Find returns the dates text names, in the order written. Text that
// looks like a date but names none (2026-02-30) is not a mention. A span
// read as a day is not read again as a month.
//
// Every pattern needs a year of four digits, the 年 ones a 年 and the
// named ones a month's name, so Find runs only the patterns whose needs
// the text meets: the regular expressions (backtracking, one pass per
// pattern) were a third of the service's CPU per contract for a question
// with no year in it (BenchmarkHandlerContract, 53.8 µs an answer before;
// FuzzFind holds the result to running every pattern).
func Find(text string) []Mention {
	if !hasYear(text) {
		return nil
	}
	han, named := strings.Contains(text, "年"), namesMonth(text)
	return find(text, func(p pattern) bool { return (!p.han || han) && (!p.named || named) })
}

// hasYear reports whether text has four digits in a row, ASCII or full
// width.
func hasYear(text string) bool {
	run := 0
	for _, r := range text {
		if r >= '0' && r <= '9' || r >= '０' && r <= '９' {
			if run++; run == 4 {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// namesMonth reports whether text holds the first three letters of a
// month's name in any case, as the patterns' (?i) reads them: Unicode case
// folding also takes ſ (U+017F) for s.
func namesMonth(text string) bool {
	folded := strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r == 'ſ':
			return 's'
		}
		return r
	}, text)
	for _, m := range monthAbbrevs {
		if strings.Contains(folded, m) {
			return true
		}
	}
	return false
}

// monthAbbrevs are the months' first three letters, which every name
// monthNames accepts starts with.
var monthAbbrevs = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// find is Find over the patterns use accepts.
func find(text string, use func(pattern) bool) []Mention {
	ascii, offsets := asciiDigits(text)
	taken := make([]bool, len(ascii)+1)
	var out []Mention
	for _, p := range patterns {
		if !use(p) {
			continue
		}
		for _, loc := range p.re.FindAllStringSubmatchIndex(ascii, -1) {
			if overlaps(taken, loc[0], loc[1]) {
				continue
			}
			group := func(i int) string { return ascii[loc[2*i]:loc[2*i+1]] }
			y, _ := strconv.Atoi(group(p.y))
			var m time.Month
			if p.named {
				m = months[strings.ToLower(strings.TrimSuffix(group(p.m), "."))]
			} else {
				n, _ := strconv.Atoi(group(p.m))
				m = time.Month(n)
			}
			from, until, ok := interval(y, m, p, group)
			if !ok {
				continue
			}
			for i := loc[0]; i < loc[1]; i++ {
				taken[i] = true
			}
			start, end := offsets[loc[0]], offsets[loc[1]]
			out = append(out, Mention{Text: text[start:end], Offset: start, From: from, Until: until})
		}
	}
	slices.SortFunc(out, func(a, b Mention) int { return a.Offset - b.Offset })
	return out
}

// interval is the days a match of p names, if it names a real date.
func interval(y int, m time.Month, p pattern, group func(int) string) (from, until corpus.Date, ok bool) {
	if y < 1 || y > 9999 || m < time.January || m > time.December {
		return from, until, false
	}
	if p.d == 0 {
		next := time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
		return corpus.MustDate(y, m, 1), corpus.MustDate(next.Year(), next.Month(), 1), true
	}
	d, _ := strconv.Atoi(group(p.d))
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if d < 1 || t.Day() != d || t.Month() != m {
		return from, until, false
	}
	from = corpus.MustDate(y, m, d)
	return from, from.AddDays(1), true
}

func overlaps(taken []bool, start, end int) bool {
	for i := start; i < end; i++ {
		if taken[i] {
			return true
		}
	}
	return false
}

// asciiDigits returns text with full-width digits (０–９) as ASCII and,
// for each byte of the result, the byte offset in text it came from (one
// more entry for the end).
func asciiDigits(text string) (string, []int) {
	var b strings.Builder
	offsets := make([]int, 0, len(text)+1)
	for i, r := range text {
		if r >= '０' && r <= '９' {
			b.WriteByte(byte('0' + r - '０'))
			offsets = append(offsets, i)
			continue
		}
		n := b.Len()
		b.WriteRune(r)
		for k := n; k < b.Len(); k++ {
			offsets = append(offsets, i)
		}
	}
	offsets = append(offsets, len(text))
	return b.String(), offsets
}
