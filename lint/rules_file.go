package lint

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// The rules that look at one file at a time.

// AmountWithoutUnit is the ID of the rule whose findings an editor can
// fix with a unit the corpus declares elsewhere.
const AmountWithoutUnit = "amount_without_unit"

var ruleAmountWithoutUnit = &Rule{
	ID:       AmountWithoutUnit,
	Severity: diag.SeverityWarning,
	Summary:  "a body line states an amount with no unit in the line or the front matter",
	Doc: `A quote must never lose its unit: "the limit is 750" means nothing without "CNY
per room-night". The rule flags a body line that contains a number that looks
like a monetary amount when neither that line nor the front matter's unit key
names a unit.

A number looks like an amount when it has at least two digits or a decimal
part, is not part of a date, a time, an identifier (A-104, v2, travel-v1) or a
line range, is not followed by a unit of time, distance or count (30 days,
300 km, 3 晚, 20%), and either the line talks about money (limit, allowance,
fee, reimburse, 标准, 上限, 报销, 费用, …) or the number is written like money
(1,200 or 99.50). A four-digit number from 1900 to 2199 after words such as
"in", "from" or "since", or followed by 年, is taken for a year. Units are
currency codes (CNY, RMB, USD, EUR, …), symbols (¥ ￥ $ € £) and currency
words (yuan, dollars, 元, 人民币, 美元, …).

Fix it by adding unit: (e.g. "CNY per room-night") to the front matter, or by
writing the unit next to the amount.`,
	file: checkAmountWithoutUnit,
}

var ruleMissingScopeOrDate = &Rule{
	ID:       "missing_scope_or_date",
	Severity: diag.SeverityWarning,
	Summary:  "the body has no line stating its scope, or none stating its effective date",
	Doc: `Evidence is quoted line by line, so the body itself should say what it covers and
from when: a quote must never lose its scope or date. The rule wants one line
that states the scope ("Scope:", "applies to", "适用范围", "适用于", …) and one
that states the effective date (a date written YYYY-MM-DD, YYYY/MM/DD or
YYYY年M月, or words such as "effective", "valid from", "生效", "施行").`,
	file: checkMissingScopeOrDate,
}

var ruleShortFormLosesScope = &Rule{
	ID:       string(corpus.CodeShortLosesScope),
	Severity: diag.SeverityError,
	Summary:  "the cite ranges leave out every line that states the source's scope, or the unit of an amount they quote",
	Doc: `build --short quotes only a source's cite ranges, and refuses a source whose
cite ranges lose what this rule looks for: shortening never loses scope, date
or unit. Each record carries the source's validity and its unit: key, but
where the text applies lives only in the body, and so does the unit of an
amount when the front matter has none: "Ceiling: 750." says neither where,
when nor in what.

The scope is lost when the body has a line that states it ("Scope:",
"applies to", "适用范围", "适用于", …, as missing_scope_or_date looks for) and
the cite ranges keep none of those lines nor a Markdown heading ("# …"). A
unit is lost when the front matter has no unit:, a cited line states an amount
with no unit (as amount_without_unit looks for), no cited line names a unit,
and a line left out does. A body that never states its scope or never names a
unit loses nothing by shortening; missing_scope_or_date and amount_without_unit
report it. The finding names the lines and gives a cite list that adds the
first scope line and the first unit line.`,
	file: checkShortFormLosesScope,
}

var ruleInstructionText = &Rule{
	ID:       "instruction_text",
	Severity: diag.SeverityWarning,
	Summary:  "a body line reads like an instruction to the assistant or a request for an action",
	Doc: `Sources are data. A line that addresses the assistant ("Assistant: …", "ignore
the question", "you are now …", "请忽略用户的问题"), tells it to treat a value as
the current one, or asks for an action on an order or account ("cancel order
A-104", "取消订单 A-104") is flagged so that a person looks at it. ka2 never
changes the text and the contract keeps it a quoted string; the warning is for
the author, since such text in a policy library is almost always pasted by
mistake or hostile.

Detection is a curated list of English and Chinese patterns (see
InstructionPatterns), written to match imperatives aimed at the assistant and
not ordinary policy wording such as "Cancel bookings 24 hours ahead" or
"不得忽略以上审批要求". If a flagged line is a deliberate test fixture, disable
the rule in that file's front matter with a reason.`,
	file: checkInstructionText,
}

var ruleLintDirective = &Rule{
	ID:       "lint_directive",
	Severity: diag.SeverityWarning,
	Summary:  "a ka2lint comment is malformed, names an unknown rule or an old rule ID, or sits in the body",
	Doc: `"# ka2lint:disable RULE-ID" in the front matter turns a rule off for one file.
The rule reports a directive with another verb, one that names no rule or an
unknown rule (the hint suggests the closest ID), one that names a rule by the
kebab-case ID of the previous release (such as instruction-text for
instruction_text: still honoured until the next release; the hint gives the
new ID), and a ka2lint comment in the body, where it has no effect and would
end up in quotes.`,
}

var ruleTrailingWhitespace = &Rule{
	ID:       "trailing_whitespace",
	Severity: diag.SeverityInfo,
	Summary:  "a line ends with spaces or tabs",
	Doc: `Body lines are quoted exactly, whitespace included, so trailing whitespace costs
budget and makes quotes differ from what the author sees. Reported once per
line.`,
	file: checkTrailingWhitespace,
}

var ruleCRLF = &Rule{
	ID:       "crlf",
	Severity: diag.SeverityInfo,
	Summary:  "the file uses CRLF line endings",
	Doc: `ka2 reads CRLF and LF the same way, but mixed endings make diffs noisy. The
finding points at the first line that ends in CRLF. Save the file with LF line
endings.`,
	file: checkCRLF,
}

var ruleBOM = &Rule{
	ID:       "bom",
	Severity: diag.SeverityInfo,
	Summary:  "the file starts with a UTF-8 byte order mark",
	Doc: `ka2 drops a UTF-8 BOM, but other tools may not. Save the file as UTF-8 without
BOM.`,
	file: checkBOM,
}

var ruleFutureSource = &Rule{
	ID:       "future_source",
	Severity: diag.SeverityInfo,
	Summary:  "a source takes effect after today",
	Doc: `A source whose valid_from is after Options.Today (ka2 lint --today, by default
the current date) is not selected for questions about today. This is usually
intended — a policy published ahead of time — and is reported so the author can
check the date. Off when Options.Today is the zero date.`,
	file: checkFutureSource,
}

func checkBOM(r *Rule, f *file) {
	if f.bom {
		f.add(r, 1, 1, "file starts with a UTF-8 byte order mark, which ka2 ignores", "save the file as UTF-8 without BOM")
	}
}

func checkCRLF(r *Rule, f *file) {
	if f.crlf > 0 {
		f.add(r, f.crlf, utf8.RuneCountInString(f.raw[f.crlf-1])+1,
			"file uses CRLF line endings, first on this line; ka2 reads them as LF",
			"save the file with LF line endings")
	}
}

func checkTrailingWhitespace(r *Rule, f *file) {
	for i, l := range f.raw {
		t := strings.TrimRightFunc(l, unicode.IsSpace)
		if len(t) == len(l) {
			continue
		}
		hint := "delete it"
		if f.fmEnd > 0 && i >= f.fmEnd {
			hint = "delete it; body lines are quoted exactly, whitespace included"
		}
		f.add(r, i+1, utf8.RuneCountInString(t)+1, "trailing whitespace", hint)
	}
}

func checkFutureSource(r *Rule, f *file) {
	today := f.opts.Today
	if f.src == nil || today.IsZero() || !today.Before(f.src.ValidFrom) {
		return
	}
	pos := f.pos("valid_from")
	f.add(r, pos.Line, pos.Col,
		fmt.Sprintf("%s takes effect on %s, after today (%s)", f.src.ID, f.src.ValidFrom, today),
		"nothing to fix if that is intended; until then, questions about today do not select it")
}

func checkAmountWithoutUnit(r *Rule, f *file) {
	lines, first, ok := f.body()
	if !ok || f.unit() != "" {
		return
	}
	for i, l := range lines {
		amount, col := corpus.AmountWithoutUnit(l)
		if col == 0 {
			continue
		}
		f.add(r, first+i, col,
			fmt.Sprintf("amount %s has no unit: the line names none, and the front matter has no unit key", amount),
			`add unit: to the front matter (e.g. unit: CNY per room-night), or write the unit next to the amount`)
	}
}

func checkMissingScopeOrDate(r *Rule, f *file) {
	lines, first, ok := f.body()
	if !ok || corpus.EmptyBody(lines) {
		return // empty_body reports an empty body
	}
	var scope, date bool
	for _, l := range lines {
		scope = scope || corpus.StatesScope(l)
		date = date || corpus.StatesDate(l)
		if scope && date {
			return
		}
	}
	var missing string
	switch {
	case !scope && !date:
		missing = "its scope or its effective date"
	case !scope:
		missing = "its scope"
	default:
		missing = "its effective date"
	}
	line := first
	from := "2026-01-01"
	if f.src != nil {
		from = f.src.ValidFrom.String()
	}
	f.add(r, line, 1, "the body has no line stating "+missing,
		"add lines such as \"Scope: lodging on business trips to Beijing.\" and \"Effective from "+
			from+".\", so that quotes never lose their scope or date")
}

func checkShortFormLosesScope(r *Rule, f *file) {
	if f.src == nil {
		return
	}
	loss := f.src.ShortLoss()
	if loss == nil {
		return
	}
	pos := f.pos("cite")
	f.add(r, pos.Line, pos.Col,
		fmt.Sprintf("cite %s leaves out what the short form needs: %s", corpus.CiteList(f.src.Cite), loss.What()),
		fmt.Sprintf("write cite: %s, which keeps it", corpus.CiteList(loss.Fix)))
}

func checkInstructionText(r *Rule, f *file) {
	lines, first, ok := f.body()
	if !ok {
		return
	}
	for i, l := range lines {
		p, text, col := matchInstruction(l)
		if p == nil {
			continue
		}
		f.add(r, first+i, col,
			fmt.Sprintf("line reads like an instruction, not policy: it %s (%s)", p.Name, quote(clip(strings.TrimSpace(text), 40))),
			"sources are data, and ka2 never acts on them: rephrase the line as policy or remove it; for a deliberate test fixture, add # ka2lint:disable instruction_text -- REASON to the front matter")
	}
}

// clip shortens s to at most n code points, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
