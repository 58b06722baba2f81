package corpus

import (
	"iter"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// How a body line states a scope, a date, an amount or a unit: what lint's
// amount_without_unit, missing_scope_or_date and short_form_loses_scope
// look for, and what a short form must keep (see Source.ShortLoss). The
// lists are documented in those rules' Doc; keep them in step.

// unitWords are currency codes and words, matched as whole ASCII words.
var unitWords = wordSet("cny rmb usd eur gbp jpy hkd twd sgd aud cad chf krw inr mop yuan renminbi dollar dollars euro euros pound pounds cent cents yen")

// unitMarks are currency symbols and Chinese currency words, matched
// anywhere. "元旦" (New Year's Day) and "单元" (a unit of a building or a
// course) are removed first.
var unitMarks = []string{"¥", "￥", "$", "€", "£", "₩", "₹", "元", "人民币", "美元", "欧元", "英镑", "日元", "港币", "港元", "块钱"}

// moneyWords, moneyPrefixes and moneyMarks say a line is about money: whole
// ASCII words, ASCII word beginnings, and phrases or Chinese words matched
// anywhere.
var (
	moneyWords = wordSet("amount amounts limit limits cap caps capped allowance allowances cost costs price prices " +
		"fee fees fare fares rate rates pay pays paid payment payments budget budgets expense expenses " +
		"charge charges ceiling maximum max stipend stipends deposit deposits tip tips room-night room-nights")
	moneyPrefixes = []string{"reimburs", "spend", "refund", "subsid"}
	moneyMarks    = []string{"per diem", "per night", "per day", "up to",
		"标准", "上限", "限额", "金额", "报销", "费用", "价格", "补贴", "津贴", "支付", "付款", "预算", "最高", "不超过",
		"票价", "房费", "房价", "每间夜", "每晚", "每天", "每日", "每人", "收费", "押金", "退款"}
)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// asciiWords calls yield with each lowercased run of ASCII letters (and
// inner hyphens) in s, until yield returns true.
func asciiWords(s string, yield func(string) bool) bool {
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && (isASCIILetter(s[j]) || s[j] == '-' && j+1 < len(s) && isASCIILetter(s[j+1])) {
			j++
		}
		if yield(strings.ToLower(s[i:j])) {
			return true
		}
		i = j
	}
	return false
}

// aboutMoney reports whether line talks about money.
func aboutMoney(line string) bool {
	lower := strings.ToLower(line)
	if containsAny(lower, moneyMarks) {
		return true
	}
	return asciiWords(line, func(w string) bool {
		if moneyWords[w] {
			return true
		}
		for _, p := range moneyPrefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
		return false
	})
}

// countWords follow a number that counts or measures something other than
// money: "30 days", "300 km", "2 nights".
var countWords = map[string]bool{
	"day": true, "days": true, "night": true, "nights": true, "week": true, "weeks": true,
	"month": true, "months": true, "year": true, "years": true, "hour": true, "hours": true,
	"hr": true, "hrs": true, "minute": true, "minutes": true, "min": true, "mins": true,
	"second": true, "seconds": true, "km": true, "kilometre": true, "kilometres": true,
	"kilometer": true, "kilometers": true, "mile": true, "miles": true, "m": true, "kg": true,
	"people": true, "persons": true, "person": true, "employees": true, "guests": true,
	"rooms": true, "pages": true, "items": true, "times": true, "percent": true, "pct": true,
	"working": true, "business": true, "calendar": true, "am": true, "pm": true,
}

// countRunes start a Chinese counter or unit after a number: 天 (days), 晚
// (nights), 个月 (months), 公里 (km), 人 (people), 次 (times), …
const countRunes = "天日晚夜周月年个小分秒人次间张份公千米岁名位页项号点时倍折成%％"

// ordinalWords before a number make it a label, not an amount.
var ordinalWords = map[string]bool{
	"section": true, "article": true, "clause": true, "item": true, "line": true, "lines": true,
	"page": true, "room": true, "floor": true, "gate": true, "terminal": true, "no": true,
	"number": true, "version": true, "chapter": true, "part": true, "step": true, "level": true,
	"grade": true, "class": true, "building": true, "flight": true, "train": true, "order": true,
}

// yearWords before a four-digit number make it a year.
var yearWords = map[string]bool{
	"in": true, "from": true, "since": true, "until": true, "before": true, "after": true,
	"year": true, "fy": true, "of": true, "by": true, "to": true, "through": true,
	"during": true, "effective": true, "自": true, "从": true, "至": true, "于": true, "到": true,
}

// NamesUnit reports whether line names a currency.
func NamesUnit(line string) bool {
	if asciiWords(line, func(w string) bool { return unitWords[w] }) {
		return true
	}
	l := strings.NewReplacer("元旦", "", "单元", "").Replace(line)
	return containsAny(l, unitMarks)
}

// AmountWithoutUnit returns the first number in line that looks like a monetary
// amount without a unit, and its 1-based column; col is 0 when there is
// none.
func AmountWithoutUnit(line string) (amount string, col int) {
	money := -1 // aboutMoney(line), computed when first needed
	for c := range amountCandidates(line) {
		if !c.shaped {
			if money < 0 {
				money = 0
				if aboutMoney(line) {
					money = 1
				}
			}
			if money == 0 {
				continue
			}
		}
		if NamesUnit(line) {
			return "", 0
		}
		return c.num, utf8.RuneCountInString(line[:c.start]) + 1
	}
	return "", 0
}

// candidate is a number of a line that could be an amount.
type candidate struct {
	num    string
	start  int  // byte offset in the line
	shaped bool // thousands groups or a decimal part, which only money has
}

// amountCandidates yields, in the order written, the numbers of line that
// could be amounts: standalone, of two digits or more or with a decimal
// part (0-9 is a count), and not an ordinal, a count, a label or a year.
// Whether the line is about money is the caller's to decide.
func amountCandidates(line string) iter.Seq[candidate] {
	return func(yield func(candidate) bool) {
		if !strings.ContainsAny(line, "0123456789") {
			return
		}
		for i := 0; i < len(line); {
			if !isDigit(line[i]) {
				_, size := utf8.DecodeRuneInString(line[i:])
				i += size
				continue
			}
			start := i
			end, shaped := scanNumber(line, i)
			i = end
			if !standalone(line, start, end) {
				continue
			}
			num := line[start:end]
			if len(strings.TrimLeft(num, "0")) < 2 && !strings.Contains(num, ".") {
				continue
			}
			before, after := wordBefore(line[:start]), wordAfter(line[end:])
			if ordinalWords[before] || before == "第" || countWords[after] || startsCount(line[end:]) {
				continue
			}
			if isYear(num) && (yearWords[before] || strings.HasPrefix(strings.TrimLeft(line[end:], " "), "年")) {
				continue
			}
			if !yield(candidate{num, start, shaped}) {
				return
			}
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber reads digits with optional thousands groups (1,200) and a
// decimal part (99.50) from i. shaped reports either, which only money has.
func scanNumber(s string, i int) (end int, shaped bool) {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	for i+3 < len(s) && s[i] == ',' && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) && (i+4 == len(s) || !isDigit(s[i+4])) {
		i += 4
		shaped = true
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		shaped = true
	}
	return i, shaped
}

// standalone reports whether the number s[start:end] stands on its own: not
// part of an identifier (A-104, v2), a date or time (2026-01-01, 10:30), a
// range (1-3), a percentage or a measurement glued to its unit (5km).
func standalone(s string, start, end int) bool {
	if start > 0 {
		c := s[start-1]
		if c < utf8.RuneSelf && (unicode.IsLetter(rune(c)) || strings.IndexByte("-_/.:#+", c) >= 0) {
			return false
		}
	}
	if end < len(s) {
		c := s[end]
		if c < utf8.RuneSelf && (unicode.IsLetter(rune(c)) || c == '%' || c == '_') {
			return false
		}
		if strings.IndexByte("-/:.", c) >= 0 && end+1 < len(s) && isDigit(s[end+1]) {
			return false
		}
	}
	return true
}

// startsCount reports whether rest begins, after spaces, with a Chinese
// counter or a percent sign.
func startsCount(rest string) bool {
	rest = strings.TrimLeft(rest, " ")
	r, _ := utf8.DecodeRuneInString(rest)
	return r != utf8.RuneError && strings.ContainsRune(countRunes, r)
}

// wordBefore returns the lowercased ASCII word, or the one CJK rune, that
// ends just before the spaces before the end of s.
func wordBefore(s string) string {
	s = strings.TrimRight(s, " ")
	if s == "" {
		return ""
	}
	r, size := utf8.DecodeLastRuneInString(s)
	if r >= utf8.RuneSelf {
		return string(r)
	}
	j := len(s) - size
	for j > 0 && (isASCIILetter(s[j-1]) || s[j-1] == '.') {
		j--
	}
	return strings.TrimSuffix(strings.ToLower(s[j:]), ".")
}

// wordAfter returns the lowercased ASCII word after the spaces at the start
// of s.
func wordAfter(s string) string {
	s = strings.TrimLeft(s, " ")
	j := 0
	for j < len(s) && isASCIILetter(s[j]) {
		j++
	}
	return strings.ToLower(s[:j])
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isYear(num string) bool {
	if len(num) != 4 {
		return false
	}
	return num >= "1900" && num <= "2199"
}

// scopeLine says what a line that states the scope looks like (compiled on
// first use, as instructionRegexps).
var scopeLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:scope|applies\s+to|apply\s+to|applicable\s+to|covers|this\s+(?:policy|rule|notice|faq|guideline)\s+(?:covers|concerns|is\s+about))\b` +
		`|适用范围|适用于|适用对象|范围[:：]|本规定适用|本办法适用`)
})

// dateMarks are words that state an effective date.
var dateMarks = []string{"effective", "valid from", "valid until", "valid through", "takes effect", "in force",
	"applies from", "as of", "生效", "施行", "起执行", "起实行", "有效期", "执行日期"}

// StatesScope reports whether line states what a source covers ("Scope:",
// "applies to", "适用范围", …).
func StatesScope(line string) bool {
	// Most lines state no scope; on an ASCII line, where (?i) folds
	// ASCII letters only, scopeLine cannot match without one of these
	// words, and finding them is far cheaper than the backtracking
	// matcher. Other lines (the Chinese forms, and letters such as U+017F
	// that (?i) folds into ASCII ones) go to the regexp.
	if isASCII(line) && !containsAnyFold(line, scopeWords) {
		return false
	}
	return scopeLine().MatchString(line)
}

// scopeWords are words one of which every ASCII match of scopeLine holds.
var scopeWords = []string{"scope", "appl", "covers", "this"}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsAnyFold reports whether the ASCII string s holds one of the
// lowercase ASCII words, ignoring ASCII case, without allocating.
func containsAnyFold(s string, words []string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case for letters; other bytes only need not match a letter
		for _, w := range words {
			if c == w[0] && len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

// StatesDate reports whether line states a date: a calendar date written
// YYYY-MM-DD, YYYY/MM/DD or YYYY年M月, or a word in dateMarks.
func StatesDate(line string) bool {
	return containsAny(strings.ToLower(line), dateMarks) || hasDate(line)
}

func hasDate(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if (i > 0 && isDigit(s[i-1])) || !isDigit(s[i]) || !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
			continue
		}
		rest := s[i+4:]
		if len(rest) > 0 && (rest[0] == '-' || rest[0] == '/') {
			sep := rest[0]
			m := digits(rest[1:], 2)
			if m > 0 && len(rest) > 1+m && rest[1+m] == sep && digits(rest[2+m:], 2) > 0 {
				return true
			}
			continue
		}
		rest = strings.TrimLeft(rest, " ")
		if r, ok := strings.CutPrefix(rest, "年"); ok {
			r = strings.TrimLeft(r, " ")
			if m := digits(r, 2); m > 0 && strings.HasPrefix(strings.TrimLeft(r[m:], " "), "月") {
				return true
			}
		}
	}
	return false
}

// digits returns how many ASCII digits, at most max, s starts with.
func digits(s string, max int) int {
	n := 0
	for n < len(s) && n < max && isDigit(s[n]) {
		n++
	}
	return n
}

// MoneyAmounts returns the monetary amounts of line, with or without a
// unit, normalized (no thousands separators, no trailing decimal zeros), in
// the order written: what translation_mismatch compares across languages.
// A number counts as money when it is shaped like money (1,200 or 99.50)
// or the line talks about money or names a currency; counts, labels,
// years and dates are skipped as AmountWithoutUnit skips them.
func MoneyAmounts(line string) []string {
	if !strings.ContainsAny(line, "0123456789") {
		return nil
	}
	money := aboutMoney(line) || NamesUnit(line)
	var out []string
	for c := range amountCandidates(line) {
		if !c.shaped && !money {
			continue
		}
		num := strings.ReplaceAll(c.num, ",", "")
		if strings.Contains(num, ".") {
			num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
		}
		out = append(out, num)
	}
	return out
}

// currencyNames maps the ways of writing a currency to its ISO code, longest
// first where one contains another (美元 before 元).
var currencyNames = []struct{ name, code string }{
	{"人民币", "CNY"}, {"美元", "USD"}, {"欧元", "EUR"}, {"英镑", "GBP"}, {"日元", "JPY"}, {"港币", "HKD"}, {"港元", "HKD"},
	{"块钱", "CNY"}, {"元", "CNY"}, {"¥", "CNY"}, {"￥", "CNY"}, {"$", "USD"}, {"€", "EUR"}, {"£", "GBP"},
}

// currencyWords maps ASCII currency words to ISO codes.
var currencyWords = map[string]string{
	"cny": "CNY", "rmb": "CNY", "yuan": "CNY", "renminbi": "CNY",
	"usd": "USD", "dollar": "USD", "dollars": "USD", "eur": "EUR", "euro": "EUR", "euros": "EUR",
	"gbp": "GBP", "pound": "GBP", "pounds": "GBP", "jpy": "JPY", "yen": "JPY", "hkd": "HKD",
}

// Currencies adds the ISO codes of the currencies line names to set.
func Currencies(line string, set map[string]bool) {
	asciiWords(line, func(w string) bool {
		if c := currencyWords[w]; c != "" {
			set[c] = true
		}
		return false
	})
	l := strings.NewReplacer("元旦", "", "单元", "").Replace(line)
	for _, c := range currencyNames {
		if strings.Contains(l, c.name) {
			set[c.code] = true
			l = strings.ReplaceAll(l, c.name, "")
		}
	}
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
