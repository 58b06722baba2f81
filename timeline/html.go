package timeline

import (
	"bytes"
	"html/template"
	"io"
	"strings"
)

// htmlStyle is the page's style sheet; the SVG itself carries its
// colours as attributes.
const htmlStyle = `body{font-family:sans-serif;margin:1.5rem;color:#222;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}
figure{margin:0;overflow-x:auto}figcaption{font-size:.9rem;color:#555}
ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1.4rem}
ul.legend li{display:flex;align-items:center;gap:.4rem}
table{border-collapse:collapse;font-size:.9rem}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f0f0}tr.conflict td{background:#fde2e2}tr.selected td{font-weight:bold}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}
`

// legendItems are the HTML legend: a small SVG swatch and its meaning.
var legendItems = []svgLegendItem{
	{Swatch: swatchBar, Label: "a source, from valid_from up to (not including) valid_until"},
	{Swatch: swatchOpen, Label: "open-ended: no valid_until, runs to the right edge"},
	{Swatch: swatchCut, Label: "cut by the edge of the chart"},
	{Swatch: swatchConflict, Label: "conflict: sources that both apply on the same dates"},
	{Swatch: swatchOverlap, Label: "overlap of a source and the one it supersedes"},
	{Swatch: swatchSupplement, Label: "supplement (role: supplement): applies beside the others of its subjects by design, never a conflict"},
	{Swatch: swatchGapPlain, Label: "gap: dates between two sources that none covers"},
	{Swatch: swatchLinkPlain, Label: "supersedes: from the replaced source to its successor"},
	{Swatch: swatchToday, Label: "today"},
	{Swatch: swatchSelected, Label: "selected for the question"},
}

// pageTemplate is the HTML page around the SVG; like svgTemplate, it
// escapes every value for where it lands.
var pageTemplate = template.Must(template.Must(svgTemplate.Clone()).New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>ka2 timeline: {{.SVG.Title}}</title>
<style>
` + htmlStyle + `</style>
</head>
<body>
<main>
<h1>{{.SVG.Title}}</h1>
<p>{{with .Today}}Today is {{.}}. {{end}}{{with .Lang}}Sources in lang {{.}} and those without a lang. {{end}}One lane per subject and language; each source is a bar over [valid_from, valid_until): valid_until is the first day the source no longer applies.</p>
<figure>
{{template "svg" .SVG}}<figcaption>The chart; the tables below hold the same facts.</figcaption>
</figure>
<h2 id="legend">Legend</h2>
<ul class="legend">
{{range .Legend}}<li><svg width="20" height="12" viewBox="0 0 20 12" aria-hidden="true">{{.Swatch}}</svg><span>{{.Label}}</span></li>
{{end}}</ul>
<h2 id="sources">Sources</h2>
<table>
<caption class="sr-only">Every source on the chart, by lane</caption>
<thead><tr><th scope="col">Subject</th><th scope="col">Lang</th><th scope="col">Source</th><th scope="col">Version</th><th scope="col">Unit</th><th scope="col">Valid from</th><th scope="col">Valid until (exclusive)</th><th scope="col">Supersedes</th><th scope="col">Notes</th><th scope="col">File</th></tr></thead>
<tbody>
{{range .Sources}}<tr{{with .Class}} class="{{.}}"{{end}}>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<h2 id="findings">Conflicts, overlaps, supplements and gaps</h2>
{{if .Findings}}<table>
<caption class="sr-only">Dates on which several sources apply, or none</caption>
<thead><tr><th scope="col">Subject</th><th scope="col">Lang</th><th scope="col">What</th><th scope="col">Dates</th><th scope="col">Sources</th></tr></thead>
<tbody>
{{range .Findings}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{else}}<p>None: in every lane, each date has at most one source, and no dates lie uncovered between two sources.</p>
{{end}}</main>
</body>
</html>
`))

// pageData is what pageTemplate draws.
type pageData struct {
	SVG               *svgData
	Today, Lang       string
	Legend            []svgLegendItem
	Sources, Findings []pageRow
}

type pageRow struct {
	Class string
	Cells []string
}

// WriteHTML writes m as a self-contained HTML page: the SVG chart
// (width pixels wide, as WriteSVG), a legend, and tables of the same
// facts (every source with its dates, every conflict, overlap,
// supplement and gap) for screen readers and for copying. It loads
// nothing and runs no script.
func (m *Model) WriteHTML(w io.Writer, width int) error {
	d := pageData{SVG: m.svgData(width), Lang: m.Lang, Legend: legendItems}
	if !m.Today.IsZero() {
		d.Today = m.Today.String()
	}
	for li := range m.Lanes {
		l := &m.Lanes[li]
		for _, bar := range l.Bars {
			var class, notes []string
			if bar.Supplement {
				notes = append(notes, "supplement: applies beside the others by design")
			}
			if bar.Conflict {
				class = append(class, "conflict")
				notes = append(notes, "in conflict")
			} else if bar.Overlap && !bar.Supplement {
				notes = append(notes, "overlaps the source it supersedes, its successor or a supplement")
			}
			if bar.Selected {
				class = append(class, "selected")
				notes = append(notes, "selected")
			}
			if bar.ClippedStart || bar.ClippedEnd {
				notes = append(notes, "cut by the chart's dates")
			}
			if bar.Lang == "" && l.Lang != "" {
				notes = append(notes, "no lang: applies to every language")
			}
			until := "open-ended"
			if !bar.ValidUntil.IsZero() {
				until = bar.ValidUntil.String()
			}
			d.Sources = append(d.Sources, pageRow{Class: strings.Join(class, " "), Cells: []string{l.Subject, orDash(l.Lang), bar.SourceID, bar.Version,
				orDash(bar.Unit), bar.ValidFrom.String(), until, orDash(strings.Join(bar.Supersedes, ", ")), strings.Join(notes, "; "), bar.Path}})
		}
	}
	for li := range m.Lanes {
		l := &m.Lanes[li]
		for _, o := range l.Overlaps {
			what := "overlap of a supersedes pair"
			switch {
			case o.Conflict:
				what = "conflict"
			case o.Supplement:
				what = "supplement: applies together by design"
			}
			d.Findings = append(d.Findings, pageRow{Cells: []string{l.Subject, orDash(l.Lang), what, o.Interval(), strings.Join(rawIDs(l, o.Bars), ", ")}})
		}
		for _, g := range l.Gaps {
			d.Findings = append(d.Findings, pageRow{Cells: []string{l.Subject, orDash(l.Lang), "gap", g.Interval(), "none"}})
		}
	}
	var b bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&b, "page", d); err != nil {
		return err
	}
	_, err := w.Write(xmlSafe(b.Bytes()))
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
