package golden

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxCaseRows is how many cases each table of the HTML history shows;
// the page says how many it left out.
const maxCaseRows = 500

// historyPage is the HTML history's data.
type historyPage struct {
	Title              string
	Nights             []historyNight
	NightCount, Cases  int
	First, Last        string
	RateChart          historyChart
	Failed, Flaky, Top []historyCase
	FailedMore         int
	FlakyMore          int
	MaxFailed          int
}

type historyNight struct {
	Label, Name, Rate, Failing string
	Cases, Passed, Failed      int
	FailingMore                int
}

type historyCase struct {
	File, Name, FirstFailure, LastPass, Changes, Flips, Peak string
	Commits                                                  []string
	Strip                                                    historyStrip
	Budget                                                   *historyChart
}

// historyStrip is a row of cells, one per night, for a case's marks.
type historyStrip struct {
	Width int
	Cells []historyCell
}

type historyCell struct {
	X            string
	Class, Title string
}

// historyChart is a line over the nights, 0 to Max of the height.
type historyChart struct {
	Width, Height int
	Points        string // polyline points
	Bars          []historyBar
	Ref           string // y of the reference line (100%)
	Label         string
	// Top and Bottom label the y axis: the values at its ends.
	Top, Bottom string
}

type historyBar struct{ X, Y, W, H, Title string }

const (
	chartW, chartH = 720, 160
	stripH         = 14
)

var historyTemplate = template.Must(template.New("history").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:1.5rem;color:#222;background:#fff;max-width:1400px}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.9rem;margin:.6rem 0}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f0f0f0}
td.n{text-align:right}ul.commits{margin:.2rem 0;padding-left:1rem;font-family:monospace;font-size:.85rem}.meta{color:#555;font-size:.9rem}
svg .pass{fill:#1b7f3b}svg .fail{fill:#b00020}svg .absent{fill:#ddd}
svg .rate{fill:none;stroke:#1b7f3b;stroke-width:2}svg .use{fill:none;stroke:#1f5fbf;stroke-width:1.5}
svg .ref{stroke:#b00020;stroke-dasharray:4 3}svg .tick{font-size:11px;fill:#555}svg .failbar{fill:#b00020;opacity:.5}svg .axis{stroke:#999}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p class="meta">{{.NightCount}} nights, {{.First}} to {{.Last}}; {{.Cases}} cases.</p>
<h2 id="rate">Pass rate per night</h2>
{{template "chart" .RateChart}}
<p class="meta">The line is the pass rate, on an axis from {{.RateChart.Bottom}} to 100% (the dashed line); the bars are the failing cases of each night, the tallest the night with the most ({{.MaxFailed}}).</p>
<h2 id="first-failures">First failures ({{len .Failed}}{{if .FailedMore}} of {{.FailedMore}}{{end}})</h2>
{{if not .Failed}}<p>No case failed.</p>
{{else}}<table class="failures"><thead><tr><th>case</th><th>first failed</th><th>last passed before</th><th>what changed</th><th>nights</th></tr></thead><tbody>
{{range .Failed}}<tr><td>{{.File}} {{.Name}}</td><td>{{.FirstFailure}}</td><td>{{.LastPass}}</td><td>{{.Changes}}{{with .Commits}}<ul class="commits">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}</td><td>{{template "strip" .Strip}}</td></tr>
{{end}}</tbody></table>
{{end}}
<h2 id="flaky">Flaky cases ({{len .Flaky}}{{if .FlakyMore}} of {{.FlakyMore}}{{end}})</h2>
<p class="meta">A flaky case failed between two passes while its corpora, case file and ka2 stayed the same.</p>
{{if not .Flaky}}<p>None.</p>
{{else}}<table class="flaky"><thead><tr><th>case</th><th>failed on</th><th>nights</th></tr></thead><tbody>
{{range .Flaky}}<tr><td>{{.File}} {{.Name}}</td><td>{{.Flips}}</td><td>{{template "strip" .Strip}}</td></tr>
{{end}}</tbody></table>
{{end}}
<h2 id="budget">Budget use over time</h2>
<p class="meta">The input's total against its limit, night by night (the dashed line is the limit), for the cases that came closest to it.</p>
{{if not .Top}}<p>No night records a budget.</p>
{{else}}<table class="budget"><thead><tr><th>case</th><th>peak</th><th>use per night</th></tr></thead><tbody>
{{range .Top}}<tr><td>{{.File}} {{.Name}}</td><td class="n">{{.Peak}}</td><td>{{with .Budget}}{{template "chart" .}}{{end}}</td></tr>
{{end}}</tbody></table>
{{end}}
<h2 id="nights">Nights</h2>
<table class="nights"><thead><tr><th>night</th><th>report</th><th>cases</th><th>passed</th><th>failed</th><th>pass rate</th><th>failing cases</th></tr></thead><tbody>
{{range .Nights}}<tr><td>{{.Label}}</td><td>{{.Name}}</td><td class="n">{{.Cases}}</td><td class="n">{{.Passed}}</td><td class="n">{{.Failed}}</td><td class="n">{{.Rate}}</td><td>{{.Failing}}{{if .FailingMore}} and {{.FailingMore}} more{{end}}</td></tr>
{{end}}</tbody></table>
</main>
</body>
</html>
{{define "chart"}}<svg class="chart" role="img" aria-label="{{.Label}}" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}"><title>{{.Label}}</title><line class="axis" x1="0" y1="{{.Height}}" x2="{{.Width}}" y2="{{.Height}}"/>{{range .Bars}}<rect class="failbar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Title}}</title></rect>{{end}}<line class="ref" x1="0" y1="{{.Ref}}" x2="{{.Width}}" y2="{{.Ref}}"/>{{if .Top}}<text class="tick" x="{{.Width}}" y="12" text-anchor="end">{{.Top}}</text><text class="tick" x="{{.Width}}" y="{{.Height}}" dy="-3" text-anchor="end">{{.Bottom}}</text>{{end}}<polyline class="{{if .Bars}}rate{{else}}use{{end}}" points="{{.Points}}"/></svg>{{end}}
{{define "strip"}}<svg class="strip" role="img" aria-label="pass and fail by night" width="{{.Width}}" height="` + strconv.Itoa(stripH) + `" viewBox="0 0 {{.Width}} ` + strconv.Itoa(stripH) + `">{{range .Cells}}<rect class="{{.Class}}" x="{{.X}}" y="0" width="2" height="` + strconv.Itoa(stripH) + `"><title>{{.Title}}</title></rect>{{end}}</svg>{{end}}
`))

// WriteHTML writes the history as one self-contained HTML page: the pass
// rate and failures per night as an SVG chart, the cases that failed with
// the night they first failed and what changed since they last passed,
// the flaky cases, the budget use over time of the cases closest to their
// limit, and a table of the nights. It loads nothing and runs no script.
func (h *History) WriteHTML(w io.Writer) error {
	p := historyPage{Title: "ka2 regress history", NightCount: len(h.Nights), Cases: len(h.Cases)}
	if len(h.Nights) > 0 {
		p.First, p.Last = h.Nights[0].Label(), h.Nights[len(h.Nights)-1].Label()
	}
	maxFailed := 1
	for _, n := range h.Nights {
		maxFailed = max(maxFailed, n.Failed)
	}
	p.MaxFailed = maxFailed
	step := float64(chartW) / float64(max(len(h.Nights), 1))
	// The rate's axis runs from a whole percent below the lowest night to
	// 100%, so that a suite that passes 99.2% to 99.8% shows the change;
	// the bars of failures take the lower third, to their own scale.
	lo := 1.0
	for _, n := range h.Nights {
		lo = min(lo, n.PassRate())
	}
	lo = max(0, math.Floor(lo*100-1)/100)
	const pad = 14.0
	rateY := func(r float64) float64 { return pad + (float64(chartH)-2*pad)*(1-(r-lo)/(1-lo)) }
	var pts []string
	for i, n := range h.Nights {
		x := step * (float64(i) + 0.5)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, rateY(n.PassRate())))
		bh := float64(chartH) / 3 * float64(n.Failed) / float64(maxFailed)
		p.RateChart.Bars = append(p.RateChart.Bars, historyBar{X: f1(step * float64(i)), Y: f1(float64(chartH) - bh), W: f1(max(step-1, 1)), H: f1(bh),
			Title: fmt.Sprintf("%s: %d of %d passed, %d failed", n.Label(), n.Passed, n.Cases, n.Failed)})
		hn := historyNight{Label: n.Label(), Name: n.Name, Cases: n.Cases, Passed: n.Passed, Failed: n.Failed, Rate: fmt.Sprintf("%.2f%%", 100*n.PassRate())}
		var names []string
		for _, ci := range n.Failing[:min(len(n.Failing), 20)] {
			names = append(names, h.Cases[ci].Name)
		}
		hn.Failing, hn.FailingMore = strings.Join(names, ", "), max(len(n.Failing)-20, 0)
		p.Nights = append(p.Nights, hn)
	}
	p.RateChart = historyChart{Width: chartW, Height: chartH, Points: strings.Join(pts, " "), Bars: p.RateChart.Bars, Ref: f1(rateY(1)),
		Label: "pass rate and failing cases per night", Top: "100%", Bottom: fmt.Sprintf("%.0f%%", 100*lo)}
	failed, flaky := h.failedAndFlaky()
	if len(failed) > maxCaseRows {
		p.FailedMore = len(failed)
		failed = failed[:maxCaseRows]
	}
	if len(flaky) > maxCaseRows {
		p.FlakyMore = len(flaky)
		flaky = flaky[:maxCaseRows]
	}
	for _, ci := range failed {
		c := &h.Cases[ci]
		hc := h.caseHTML(c)
		hc.FirstFailure, hc.LastPass = h.Nights[c.FirstFailure].Label(), "never"
		hc.Changes = "—"
		if c.LastPass >= 0 {
			hc.LastPass = h.Nights[c.LastPass].Label()
			switch {
			case h.Nights[c.LastPass].Run == nil || h.Nights[c.FirstFailure].Run == nil:
				hc.Changes = "not known (a report without run information)"
			case len(c.Changes) == 0:
				hc.Changes = "no input changed"
			default:
				hc.Changes = changesText(c.Changes)
			}
		}
		if r, ok := c.commitRange(); ok {
			hc.Commits = h.Commits[r]
		}
		p.Failed = append(p.Failed, hc)
	}
	for _, ci := range flaky {
		c := &h.Cases[ci]
		hc := h.caseHTML(c)
		var at []string
		for _, f := range c.Flips {
			at = append(at, h.Nights[f.Failed].Label())
		}
		hc.Flips = strings.Join(at, ", ")
		p.Flaky = append(p.Flaky, hc)
	}
	for _, ci := range h.topBudget(20) {
		c := &h.Cases[ci]
		hc := h.caseHTML(c)
		hc.Peak = fmt.Sprintf("%.0f%%", 100*c.PeakUse())
		hc.Budget = budgetChart(c, step)
		p.Top = append(p.Top, hc)
	}
	var b bytes.Buffer
	if err := historyTemplate.Execute(&b, p); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// caseHTML is a case's row, with its strip of marks.
func (h *History) caseHTML(c *CaseHistory) historyCase {
	hc := historyCase{File: c.File, Name: c.Name, Strip: historyStrip{Width: 2 * len(c.Marks)}}
	for n, m := range c.Marks {
		cell := historyCell{X: strconv.Itoa(2 * n), Class: "absent", Title: h.Nights[n].Label() + ": not run"}
		switch m {
		case MarkPass:
			cell.Class, cell.Title = "pass", h.Nights[n].Label()+": pass"
		case MarkFail:
			cell.Class, cell.Title = "fail", h.Nights[n].Label()+": fail"
		}
		hc.Strip.Cells = append(hc.Strip.Cells, cell)
	}
	return hc
}

// budgetChart draws a case's budget use per night against its limit; the
// top of the chart is the larger of the limit and the peak.
func budgetChart(c *CaseHistory, step float64) *historyChart {
	const hgt = 48
	top := 1.0
	for n := range c.Used {
		if c.Limit[n] > 0 {
			top = max(top, float64(c.Used[n])/float64(c.Limit[n]))
		}
	}
	var pts []string
	for n := range c.Used {
		if c.Limit[n] <= 0 {
			continue
		}
		use := float64(c.Used[n]) / float64(c.Limit[n])
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", step*(float64(n)+0.5), hgt*(1-use/top)))
	}
	return &historyChart{Width: chartW, Height: hgt, Points: strings.Join(pts, " "), Ref: f1(hgt * (1 - 1/top)),
		Label: fmt.Sprintf("budget use of %s per night", c.Name)}
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
