package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
)

// Diff shows how got differs from want (a golden's bytes) so a person can
// read it: a unified diff of the pretty-printed JSON, with want as the old
// side, and each string that holds line breaks (an evidence record's
// quote, the body lines it cites) shown one line of its own per quoted
// line, broken after each \n escape, so a one-word change in a long
// policy is one changed line, not the whole quote. It returns "" when the bytes are equal. When the JSON is the same
// and only the bytes around it differ (line endings, white space, a final
// newline) it says so and diffs the raw bytes, with carriage returns shown
// as \r.
func Diff(wantName string, want []byte, gotName string, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	pw, pg := pretty(want), pretty(got)
	if !bytes.Equal(pw, pg) {
		return trimHeader(diff.Diff(wantName, readable(pw), gotName, readable(pg)))
	}
	note := "the JSON is the same; only the bytes around it differ (white space or a final newline)\n"
	if bytes.Contains(want, []byte("\r\n")) != bytes.Contains(got, []byte("\r\n")) {
		note = "the JSON is the same; only the line endings differ (CRLF): a checkout may have converted them — mark goldens -text in .gitattributes\n"
	}
	show := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r"), []byte(`\r`)) }
	d := trimHeader(diff.Diff(wantName, show(want), gotName, show(got)))
	if d == "" { // only a missing final newline, which the line diff cannot show
		d = fmt.Sprintf("--- %s\n+++ %s\n(%d bytes → %d bytes)\n", wantName, gotName, len(want), len(got))
	}
	return note + d
}

// ColorDiff colours the lines of a diff (from Diff) for a terminal with
// ANSI escapes: removed lines red, added lines green, hunk headers cyan.
// The lines themselves are left as they are: escape them first.
func ColorDiff(d string) string {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(d, "\n") {
		body := strings.TrimSuffix(line, "\n")
		var color string
		switch {
		case strings.HasPrefix(body, "---"), strings.HasPrefix(body, "+++"):
			color = "\033[1m"
		case strings.HasPrefix(body, "-"):
			color = "\033[31m"
		case strings.HasPrefix(body, "+"):
			color = "\033[32m"
		case strings.HasPrefix(body, "@@"):
			color = "\033[36m"
		}
		if color == "" || body == "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(color + body + "\033[0m" + line[len(body):])
	}
	return b.String()
}

// trimHeader drops the "diff A B" line go-internal's diff starts with; the
// ---/+++ lines that follow name both sides.
func trimHeader(d []byte) string {
	s := string(d)
	if strings.HasPrefix(s, "diff ") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return s
}

// readable is quoteLines of b when b is JSON; other text (a hand-broken
// golden) is shown as it is.
func readable(b []byte) []byte {
	if !json.Valid(b) {
		return b
	}
	return quoteLines(b)
}

// quoteLines breaks the JSON strings of indented JSON after each \n
// escape that more of the string follows, the continuation indented to
// the column after the string's opening quote. The result is for
// reading, not JSON: joining each broken line to the next gives the text
// back.
func quoteLines(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b) + len(b)/8)
	for line := range bytes.SplitAfterSeq(b, []byte("\n")) {
		in, open := false, 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			out.WriteByte(c)
			switch {
			case !in && c == '"':
				in, open = true, i
			case in && c == '"':
				in = false
			case in && c == '\\' && i+1 < len(line):
				i++
				out.WriteByte(line[i])
				if line[i] == 'n' && i+1 < len(line) && line[i+1] != '"' {
					out.WriteByte('\n')
					out.Write(bytes.Repeat([]byte(" "), utf8.RuneCount(line[:open+1])))
				}
			}
		}
	}
	return out.Bytes()
}

// pretty indents JSON by two spaces, keeping key order and every string as
// it is; anything that is not JSON is returned unchanged.
func pretty(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", "  "); err != nil {
		return b
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// parsedOutput is a golden's or a build's bytes, read back.
type parsedOutput struct {
	valid    bool
	contract map[string]json.RawMessage // a contract's top-level fields
	evidence []contract.EvidenceRecord
	err      *errkind.Detail // an error report
	total    int             // the budget total: counted for a contract, reported for an error
	hasTotal bool
}

// parseOutput reads b as a contract or an error report. The budget total of
// a contract is counted with c plus the wrapper, as the build counts it.
func parseOutput(b []byte, c budget.Counter, l budget.Limits) parsedOutput {
	var p parsedOutput
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return p
	}
	if raw, ok := top["error"]; ok && len(top) == 1 {
		var e errkind.Detail
		if json.Unmarshal(raw, &e) != nil {
			return p
		}
		p.valid, p.err = true, &e
		if e.Budget != nil {
			p.total, p.hasTotal = e.Budget.Total, true
		}
		return p
	}
	if raw, ok := top["evidence"]; ok && json.Unmarshal(raw, &p.evidence) != nil {
		return p
	}
	p.valid, p.contract = true, top
	if c != nil {
		// The budget counts the contract as ka2 build prints it: compact,
		// as a golden stored indented is compared.
		var compact bytes.Buffer
		_ = json.Compact(&compact, b) // b was valid JSON above
		p.total, p.hasTotal = c.Count(compact.String())+l.Wrapper, true
	}
	return p
}

// fieldOrder is the order summaries name contract fields in.
var fieldOrder = []string{"template", "instruction", "example", "memory", "evidence", "tool_output", "scope", "question"}

// Summarize says in one line what changed from want (a golden) to got:
// which evidence records were added (+), removed (-), changed (~) or
// reordered, which other fields changed, and how the budget total moved.
// counter and limits are the case's, used to count a contract's total.
// A nil want summarizes got as new.
func Summarize(want, got []byte, counter budget.Counter, limits budget.Limits) string {
	g := parseOutput(got, counter, limits)
	if want == nil {
		return "no golden yet; the build gives " + describe(g, limits)
	}
	w := parseOutput(want, counter, limits)
	switch {
	case bytes.Equal(want, got):
		return "no change"
	case !w.valid:
		return "the golden is not ka2 output (not a contract or an error report); the build gives " + describe(g, limits)
	case !g.valid:
		return "the build output is not a contract or an error report"
	}
	var parts []string
	switch {
	case w.err == nil && g.err != nil:
		parts = append(parts, "now fails: "+describe(g, limits))
	case w.err != nil && g.err == nil:
		parts = append(parts, "now builds (was "+string(w.err.Kind)+"): "+describe(g, limits))
	case w.err != nil && g.err != nil:
		if w.err.Kind != g.err.Kind {
			parts = append(parts, fmt.Sprintf("error %s → %s", w.err.Kind, g.err.Kind))
		}
		if w.err.Message != g.err.Message {
			parts = append(parts, "message now: "+firstClause(g.err.Message))
		}
	default:
		parts = append(parts, contractChanges(w, g)...)
	}
	if w.hasTotal && g.hasTotal && w.total != g.total {
		parts = append(parts, fmt.Sprintf("budget total %d → %d (%+d) of %d", w.total, g.total, g.total-w.total, limits.Limit()))
	}
	if len(parts) == 0 {
		if bytes.Contains(want, []byte("\r\n")) {
			return "same JSON, different line endings (CRLF in the golden: mark goldens -text in .gitattributes)"
		}
		return "same JSON, different bytes (white space or a final newline)"
	}
	return strings.Join(parts, "; ")
}

// describe names an output in a few words.
func describe(p parsedOutput, l budget.Limits) string {
	switch {
	case !p.valid:
		return "output that is not a contract or an error report"
	case p.err != nil:
		s := string(p.err.Kind) + ": " + firstClause(p.err.Message)
		return s
	}
	addrs := make([]string, len(p.evidence))
	for i, r := range p.evidence {
		addrs[i] = r.Address()
	}
	s := "a contract with evidence " + list(addrs)
	if p.hasTotal {
		s += fmt.Sprintf(", total %d of %d", p.total, l.Limit())
	}
	return s
}

// contractChanges lists what changed between two contracts.
func contractChanges(w, g parsedOutput) []string {
	keys := slices.Clone(fieldOrder)
	for _, m := range []map[string]json.RawMessage{w.contract, g.contract} {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys[len(fieldOrder):])
	var parts []string
	for _, k := range keys {
		a, inW := w.contract[k]
		b, inG := g.contract[k]
		switch {
		case !inW && !inG:
		case !inW:
			parts = append(parts, k+" added")
		case !inG:
			parts = append(parts, k+" removed")
		case k == "evidence":
			if s := evidenceChanges(w.evidence, g.evidence); s != "" {
				parts = append(parts, s)
			}
		case !bytes.Equal(compact(a), compact(b)):
			parts = append(parts, k+" changed")
		}
	}
	return parts
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// evidenceChanges compares evidence lists. Records are matched by address
// first, then by source ID (a record whose lines moved is "changed", not
// removed and added).
func evidenceChanges(want, got []contract.EvidenceRecord) string {
	matchW, matchG := matchRecords(want, got)

	var added, removed, changed []string
	for j, b := range got {
		if matchG[j] < 0 {
			added = append(added, "+"+b.Address())
		}
	}
	for i, a := range want {
		j := matchW[i]
		if j < 0 {
			removed = append(removed, "-"+a.Address())
			continue
		}
		b := got[j]
		var what []string
		if a.Address() != b.Address() {
			what = append(what, fmt.Sprintf("lines %d-%d → %d-%d", a.LineStart, a.LineEnd, b.LineStart, b.LineEnd))
		}
		if a.Version != b.Version {
			what = append(what, "version "+a.Version+" → "+b.Version)
		}
		for _, f := range []struct{ key, a, b string }{
			{"valid_from", a.ValidFrom, b.ValidFrom}, {"valid_until", a.ValidUntil, b.ValidUntil}, {"unit", a.Unit, b.Unit},
		} {
			switch {
			case f.a == f.b:
			case f.a == "":
				what = append(what, f.key+" added")
			case f.b == "":
				what = append(what, f.key+" removed")
			default:
				what = append(what, f.key+" "+f.a+" → "+f.b)
			}
		}
		if a.Quote != b.Quote {
			what = append(what, quoteChange(a, b))
		}
		if len(what) > 0 {
			changed = append(changed, "~"+a.Address()+" ("+strings.Join(what, ", ")+")")
		}
	}
	// Reordered: the matched records do not keep their relative order.
	reordered := false
	last := -1
	for i := range want {
		if j := matchW[i]; j >= 0 {
			if j < last {
				reordered = true
			}
			last = j
		}
	}
	all := slices.Concat(added, removed, changed)
	if reordered {
		all = append(all, "reordered")
	}
	if len(all) == 0 {
		return ""
	}
	return "evidence " + strings.Join(all, " ")
}

// matchRecords pairs the records of want and got: by address first, then
// by source ID. matchW[i] is the index in got of want[i]'s record, or -1,
// and matchG the other way.
func matchRecords(want, got []contract.EvidenceRecord) (matchW, matchG []int) {
	matchW = make([]int, len(want))
	matchG = make([]int, len(got))
	for i := range matchW {
		matchW[i] = -1
	}
	for i := range matchG {
		matchG[i] = -1
	}
	pair := func(same func(a, b contract.EvidenceRecord) bool) {
		for i, a := range want {
			if matchW[i] >= 0 {
				continue
			}
			for j, b := range got {
				if matchG[j] < 0 && same(a, b) {
					matchW[i], matchG[j] = j, i
					break
				}
			}
		}
	}
	pair(func(a, b contract.EvidenceRecord) bool { return a.Address() == b.Address() })
	pair(func(a, b contract.EvidenceRecord) bool { return a.SourceID == b.SourceID })
	return matchW, matchG
}

// quoteChange names the body lines whose text differs between two quotes
// of one source, e.g. "quote line 3" or "quote lines 2, 4".
func quoteChange(a, b contract.EvidenceRecord) string {
	la, lb := strings.Split(a.Quote, "\n"), strings.Split(b.Quote, "\n")
	var lines []string
	for i := range max(len(la), len(lb)) {
		if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
			lines = append(lines, fmt.Sprint(b.LineStart+i))
		}
	}
	switch {
	case a.LineStart != b.LineStart || len(lines) == 0:
		return "quote"
	case len(lines) == 1:
		return "quote line " + lines[0]
	case len(lines) > 5:
		return fmt.Sprintf("quote lines %s … (%d lines)", strings.Join(lines[:5], ", "), len(lines))
	}
	return "quote lines " + strings.Join(lines, ", ")
}

// firstClause shortens an error message to its first clause (up to "; "),
// at most 120 characters, for one-line summaries.
func firstClause(msg string) string {
	if i := strings.Index(msg, "; "); i >= 0 {
		msg = msg[:i]
	}
	if utf8.RuneCountInString(msg) > 120 {
		r := []rune(msg)
		msg = string(r[:119]) + "…"
	}
	return msg
}
