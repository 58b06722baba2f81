package grade

import (
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalise maps the forms a generator may write for the same characters
// onto one, rune for rune, so that a position in the result is the same
// code-point position in the original: fullwidth digits and Latin
// letters (７５０, ＣＮＹ), fullwidth brackets and colon around citations
// (［travel-v2：3］), the fullwidth percent sign, the right single quote
// (don’t), the ideographic and no-break spaces, and the hyphen and en
// dash. The Chinese comma '，' is kept: it
// separates clauses, never digit groups.
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
		case '％':
			return '%'
		case '\u2019':
			return '\''
		case '\u3000', '\u00a0', '\u202f', '\u2009':
			return ' '
		}
		return r
	}, s)
}

// number is one amount found in a text, with its unit when it has one
// grade compares: a currency class or "%".
type number struct {
	Text  string // as written, e.g. "1,500.00", "CNY900", "1.5k", "七百五十"
	Value string // canonical: no separators, multipliers applied, no leading or trailing zeros
	Unit  string // a currency class such as "CNY", "%", or "" when none is written
	// Year: a bare whole number from 1900 to 2199 with no unit, which may
	// be a year as well as an amount.
	Year     bool
	Off, End int  // byte span in the text
	glued    bool // Text holds the currency too (CNY900)
}

// String is the number with its unit, for findings.
func (n number) String() string {
	switch n.Unit {
	case "":
		return n.Text
	case "%":
		return strings.TrimSuffix(n.Text, "%") + "%"
	}
	if n.glued {
		return n.Text
	}
	return n.Text + " " + n.Unit
}

// unreadable is a stretch of text that states an amount grade cannot
// interpret, so it cannot check it.
type unreadable struct {
	Text     string
	Off, End int
	Why      string
}

// currencies maps the ways a currency is written after or before an
// amount to its class. ¥ is read as CNY (it is also the yen sign) and $ as
// USD.
var currencies = []struct {
	text, class string
	word        bool // an ASCII word: must not run on into letters
}{
	{"人民币", "CNY", false}, {"元", "CNY", false}, {"块", "CNY", false}, {"¥", "CNY", false}, {"￥", "CNY", false},
	{"CNY", "CNY", true}, {"RMB", "CNY", true}, {"yuan", "CNY", true}, {"renminbi", "CNY", true},
	{"美元", "USD", false}, {"美金", "USD", false}, {"US$", "USD", false}, {"$", "USD", false}, {"USD", "USD", true}, {"dollars", "USD", true}, {"dollar", "USD", true},
	{"欧元", "EUR", false}, {"€", "EUR", false}, {"EUR", "EUR", true}, {"euros", "EUR", true}, {"euro", "EUR", true},
	{"英镑", "GBP", false}, {"£", "GBP", false}, {"GBP", "GBP", true}, {"pounds", "GBP", true},
	{"日元", "JPY", false}, {"JPY", "JPY", true}, {"yen", "JPY", true},
	{"港元", "HKD", false}, {"港币", "HKD", false}, {"HKD", "HKD", true},
}

// currencyAt returns the class of a currency written at the start of s,
// and its length in bytes.
func currencyAt(s string) (string, int) {
	for _, c := range currencies {
		if len(s) < len(c.text) || !strings.EqualFold(s[:len(c.text)], c.text) {
			continue
		}
		if c.word && isASCIILetter(firstRune(s[len(c.text):])) {
			continue
		}
		return c.class, len(c.text)
	}
	return "", 0
}

// currencyBefore returns the class of a currency written right before the
// end of s, with or without a space (¥750, USD 750, CNY900).
func currencyBefore(s string) string {
	s = strings.TrimRight(s, " ")
	for _, c := range currencies {
		if len(s) < len(c.text) || !strings.EqualFold(s[len(s)-len(c.text):], c.text) {
			continue
		}
		if c.word && isASCIILetter(lastRune(s[:len(s)-len(c.text)])) {
			continue
		}
		return c.class
	}
	return ""
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

func isASCIILetter(r rune) bool { return r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '_') }

// UnitClass is the currency class a unit declares, e.g. "CNY" for
// "CNY per room-night" and for "元/间夜", "%" for a percentage, or ""
// when it names none.
func UnitClass(unit string) string {
	for i := range unit {
		if c, _ := currencyAt(unit[i:]); c != "" {
			if i > 0 && isASCIILetter(lastRune(unit[:i])) {
				continue
			}
			return c
		}
	}
	if strings.Contains(unit, "%") || strings.Contains(strings.ToLower(unit), "percent") {
		return "%"
	}
	return ""
}

// arabicRe matches a number in digits: digit groups separated by commas
// (1,500), or plain digits, with an optional decimal part.
var arabicRe = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`)

// Chinese numerals: digits and the units they multiply.
const (
	zhDigits = "零〇一二两三四五六七八九"
	zhUnits  = "十百千万亿"
)

var zhRunRe = regexp.MustCompile(`[0-9零〇一二两三四五六七八九十百千万亿.]+`)

// multipliers are the suffixes an amount in digits may carry.
var multipliers = map[string]int64{"k": 1e3, "K": 1e3, "M": 1e6, "百": 100, "千": 1e3, "万": 1e4, "亿": 1e8}

// ordinals follow a number that counts, not an amount.
var ordinals = []string{"st", "nd", "rd", "th"}

// numbers lists the amounts of a normalised text, and the stretches that
// state an amount grade cannot read. It reads digits with digit-group
// commas and decimals (1,500.00), a currency on either side, with or
// without a space (¥750, CNY900, 900元, 750 CNY), the multipliers k, K, M
// and 百, 千, 万, 亿 (1.5k, 900K, 9百, 1.5万), Chinese numerals (七百五十,
// 两千), "百分之八十" and "80%" as percentages, and English number words
// next to a currency ("seven hundred fifty CNY"). A number written
// against letters is part of a name and left out (A-104, v2, travel-v1,
// 3rd), and so is a list marker at the start of a line ("1. ", "2) ").
// Spans in masked (dates, citations) are skipped.
func numbers(s string) ([]number, []unreadable) {
	var out []number
	var bad []unreadable
	taken := func(start, end int) bool {
		for _, n := range out {
			if start < n.End && n.Off < end {
				return true
			}
		}
		for _, u := range bad {
			if start < u.End && u.Off < end {
				return true
			}
		}
		return false
	}
	// Chinese numerals, alone or mixed with digits (9百, 7百5十).
	for _, m := range zhRunRe.FindAllStringIndex(s, -1) {
		n, problem, ok := zhNumber(s, m[0], m[1])
		switch {
		case problem != "":
			bad = append(bad, unreadable{Text: s[m[0]:m[1]], Off: m[0], End: m[1], Why: problem})
		case ok:
			out = append(out, n)
		}
	}
	for _, m := range arabicRe.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		if taken(start, end) {
			continue
		}
		n, ok := arabicNumber(s, start, end)
		if ok {
			out = append(out, n)
		}
	}
	ws, wbad := wordNumbers(s)
	out = append(out, ws...)
	bad = append(bad, wbad...)
	sortNumbers(out)
	return out, bad
}

// arabicNumber reads the digits s[start:end] with what is written around
// them, or reports that they are no amount (a name, an ordinal, a list
// marker).
func arabicNumber(s string, start, end int) (number, bool) {
	before, after := s[:start], s[end:]
	text := s[start:end]
	unit := currencyBefore(before)
	glued := unit != "" && !strings.HasSuffix(before, " ")
	if partOfNameBefore(before, glued) {
		return number{}, false
	}
	mult, spanEnd := int64(1), end
	if r := firstRune(after); r != utf8.RuneError {
		suffix := string(r)
		if f, ok := multipliers[suffix]; ok && (r >= utf8.RuneSelf || !isASCIILetter(firstRune(after[len(suffix):]))) {
			mult, spanEnd = f, end+len(suffix)
			after = after[len(suffix):]
		}
	}
	unit, ok := unitAfter(after, unit)
	if !ok {
		return number{}, false
	}
	if strings.HasPrefix(after, "%") {
		unit, spanEnd = "%", spanEnd+1
	}
	if listMarker(before, after) {
		return number{}, false
	}
	v := scaled(strings.ReplaceAll(text, ",", ""), mult)
	n := number{Text: s[start:spanEnd], Value: v, Unit: unit, Off: start, End: spanEnd}
	if glued {
		c := currencyText(before)
		n.Text, n.Off, n.glued = c+n.Text, start-len(c), true
	}
	n.Year = unit == "" && mult == 1 && len(text) == 4 && !strings.Contains(text, ".") && text >= "1900" && text < "2200"
	return n, true
}

// partOfNameBefore reports whether what is written before digits makes
// them part of a name or code: a letter (v2, travel-v1's 1) unless it is
// a currency glued to them, a letter and a dash, or a digit and a
// dot (the 3 of 1.2.3).
func partOfNameBefore(before string, glued bool) bool {
	if prev := lastRune(before); isASCIILetter(prev) && !glued {
		return true
	}
	if strings.HasSuffix(before, "-") && isASCIILetter(lastRune(before[:len(before)-1])) {
		return true
	}
	return strings.HasSuffix(before, ".") && len(before) > 1 && unicode.IsDigit(lastRune(before[:len(before)-1]))
}

// unitAfter is a number's unit given what follows its digits (and
// multiplier): a currency written after them when none came before, else
// unit. It reports false when a letter follows that makes the number an
// ordinal (1st) or part of a name (12B, 5x).
func unitAfter(after, unit string) (string, bool) {
	c, _ := currencyAt(strings.TrimLeft(after, " "))
	if c != "" && unit == "" {
		return c, true
	}
	if isASCIILetter(firstRune(after)) {
		for _, o := range ordinals {
			if strings.HasPrefix(strings.ToLower(after), o) {
				return "", false
			}
		}
		if c == "" {
			return "", false
		}
	}
	return unit, true
}

// listMarker reports whether digits alone at the start of a line, with
// "." or ")" after them, number a list item rather than state an amount.
func listMarker(before, after string) bool {
	line := before[strings.LastIndexByte(before, '\n')+1:]
	return strings.TrimSpace(line) == "" && (after == "." || after == ")" || strings.HasPrefix(after, ". ") || strings.HasPrefix(after, ") ") ||
		strings.HasPrefix(after, ".\n") || strings.HasPrefix(after, ")\n"))
}

// currencyText is the currency written at the end of s, as written.
func currencyText(s string) string {
	s = strings.TrimRight(s, " ")
	for _, c := range currencies {
		if len(s) >= len(c.text) && strings.EqualFold(s[len(s)-len(c.text):], c.text) {
			return s[len(s)-len(c.text):]
		}
	}
	return ""
}

// scaled is decimal text times mult, canonical.
func scaled(text string, mult int64) string {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return canonical(text)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	return ratText(r)
}

// ratText writes r as a canonical decimal.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return canonical(r.FloatString(12))
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

// zhNumber reads a run of digits and Chinese numerals s[start:end]. A run
// of digits alone is left to the arabic reader. A run of Chinese numerals
// is an amount when it has a unit after a digit (七百, 一万二, 十五), or
// when a currency follows it (一元); otherwise it is a word (一起, 万一,
// 千万). A run that mixes digits and units and does not parse is reported.
func zhNumber(s string, start, end int) (n number, problem string, ok bool) {
	run := strings.Trim(s[start:end], ".")
	start += strings.Index(s[start:end], run)
	end = start + len(run)
	if run == "" || !strings.ContainsAny(run, zhDigits+zhUnits) {
		return number{}, "", false
	}
	hasArabic := strings.ContainsAny(run, "0123456789")
	if hasArabic && !strings.ContainsAny(run, zhDigits) && strings.IndexAny(run, zhUnits) == len(strings.TrimRight(run, zhUnits)) {
		// Digits with one multiplier after them (9百, 1.5万) are the
		// arabic reader's; a run such as 7百5十 is read here.
		if strings.Count(run, "百")+strings.Count(run, "千")+strings.Count(run, "万")+strings.Count(run, "亿")+strings.Count(run, "十") <= 1 && !strings.HasSuffix(run, "十") {
			return number{}, "", false
		}
	}
	after := s[end:]
	pct := strings.HasSuffix(s[:start], "百分之")
	unit, _ := currencyAt(strings.TrimLeft(after, " "))
	if unit == "" {
		unit = currencyBefore(s[:start])
	}
	if pct {
		unit = "%"
		start -= len("百分之")
	}
	first, _ := utf8.DecodeRuneInString(run)
	leadsWithCoefficient := strings.ContainsRune(zhDigits+"0123456789", first) || first == '十'
	hasUnit := strings.ContainsAny(run, zhUnits)
	switch {
	case !hasArabic && !hasUnit && unit == "":
		return number{}, "", false // 一 in 一起, 统一
	case !hasArabic && utf8.RuneCountInString(run) == 1 && unit == "":
		return number{}, "", false // 十 in 十分
	case !hasArabic && !leadsWithCoefficient:
		return number{}, "", false // 万一, 千万
	}
	v, ok := parseZh(run)
	if !ok {
		if hasArabic {
			return number{}, "the digits and Chinese numerals do not make one number", false
		}
		return number{}, "", false
	}
	return number{Text: s[start:end], Value: ratText(v), Unit: unit, Off: start, End: end}, "", true
}

// parseZh reads Chinese numerals, with digits allowed as coefficients:
// 七百五十 750, 七百五 750, 一万二 12000, 两千 2000, 十五 15, 7百5十 750,
// 1.5万 15000.
func parseZh(run string) (*big.Rat, bool) {
	total := new(big.Rat)   // sections above 万 and 亿, done
	section := new(big.Rat) // below the current 万
	var digit *big.Rat      // a coefficient waiting for its unit
	lastUnit := int64(0)    // the last unit below 万, for 七百五
	rs := []rune(run)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r >= '0' && r <= '9' || r == '.':
			j := i
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == '.') {
				j++
			}
			v, ok := new(big.Rat).SetString(string(rs[i:j]))
			if !ok || digit != nil {
				return nil, false
			}
			digit = v
			i = j - 1
		case strings.ContainsRune(zhDigits, r):
			if digit != nil {
				return nil, false // 七五: digits one by one are not read
			}
			digit = new(big.Rat).SetInt64(zhDigitValue(r))
		default:
			u := zhUnitValue(r)
			if u >= 1e4 {
				if digit != nil {
					section.Add(section, digit)
					digit = nil
				}
				if section.Sign() == 0 {
					return nil, false
				}
				section.Mul(section, new(big.Rat).SetInt64(u))
				total.Add(total, section)
				section = new(big.Rat)
				lastUnit = u
				continue
			}
			if digit == nil {
				if r != '十' || section.Sign() != 0 {
					return nil, false
				}
				digit = new(big.Rat).SetInt64(1) // 十五
			}
			section.Add(section, new(big.Rat).Mul(digit, new(big.Rat).SetInt64(u)))
			digit = nil
			lastUnit = u
		}
	}
	if digit != nil {
		// A lone digit after a unit is the next unit down: 七百五 is 750,
		// 一万二 is 12000.
		if lastUnit >= 100 && digit.IsInt() && digit.Num().Int64() < 10 {
			digit.Mul(digit, new(big.Rat).SetInt64(lastUnit/10))
		}
		section.Add(section, digit)
	}
	total.Add(total, section)
	return total, true
}

func zhDigitValue(r rune) int64 {
	switch r {
	case '零', '〇':
		return 0
	case '两':
		return 2
	}
	return int64(strings.IndexRune("零一二三四五六七八九", r) / len("一"))
}

func zhUnitValue(r rune) int64 {
	switch r {
	case '十':
		return 10
	case '百':
		return 100
	case '千':
		return 1e3
	case '万':
		return 1e4
	}
	return 1e8
}

// English number words.
var (
	wordValues = map[string]int64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	wordScales = map[string]int64{"hundred": 100, "thousand": 1e3, "million": 1e6}
	wordRunRe  = regexp.MustCompile(`(?i)\b(?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million)(?:[\s-]+(?:and[\s-]+)?)?)+\b`)
)

// wordNumbers reads English number words written next to a currency
// ("seven hundred fifty CNY", "CNY seven hundred"): elsewhere a word such
// as "one" is seldom an amount. Words next to a currency that do not make
// a number are reported.
func wordNumbers(s string) ([]number, []unreadable) {
	var out []number
	var bad []unreadable
	for _, m := range wordRunRe.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		text := strings.TrimRight(s[start:end], " -\n\t")
		end = start + len(text)
		unit, _ := currencyAt(strings.TrimLeft(s[end:], " "))
		if unit == "" {
			unit = currencyBefore(s[:start])
		}
		if unit == "" && strings.HasPrefix(strings.ToLower(strings.TrimLeft(s[end:], " ")), "percent") {
			unit = "%"
		}
		if unit == "" {
			continue
		}
		v, ok := parseWords(text)
		if !ok {
			bad = append(bad, unreadable{Text: text, Off: start, End: end, Why: "the words do not make one number"})
			continue
		}
		out = append(out, number{Text: text, Value: v, Unit: unit, Off: start, End: end})
	}
	return out, bad
}

// parseWords reads "seven hundred (and) fifty", "twenty-five thousand".
func parseWords(text string) (string, bool) {
	var total, group int64
	seen := false
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == ' ' || r == '-' || r == '\n' || r == '\t' }) {
		switch {
		case w == "and":
		case wordValues[w] != 0 || w == "zero":
			group += wordValues[w]
			seen = true
		case wordScales[w] == 100:
			if group == 0 {
				return "", false
			}
			group *= 100
		case wordScales[w] != 0:
			if group == 0 {
				return "", false
			}
			total += group * wordScales[w]
			group = 0
		default:
			return "", false
		}
	}
	if !seen {
		return "", false
	}
	return new(big.Int).SetInt64(total + group).String(), true
}

// sortNumbers orders numbers by position.
func sortNumbers(ns []number) {
	slices.SortStableFunc(ns, func(a, b number) int { return a.Off - b.Off })
}
