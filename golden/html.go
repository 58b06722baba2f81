package golden

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
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
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;font-size:.85rem;color:#555}dl.run dd{margin:0;font-family:monospace;overflow-wrap:anywhere}
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
var partColours = map[provenance.Kind]string{
	provenance.KindInstruction: "#4e79a7",
	provenance.KindExample:     "#76b7b2",
	provenance.KindMemory:      "#b07aa1",
	provenance.KindEvidence:    "#f28e2b",
	provenance.KindToolOutput:  "#9c755f",
	provenance.KindScope:       "#edc948",
	provenance.KindQuestion:    "#59a14f",
	budget.KindOverhead:        "#bab0ac",
}

// reportPage is the HTML report. Every value reaches the page through
// html/template, which escapes it for the place it lands in (text, an
// attribute, a URL, an SVG title), so no call site has to remember to.
var reportPage = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>ka2 regress: {{.Summary.Passed}} passed, {{.Summary.Failed}} failed: {{.Verdict}}</title>
<style>
` + reportStyle + `</style>
</head>
<body>
<main>
<h1>ka2 regress report</h1>
<p class="verdict {{.VerdictClass}}">{{.SummaryLine}}</p>
{{with .Run}}<dl class="run" aria-label="Run">{{range .}}<dt>{{.Label}}</dt><dd>{{.Value}}</dd>{{end}}</dl>
{{end}}<ul class="counts" aria-label="Summary">
{{range .Counts}}<li class="{{.Label}}"><span class="n">{{.N}}</span> {{.Label}}</li>
{{end}}</ul>
<p class="meta">Budget bars: each case's input by part, against the limit W − R (the red line):
{{- range .Legend}} <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><rect width="12" height="12" fill="{{.Colour}}"/></svg> {{.Kind}}{{end}}</p>
<h2 id="failing">Failing cases ({{len .Failing}})</h2>
{{if not .Failing}}<p>None.</p>
{{end}}{{range .Failing}}{{template "case" .}}{{end -}}
<h2 id="passing">Other cases ({{len .Other}})</h2>
{{if .Other}}<table class="passed">
<thead><tr><th scope="col">Case</th><th scope="col">Golden</th><th scope="col">Outcome</th><th scope="col">Budget</th></tr></thead>
<tbody>
{{range .Other}}<tr><td><a href="{{.Link}}">{{.File}}:{{.Line}}</a> {{.Name}}</td><td>{{.State}}</td><td>{{.Outcome}}</td><td>{{template "budget" .Budget}}</td></tr>
{{end}}</tbody>
</table>
{{end}}{{if .Unreferenced}}<h2 id="unreferenced">Unreferenced goldens</h2>
<ul>
{{range .Unreferenced}}<li><code>{{.Path}}</code>: {{.What}}</li>
{{end}}</ul>
{{end}}</main>
</body>
</html>
{{define "case"}}<section class="case fail" aria-labelledby="{{.ID}}">
<h3 id="{{.ID}}"><span class="status">FAIL</span>{{.Name}}</h3>
<p class="meta"><a href="{{.Link}}">{{.File}}:{{.Line}}</a> · golden <code>{{.Golden}}</code> ({{.State}}) · outcome {{.Outcome}}</p>
{{if .Problems}}<ul class="problems">
{{range .Problems}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{if .Records}}<table class="records">
<caption>Evidence records: {{.Added}} added, {{.Removed}} removed, {{.Changed}} changed, {{.Same}} the same</caption>
<thead><tr><th scope="col">Change</th><th scope="col">Golden</th><th scope="col">Build</th></tr></thead>
<tbody>
{{range .Records}}<tr class="{{.Change}}"><td class="what">{{.Change}}</td><td class="side golden">{{template "record" .Golden}}</td><td class="side actual">{{template "record" .Actual}}</td></tr>
{{end}}</tbody>
</table>
{{end}}{{template "budget" .Budget}}{{if .Diff}}<details><summary>Unified diff of golden and build</summary>
<pre class="diff">{{range .Diff}}{{if eq .Kind "add"}}<ins class="add">{{.Text}}</ins>{{else if eq .Kind "del"}}<del class="del">{{.Text}}</del>{{else}}{{.Text}}
{{end}}{{end}}</pre>
</details>
{{end}}</section>
{{end}}
{{- define "record"}}{{if not .}}<em>(none)</em>{{else}}<div><span class="addr">{{template "mark" .Addr}}</span> {{template "mark" .Version}} · valid {{template "mark" .From}} to {{template "mark" .Until}}{{if .Unit}} · unit {{template "mark" .Unit}}{{end}}</div>
<pre class="quote">{{range .Quote}}<span{{if .Changed}} class="changed-line"{{end}}>{{.Text}}</span>{{end}}</pre>{{end}}{{end}}
{{- define "mark"}}{{if .Changed}}<span class="changed-field">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}
{{- define "budget"}}{{if not .}}<p class="meta">no budget: the build stopped before the input was assembled</p>
{{else}}<figure class="budget"><svg width="100%" height="22" viewBox="0 0 1000 22" preserveAspectRatio="none" role="img" aria-label="{{.Label}}"><rect x="0" y="3" width="1000" height="16" fill="#f3f3f3"/>
{{- range .Parts}}<rect class="part {{.Kind}}" x="{{.X}}" y="3" width="{{.W}}" height="16" fill="{{.Colour}}"><title>{{.Kind}} {{.Cost}}</title></rect>{{end -}}
<line class="limit" x1="{{.LimitX}}" y1="0" x2="{{.LimitX}}" y2="22" stroke="#b00020" stroke-width="3"><title>limit {{.Limit}}</title></line></svg><figcaption>{{.Label}}</figcaption></figure>
{{end}}{{end}}`))

// The page's view of a report: everything the template shows, worked out
// here, so the template only places it.
type (
	htmlPage struct {
		Summary               Summary
		Verdict, VerdictClass string
		SummaryLine           string
		Counts                []htmlCount
		Legend                []htmlPart
		Run                   []htmlFact
		Failing, Other        []htmlCase
		Unreferenced          []htmlUnreferenced
	}
	htmlCount struct {
		Label string
		N     int
	}
	htmlCase struct {
		ID, Name, File, Link    string
		Line                    int
		Golden, State, Outcome  string
		Problems                []string
		Records                 []htmlRecordPair
		Added, Removed, Changed int
		Same                    int
		Budget                  *htmlBudget
		Diff                    []htmlLine
	}
	htmlRecordPair struct {
		Change         string
		Golden, Actual *htmlRecord
	}
	htmlRecord struct {
		Addr, Version, From, Until htmlMark
		// Unit is nil when neither side has one.
		Unit  *htmlMark
		Quote []htmlQuoteLine
	}
	htmlMark struct {
		Text    string
		Changed bool
	}
	htmlQuoteLine struct {
		Text    string
		Changed bool
	}
	htmlLine   struct{ Kind, Text string }
	htmlBudget struct {
		Label  string
		Parts  []htmlPart
		LimitX string
		Limit  int
	}
	htmlPart struct {
		Kind, X, W, Colour string
		Cost               int
	}
	htmlUnreferenced struct{ Path, What string }
	htmlFact         struct{ Label, Value string }
)

// runFacts is the run information as label and value pairs, for the
// page's header.
func runFacts(r *Report) []htmlFact {
	ri := r.Run
	if ri == nil {
		return nil
	}
	var out []htmlFact
	add := func(label, value string) {
		if value != "" {
			out = append(out, htmlFact{label, value})
		}
	}
	add("started", ri.Started)
	add("finished", ri.Finished)
	if ri.Started != "" {
		add("duration", (time.Duration(ri.DurationMS) * time.Millisecond).String())
	}
	add("ka2", toolName(ri.Tool))
	add("Go", ri.Tool.Go)
	if r.Shard != nil {
		add("shard", r.Shard.Shard.String())
	}
	add("host", ri.Host)
	if ri.Repository != nil {
		add("commit", ri.Repository.Commit)
	}
	for _, c := range ri.Corpora {
		add("corpus "+c.Location, fmt.Sprintf("%s (%d sources)", c.Digest, c.Sources))
	}
	add("case files", plural(len(ri.CaseFiles), "file"))
	return out
}

// WriteHTML writes the report as one self-contained HTML page that works
// offline: the summary, the failing cases first, each with its problems,
// a side-by-side comparison of the golden's and the build's evidence
// records, the unified diff, and its budget as a bar stacked by part
// against the limit; then the other cases and the unreferenced goldens.
// It loads nothing and runs no script: every value is placed by
// html/template, escaped for where it lands, and characters HTML cannot
// hold are replaced. The same report gives the same bytes.
func (r *Report) WriteHTML(w io.Writer, opts HTMLOptions) error {
	link := opts.CaseLink
	if link == nil {
		link = func(p string, line int) string { return (&url.URL{Path: p}).String() + "#L" + strconv.Itoa(line) }
	}
	s := r.Summary
	page := htmlPage{Summary: s, Verdict: "FAIL", VerdictClass: "fail", SummaryLine: r.SummaryLine(), Run: runFacts(r)}
	if r.OK() {
		page.Verdict, page.VerdictClass = "ok", "ok"
	}
	page.Counts = []htmlCount{{"cases", s.Cases}, {"passed", s.Passed}, {"failed", s.Failed},
		{"created", s.Created}, {"updated", s.Updated}, {"pending", s.Pending}, {"unreferenced", s.Unreferenced}}
	for _, k := range []provenance.Kind{provenance.KindInstruction, provenance.KindExample, provenance.KindMemory, provenance.KindEvidence,
		provenance.KindToolOutput, provenance.KindScope, provenance.KindQuestion, budget.KindOverhead} {
		page.Legend = append(page.Legend, htmlPart{Kind: string(k), Colour: partColours[k]})
	}
	for fi := range r.Files {
		f := &r.Files[fi]
		for ci := range f.Cases {
			c := &f.Cases[ci]
			hc := htmlCase{ID: caseID(f.Path, c), Name: c.Name, File: f.Path, Link: link(f.Path, c.Line), Line: c.Line,
				Golden: c.Golden, State: string(c.State), Outcome: c.Outcome, Budget: budgetHTML(c.Budget)}
			if c.Status != StatusFail {
				if c.Summary != "" {
					hc.State += ": " + c.Summary
				}
				page.Other = append(page.Other, hc)
				continue
			}
			failingHTML(&hc, c)
			page.Failing = append(page.Failing, hc)
		}
	}
	for _, u := range r.Unreferenced {
		what := "no case refers to it"
		switch {
		case u.Pruned:
			what = "pruned"
		case r.RejectUnreferenced:
			what = "no case refers to it (rejected: fails the run)"
		}
		page.Unreferenced = append(page.Unreferenced, htmlUnreferenced{u.Path, what})
	}
	var b bytes.Buffer
	if err := reportPage.Execute(&b, page); err != nil {
		return err
	}
	// The template's own text is valid; what came from files may hold
	// characters HTML cannot (controls, lone surrogates).
	_, err := io.WriteString(w, xmlSafe(b.String()))
	return err
}

// failingHTML fills in what the page shows of a failing case.
func failingHTML(hc *htmlCase, c *CaseReport) {
	if c.Summary != "" {
		hc.Problems = append(hc.Problems, c.Summary)
	}
	for _, e := range c.Expectations {
		hc.Problems = append(hc.Problems, "expectation failed: "+e)
	}
	if c.Note != "" {
		hc.Problems = append(hc.Problems, c.Note)
	}
	if c.Error != "" {
		hc.Problems = append(hc.Problems, "error: "+c.Error)
	}
	if c.Pending != "" {
		hc.Problems = append(hc.Problems, "pending "+c.Pending+" (accept with ka2 review)")
	}
	for _, rc := range c.Records {
		switch rc.Change {
		case RecordAdded:
			hc.Added++
		case RecordRemoved:
			hc.Removed++
		case RecordChanged:
			hc.Changed++
		case RecordSame:
			hc.Same++
		}
		hc.Records = append(hc.Records, htmlRecordPair{Change: rc.Change,
			Golden: recordHTML(rc.Golden, rc.Actual, rc.Fields), Actual: recordHTML(rc.Actual, rc.Golden, rc.Fields)})
	}
	if c.Diff != "" {
		for _, line := range strings.Split(strings.TrimSuffix(c.Diff, "\n"), "\n") {
			kind := ""
			switch {
			case strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++"):
				kind = "add"
			case strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---"):
				kind = "del"
			}
			hc.Diff = append(hc.Diff, htmlLine{kind, line})
		}
	}
}

// recordHTML is one side of a record pair, with the fields and quote
// lines that differ from the other side marked; nil for no record.
func recordHTML(r, other *contract.EvidenceRecord, fields []string) *htmlRecord {
	if r == nil {
		return nil
	}
	mark := func(field, text string) htmlMark { return htmlMark{text, slices.Contains(fields, field)} }
	until := r.ValidUntil
	if until == "" {
		until = "open-ended"
	}
	hr := &htmlRecord{
		Addr:    mark("lines", fmt.Sprintf("%s:%d-%d", r.SourceID, r.LineStart, r.LineEnd)),
		Version: mark("version", r.Version),
		From:    mark("valid_from", r.ValidFrom),
		Until:   mark("valid_until", until),
	}
	if r.Unit != "" || other != nil && other.Unit != "" {
		u := mark("unit", r.Unit)
		hr.Unit = &u
	}
	var otherLines []string
	if other != nil {
		otherLines = strings.Split(other.Quote, "\n")
	}
	for i, line := range strings.Split(r.Quote, "\n") {
		hr.Quote = append(hr.Quote, htmlQuoteLine{line, other != nil && (i >= len(otherLines) || otherLines[i] != line)})
	}
	return hr
}

// budgetHTML is a budget as an SVG bar stacked by part, scaled to the
// larger of the limit and the total, with the limit marked; nil for no
// budget.
func budgetHTML(cb *CaseBudget) *htmlBudget {
	if cb == nil {
		return nil
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
	hb := &htmlBudget{
		Label:  fmt.Sprintf("Budget: %s; total %d of %d %s%s", strings.Join(desc, ", "), cb.Total, cb.Limit, cb.Counter, over),
		LimitX: num1(float64(cb.Limit) * 1000 / float64(scale)),
		Limit:  cb.Limit,
	}
	x := 0.0
	for _, p := range cb.Parts {
		w := float64(p.Cost) * 1000 / float64(scale)
		col := partColours[p.Kind]
		if col == "" {
			col = "#888888"
		}
		hb.Parts = append(hb.Parts, htmlPart{Kind: string(p.Kind), X: num1(x), W: num1(w), Colour: col, Cost: p.Cost})
		x += w
	}
	return hb
}

// caseID is the HTML id of a case's heading.
func caseID(file string, c *CaseReport) string {
	return "case-" + strings.NewReplacer("/", "-", ".", "-", " ", "-").Replace(file) + "-" + strconv.Itoa(c.Line)
}

func num1(f float64) string { return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") }
