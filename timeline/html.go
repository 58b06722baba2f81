package timeline

import (
	"bytes"
	"fmt"
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
var legendItems = []struct{ swatch, label string }{
	{`<rect width="18" height="12" rx="2" fill="` + colBar + `"/>`, "a source, from valid_from up to (not including) valid_until"},
	{`<rect width="12" height="12" fill="` + colBar + `"/><path d="M12,0 L18,6 L12,12 z" fill="` + colBar + `"/>`, "open-ended: no valid_until, runs to the right edge"},
	{`<path d="M2,0 L8,6 L2,12" fill="none" stroke="` + colBar + `" stroke-width="2"/>`, "cut by the edge of the chart"},
	{`<rect width="18" height="12" fill="` + colConflict + `" fill-opacity="0.3"/><rect x="2" y="2" width="14" height="8" fill="none" stroke="` + colConflict + `" stroke-width="2"/>`, "conflict: sources that both apply on the same dates"},
	{`<rect width="18" height="12" fill="` + colOverlap + `" fill-opacity="0.3"/>`, "overlap of a source and the one it supersedes"},
	{`<rect width="18" height="12" fill="#ffffff" stroke="` + colGap + `" stroke-dasharray="3 2"/>`, "gap: dates between two sources that none covers"},
	{`<path d="M1,10 C1,1 17,1 17,10" fill="none" stroke="` + colLink + `" stroke-width="1.2"/>`, "supersedes: from the replaced source to its successor"},
	{`<line x1="9" y1="0" x2="9" y2="12" stroke="` + colToday + `" stroke-width="2" stroke-dasharray="5 3"/>`, "today"},
	{`<rect width="18" height="12" rx="2" fill="` + colSelected + `" stroke="#000000" stroke-width="2"/>`, "selected for the question"},
}

// WriteHTML writes m as a self-contained HTML page: the SVG chart
// (width pixels wide, as WriteSVG), a legend, and tables of the same
// facts (every source with its dates, every conflict, overlap and gap)
// for screen readers and for copying. It loads nothing and runs no
// script.
func (m *Model) WriteHTML(w io.Writer, width int) error {
	var b bytes.Buffer
	title := fmt.Sprintf("Validity timeline %s to %s", m.From, m.Until)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1"/>` + "\n")
	fmt.Fprintf(&b, "<title>ka2 timeline: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", xesc(title), htmlStyle)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>", xesc(title))
	if !m.Today.IsZero() {
		fmt.Fprintf(&b, "Today is %s. ", m.Today)
	}
	if m.Lang != "" {
		fmt.Fprintf(&b, "Sources in lang %s and those without a lang. ", xesc(m.Lang))
	}
	b.WriteString("One lane per subject and language; each source is a bar over [valid_from, valid_until): valid_until is the first day the source no longer applies.</p>\n")
	b.WriteString("<figure>\n")
	m.svg(&b, width)
	b.WriteString("<figcaption>The chart; the tables below hold the same facts.</figcaption>\n</figure>\n")

	b.WriteString("<h2 id=\"legend\">Legend</h2>\n<ul class=\"legend\">\n")
	for _, it := range legendItems {
		fmt.Fprintf(&b, `<li><svg width="20" height="12" viewBox="0 0 20 12" aria-hidden="true">%s</svg><span>%s</span></li>`+"\n", it.swatch, xesc(it.label))
	}
	b.WriteString("</ul>\n")

	b.WriteString("<h2 id=\"sources\">Sources</h2>\n")
	b.WriteString("<table>\n<caption class=\"sr-only\">Every source on the chart, by lane</caption>\n<thead><tr>" +
		"<th scope=\"col\">Subject</th><th scope=\"col\">Lang</th><th scope=\"col\">Source</th><th scope=\"col\">Version</th>" +
		"<th scope=\"col\">Unit</th><th scope=\"col\">Valid from</th><th scope=\"col\">Valid until (exclusive)</th>" +
		"<th scope=\"col\">Supersedes</th><th scope=\"col\">Notes</th><th scope=\"col\">File</th></tr></thead>\n<tbody>\n")
	for li := range m.Lanes {
		l := &m.Lanes[li]
		for _, bar := range l.Bars {
			var class []string
			var notes []string
			if bar.Conflict {
				class = append(class, "conflict")
				notes = append(notes, "in conflict")
			} else if bar.Overlap {
				notes = append(notes, "overlaps the source it supersedes or its successor")
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
			attr := ""
			if len(class) > 0 {
				attr = ` class="` + strings.Join(class, " ") + `"`
			}
			fmt.Fprintf(&b, "<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				attr, xesc(l.Subject), xesc(orDash(l.Lang)), xesc(bar.SourceID), xesc(bar.Version), xesc(orDash(bar.Unit)),
				bar.ValidFrom, until, xesc(orDash(strings.Join(bar.Supersedes, ", "))), xesc(strings.Join(notes, "; ")), xesc(bar.Path))
		}
	}
	b.WriteString("</tbody>\n</table>\n")

	b.WriteString("<h2 id=\"findings\">Conflicts, overlaps and gaps</h2>\n")
	var rows bytes.Buffer
	for li := range m.Lanes {
		l := &m.Lanes[li]
		for _, o := range l.Overlaps {
			what := "overlap of a supersedes pair"
			if o.Conflict {
				what = "conflict"
			}
			fmt.Fprintf(&rows, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				xesc(l.Subject), xesc(orDash(l.Lang)), what, xesc(o.Interval()), xesc(strings.Join(rawIDs(l, o.Bars), ", ")))
		}
		for _, g := range l.Gaps {
			fmt.Fprintf(&rows, "<tr><td>%s</td><td>%s</td><td>gap</td><td>%s</td><td>none</td></tr>\n",
				xesc(l.Subject), xesc(orDash(l.Lang)), xesc(g.Interval()))
		}
	}
	if rows.Len() == 0 {
		b.WriteString("<p>None: in every lane, each date has at most one source, and no dates lie uncovered between two sources.</p>\n")
	} else {
		b.WriteString("<table>\n<caption class=\"sr-only\">Dates on which several sources apply, or none</caption>\n<thead><tr>" +
			"<th scope=\"col\">Subject</th><th scope=\"col\">Lang</th><th scope=\"col\">What</th><th scope=\"col\">Dates</th><th scope=\"col\">Sources</th></tr></thead>\n<tbody>\n")
		b.Write(rows.Bytes())
		b.WriteString("</tbody>\n</table>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
