package golden

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
)

// HTMLOptions say how an HTML report links to the case files.
type HTMLOptions struct {
	// CaseLink turns a case file's path, as the report holds it, and a
	// line into a link target; nil links to the path as it is, with
	// #L<line>.
	CaseLink func(path string, line int) string
}

// reportStyle is the page's only style; nothing is loaded.
const reportStyle = `body{font-family:sans-serif;margin:1.5rem;color:#222;background:#fff;max-width:1400px}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccc}h3{font-size:1.05rem;margin:0 0 .4rem}
.counts{display:flex;flex-wrap:wrap;gap:.6rem;padding:0;list-style:none}
.counts li{border:1px solid #ccc;border-radius:4px;padding:.4rem .8rem;min-width:6rem}
.counts .n{display:block;font-size:1.4rem;font-weight:bold}
.counts .failed .n{color:#b00020}.counts .passed .n{color:#1b7f3b}
.verdict{font-weight:bold}.verdict.fail{color:#b00020}.verdict.ok{color:#1b7f3b}
section.case{border:1px solid #ccc;border-left:6px solid #1b7f3b;border-radius:4px;padding:.8rem 1rem;margin:1rem 0}
section.case.fail{border-left-color:#b00020}
.status{display:inline-block;font-size:.8rem;font-weight:bold;padding:.05rem .4rem;border-radius:3px;color:#fff;background:#1b7f3b;margin-right:.4rem}
.fail .status{background:#b00020}
.meta{color:#555;font-size:.9rem;margin:.2rem 0}
ul.problems{margin:.4rem 0;padding-left:1.2rem}ul.problems li{color:#b00020}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.6rem 0}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#f0f0f0}
td.side{width:46%}td.what{width:8%;font-weight:bold}
tr.added td.actual{background:#e6ffec}tr.removed td.golden{background:#ffebe9}
tr.added td.what{color:#1b7f3b}tr.removed td.what{color:#b00020}tr.changed td.what{color:#9a6700}
.changed-field{background:#fff8c5;outline:1px solid #d4a72c}
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font-size:.85rem}
pre.quote span{display:block}pre.quote span.changed-line{background:#fff8c5}
.addr{font-family:monospace;font-weight:bold}
details{margin:.4rem 0}summary{cursor:pointer}
.diff .add{background:#e6ffec;display:block}.diff .del{background:#ffebe9;display:block}
figure.budget{margin:.4rem 0}figure.budget figcaption{font-size:.85rem;color:#444}
table.passed td{vertical-align:middle}
`

// Colours of the budget parts, one per kind.
var partColours = map[budget.Kind]string{
	budget.KindInstruction: "#4e79a7",
	budget.KindExample:     "#76b7b2",
	budget.KindMemory:      "#b07aa1",
	budget.KindEvidence:    "#f28e2b",
	budget.KindToolOutput:  "#9c755f",
	budget.KindScope:       "#edc948",
	budget.KindQuestion:    "#59a14f",
	budget.KindOverhead:    "#bab0ac",
}

// WriteHTML writes the report as one self-contained HTML page that works
// offline: the summary, the failing cases first, each with its problems,
// a side-by-side comparison of the golden's and the build's evidence
// records, the unified diff, and its budget as a bar stacked by part
// against the limit; then the other cases and the unreferenced goldens.
// It loads nothing and runs no script, and every text from a file is
// escaped. The same report gives the same bytes.
func (r *Report) WriteHTML(w io.Writer, opts HTMLOptions) error {
	link := opts.CaseLink
	if link == nil {
		link = func(p string, line int) string { return (&url.URL{Path: p}).String() + "#L" + strconv.Itoa(line) }
	}
	var b bytes.Buffer
	s := r.Summary
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1"/>` + "\n")
	verdict, vclass := "FAIL", "fail"
	if r.OK() {
		verdict, vclass = "ok", "ok"
	}
	fmt.Fprintf(&b, "<title>ka2 regress: %d passed, %d failed: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", s.Passed, s.Failed, verdict, reportStyle)
	b.WriteString("<h1>ka2 regress report</h1>\n")
	fmt.Fprintf(&b, "<p class=\"verdict %s\">%s</p>\n", vclass, h(r.SummaryLine()))
	b.WriteString("<ul class=\"counts\" aria-label=\"Summary\">\n")
	for _, c := range []struct {
		class, label string
		n            int
	}{
		{"cases", "cases", s.Cases}, {"passed", "passed", s.Passed}, {"failed", "failed", s.Failed},
		{"created", "created", s.Created}, {"updated", "updated", s.Updated}, {"pending", "pending", s.Pending},
		{"unreferenced", "unreferenced", s.Unreferenced},
	} {
		fmt.Fprintf(&b, "<li class=\"%s\"><span class=\"n\">%d</span> %s</li>\n", c.class, c.n, c.label)
	}
	b.WriteString("</ul>\n")
	b.WriteString("<p class=\"meta\">Budget bars: each case's input by part, against the limit W − R (the red line):")
	for _, k := range []budget.Kind{budget.KindInstruction, budget.KindExample, budget.KindMemory, budget.KindEvidence,
		budget.KindToolOutput, budget.KindScope, budget.KindQuestion, budget.KindOverhead} {
		fmt.Fprintf(&b, ` <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><rect width="12" height="12" fill="%s"/></svg> %s`, partColours[k], k)
	}
	b.WriteString("</p>\n")

	type item struct {
		file string
		c    *CaseReport
	}
	var failing, other []item
	for fi := range r.Files {
		f := &r.Files[fi]
		for ci := range f.Cases {
			c := &f.Cases[ci]
			if c.Status == StatusFail {
				failing = append(failing, item{f.Path, c})
			} else {
				other = append(other, item{f.Path, c})
			}
		}
	}
	fmt.Fprintf(&b, "<h2 id=\"failing\">Failing cases (%d)</h2>\n", len(failing))
	if len(failing) == 0 {
		b.WriteString("<p>None.</p>\n")
	}
	for _, it := range failing {
		writeCaseHTML(&b, it.file, it.c, link)
	}
	fmt.Fprintf(&b, "<h2 id=\"passing\">Other cases (%d)</h2>\n", len(other))
	if len(other) > 0 {
		b.WriteString("<table class=\"passed\">\n<thead><tr><th scope=\"col\">Case</th><th scope=\"col\">Golden</th><th scope=\"col\">Outcome</th><th scope=\"col\">Budget</th></tr></thead>\n<tbody>\n")
		for _, it := range other {
			c := it.c
			state := string(c.State)
			if c.Summary != "" {
				state += ": " + c.Summary
			}
			fmt.Fprintf(&b, "<tr><td><a href=\"%s\">%s:%d</a> %s</td><td>%s</td><td>%s</td><td>",
				h(link(it.file, c.Line)), h(it.file), c.Line, h(c.Name), h(state), h(c.Outcome))
			writeBudgetHTML(&b, c.Budget)
			b.WriteString("</td></tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n")
	}
	if len(r.Unreferenced) > 0 {
		b.WriteString("<h2 id=\"unreferenced\">Unreferenced goldens</h2>\n<ul>\n")
		for _, u := range r.Unreferenced {
			what := "no case refers to it"
			switch {
			case u.Pruned:
				what = "pruned"
			case r.RejectUnreferenced:
				what = "no case refers to it (rejected: fails the run)"
			}
			fmt.Fprintf(&b, "<li><code>%s</code>: %s</li>\n", h(u.Path), what)
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeCaseHTML writes one failing case.
func writeCaseHTML(b *bytes.Buffer, file string, c *CaseReport, link func(string, int) string) {
	fmt.Fprintf(b, "<section class=\"case fail\" aria-labelledby=\"%s\">\n", h(caseID(file, c)))
	fmt.Fprintf(b, "<h3 id=\"%s\"><span class=\"status\">FAIL</span>%s</h3>\n", h(caseID(file, c)), h(c.Name))
	fmt.Fprintf(b, "<p class=\"meta\"><a href=\"%s\">%s:%d</a> · golden <code>%s</code> (%s) · outcome %s</p>\n",
		h(link(file, c.Line)), h(file), c.Line, h(c.Golden), h(string(c.State)), h(c.Outcome))
	var problems []string
	if c.Summary != "" {
		problems = append(problems, c.Summary)
	}
	for _, e := range c.Expectations {
		problems = append(problems, "expectation failed: "+e)
	}
	if c.Note != "" {
		problems = append(problems, c.Note)
	}
	if c.Error != "" {
		problems = append(problems, "error: "+c.Error)
	}
	if c.Pending != "" {
		problems = append(problems, "pending "+c.Pending+" (accept with ka2 review)")
	}
	if len(problems) > 0 {
		b.WriteString("<ul class=\"problems\">\n")
		for _, p := range problems {
			fmt.Fprintf(b, "<li>%s</li>\n", h(p))
		}
		b.WriteString("</ul>\n")
	}
	if len(c.Records) > 0 {
		writeRecordsHTML(b, c)
	}
	writeBudgetHTML(b, c.Budget)
	if c.Diff != "" {
		b.WriteString("<details><summary>Unified diff of golden and build</summary>\n<pre class=\"diff\">")
		for _, line := range strings.Split(strings.TrimSuffix(c.Diff, "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++"):
				fmt.Fprintf(b, "<ins class=\"add\">%s</ins>", h(line))
			case strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---"):
				fmt.Fprintf(b, "<del class=\"del\">%s</del>", h(line))
			default:
				b.WriteString(h(line) + "\n")
			}
		}
		b.WriteString("</pre>\n</details>\n")
	}
	b.WriteString("</section>\n")
}

// writeRecordsHTML writes the side-by-side table of evidence records.
func writeRecordsHTML(b *bytes.Buffer, c *CaseReport) {
	counts := map[string]int{}
	for _, rc := range c.Records {
		counts[rc.Change]++
	}
	fmt.Fprintf(b, "<table class=\"records\">\n<caption>Evidence records: %d added, %d removed, %d changed, %d the same</caption>\n",
		counts[RecordAdded], counts[RecordRemoved], counts[RecordChanged], counts[RecordSame])
	b.WriteString("<thead><tr><th scope=\"col\">Change</th><th scope=\"col\">Golden</th><th scope=\"col\">Build</th></tr></thead>\n<tbody>\n")
	for _, rc := range c.Records {
		fmt.Fprintf(b, "<tr class=\"%s\"><td class=\"what\">%s</td><td class=\"side golden\">", rc.Change, rc.Change)
		writeRecordHTML(b, rc.Golden, rc.Actual, rc.Fields)
		b.WriteString("</td><td class=\"side actual\">")
		writeRecordHTML(b, rc.Actual, rc.Golden, rc.Fields)
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}

// writeRecordHTML writes one side of a record pair, marking the fields
// and quote lines that differ from the other side.
func writeRecordHTML(b *bytes.Buffer, r, other *contract.EvidenceRecord, fields []string) {
	if r == nil {
		b.WriteString("<em>(none)</em>")
		return
	}
	mark := func(field, text string) string {
		for _, f := range fields {
			if f == field {
				return "<span class=\"changed-field\">" + h(text) + "</span>"
			}
		}
		return h(text)
	}
	addr := fmt.Sprintf("%s:%d-%d", r.SourceID, r.LineStart, r.LineEnd)
	fmt.Fprintf(b, "<div><span class=\"addr\">%s</span> ", mark("lines", addr))
	fmt.Fprintf(b, "%s · valid %s", mark("version", r.Version), mark("valid_from", r.ValidFrom))
	until := r.ValidUntil
	if until == "" {
		until = "open-ended"
	}
	fmt.Fprintf(b, " to %s", mark("valid_until", until))
	if r.Unit != "" || other != nil && other.Unit != "" {
		fmt.Fprintf(b, " · unit %s", mark("unit", r.Unit))
	}
	b.WriteString("</div>\n<pre class=\"quote\">")
	lines := strings.Split(r.Quote, "\n")
	var otherLines []string
	if other != nil {
		otherLines = strings.Split(other.Quote, "\n")
	}
	for i, line := range lines {
		class := ""
		if other != nil && (i >= len(otherLines) || otherLines[i] != line) {
			class = " class=\"changed-line\""
		}
		fmt.Fprintf(b, "<span%s>%s</span>", class, h(line))
	}
	b.WriteString("</pre>")
}

// writeBudgetHTML draws a budget as an SVG bar stacked by part, scaled to
// the larger of the limit and the total, with the limit marked.
func writeBudgetHTML(b *bytes.Buffer, cb *CaseBudget) {
	if cb == nil {
		b.WriteString("<p class=\"meta\">no budget: the build stopped before the input was assembled</p>\n")
		return
	}
	scale := max(cb.Limit, cb.Total, 1)
	var desc []string
	for _, p := range cb.Parts {
		desc = append(desc, fmt.Sprintf("%s %d", p.Kind, p.Cost))
	}
	over := ""
	if cb.Total > cb.Limit {
		over = fmt.Sprintf(", over by %d", cb.Total-cb.Limit)
	}
	label := fmt.Sprintf("Budget: %s; total %d of %d %s%s", strings.Join(desc, ", "), cb.Total, cb.Limit, cb.Counter, over)
	fmt.Fprintf(b, "<figure class=\"budget\"><svg width=\"100%%\" height=\"22\" viewBox=\"0 0 1000 22\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"%s\">", h(label))
	b.WriteString(`<rect x="0" y="3" width="1000" height="16" fill="#f3f3f3"/>`)
	x := 0.0
	for _, p := range cb.Parts {
		w := float64(p.Cost) * 1000 / float64(scale)
		col := partColours[p.Kind]
		if col == "" {
			col = "#888888"
		}
		fmt.Fprintf(b, `<rect class="part %s" x="%s" y="3" width="%s" height="16" fill="%s"><title>%s %d</title></rect>`,
			h(string(p.Kind)), num1(x), num1(w), col, h(string(p.Kind)), p.Cost)
		x += w
	}
	lx := float64(cb.Limit) * 1000 / float64(scale)
	fmt.Fprintf(b, `<line class="limit" x1="%s" y1="0" x2="%s" y2="22" stroke="#b00020" stroke-width="3"><title>limit %d</title></line>`, num1(lx), num1(lx), cb.Limit)
	fmt.Fprintf(b, "</svg><figcaption>%s</figcaption></figure>\n", h(label))
}

// caseID is the HTML id of a case's heading.
func caseID(file string, c *CaseReport) string {
	return "case-" + strings.NewReplacer("/", "-", ".", "-", " ", "-").Replace(file) + "-" + strconv.Itoa(c.Line)
}

func num1(f float64) string { return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") }

// h escapes text for HTML, replacing what HTML cannot hold.
func h(s string) string { return html.EscapeString(xmlSafe(s)) }
