package timeline

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SVG sizes, in pixels.
const (
	// MinSVGWidth is the narrowest SVG; DefaultSVGWidth the usual one.
	MinSVGWidth     = 400
	DefaultSVGWidth = 1200
	// MaxSVGWidth bounds the width, so that a typo cannot ask for a
	// gigabyte of picture.
	MaxSVGWidth = 20000

	svgLabelW  = 180 // the lane names' column
	svgRight   = 28  // room right of the plot for the open-ended arrows
	svgTop     = 58  // title and axis above the first lane
	svgRowH    = 24  // one row of bars
	svgBarH    = 18
	svgLanePad = 12
	svgLegendH = 40
	svgCharW   = 6.6 // an estimate of one column of 11 px sans-serif
)

// Colours, chosen to stay apart for colour-blind readers (Tableau 10).
const (
	colBar      = "#4e79a7"
	colSelected = "#f28e2b"
	colConflict = "#d62728"
	colOverlap  = "#edc948"
	colGap      = "#9d9d9d"
	colToday    = "#2ca02c"
	colLink     = "#3b3b3b"
	colGrid     = "#dddddd"
	colLaneBG   = "#f5f5f5"
)

// WriteSVG draws m as a standalone SVG document width pixels wide
// (clamped to MinSVGWidth..MaxSVGWidth). The same model and width always
// give the same bytes. It has no script, no style sheet and no external
// reference: only presentation attributes, so it can be embedded in a
// page whose Content-Security-Policy forbids inline styles.
func (m *Model) WriteSVG(w io.Writer, width int) error {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	m.svg(&b, width)
	_, err := w.Write(b.Bytes())
	return err
}

// svg writes the <svg> element.
func (m *Model) svg(b *bytes.Buffer, width int) {
	width = min(max(width, MinSVGWidth), MaxSVGWidth)
	x0 := float64(svgLabelW)
	x1 := float64(width - svgRight)
	at := func(f float64) float64 { return x0 + f*(x1-x0) }

	height := svgTop + svgLegendH
	for i := range m.Lanes {
		height += laneHeight(&m.Lanes[i])
	}
	if len(m.Lanes) == 0 {
		height += 2 * svgRowH
	}
	conflicts, gaps, sources := 0, 0, 0
	for i := range m.Lanes {
		sources += len(m.Lanes[i].Bars)
		gaps += len(m.Lanes[i].Gaps)
		for _, o := range m.Lanes[i].Overlaps {
			if o.Conflict {
				conflicts++
			}
		}
	}
	title := fmt.Sprintf("Validity timeline %s to %s", m.From, m.Until)
	if !m.Today.IsZero() {
		title += ", today " + m.Today.String()
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="ka2-tl-title ka2-tl-desc" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(b, `<title id="ka2-tl-title">%s</title>`+"\n", xesc(title))
	fmt.Fprintf(b, `<desc id="ka2-tl-desc">%d lanes (subject and language), %d source bars, %d conflicts, %d gaps. Bars run over [valid_from, valid_until): the end date is the first day a source no longer applies.</desc>`+"\n",
		len(m.Lanes), sources, conflicts, gaps)
	b.WriteString(`<defs>` +
		`<pattern id="ka2-gap" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="` + colGap + `" stroke-width="3"/></pattern>` +
		`<marker id="ka2-arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="` + colLink + `"/></marker>` +
		"</defs>\n")
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	fmt.Fprintf(b, `<text x="8" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", xesc(title))

	// Axis: a grid line and a label per tick; labels that would run into
	// the previous one are left out (the grid line stays).
	bottom := float64(height - svgLegendH)
	b.WriteString(`<g class="axis">` + "\n")
	next := 0.0
	for _, t := range m.Ticks(int((x1 - x0) / 60)) {
		tx := at(m.Pos(t.Date))
		fmt.Fprintf(b, `<line x1="%s" y1="%d" x2="%s" y2="%s" stroke="%s"/>`+"\n", num(tx), svgTop-12, num(tx), num(bottom), colGrid)
		if tx >= next {
			fmt.Fprintf(b, `<text x="%s" y="%d">%s</text>`+"\n", num(tx+3), svgTop-16, xesc(t.Label))
			next = tx + 3 + float64(len(t.Label))*7 + 8
		}
	}
	b.WriteString("</g>\n")

	y := float64(svgTop)
	for li := range m.Lanes {
		l := &m.Lanes[li]
		h := float64(laneHeight(l))
		fmt.Fprintf(b, `<g class="lane" data-subject="%s" data-lang="%s">`+"\n", xesc(l.Subject), xesc(l.Lang))
		if li%2 == 0 {
			fmt.Fprintf(b, `<rect x="0" y="%s" width="%d" height="%s" fill="%s" fill-opacity="0.6"/>`+"\n", num(y), width, num(h), colLaneBG)
		}
		fmt.Fprintf(b, `<text x="8" y="%s" font-weight="bold"><title>%s</title>%s</text>`+"\n",
			num(y+svgLanePad+13), xesc(l.Name()), xesc(fitPx(l.Name(), svgLabelW-16, 7.2)))
		// Gaps and overlaps shade the whole lane height under the bars.
		for _, g := range l.Gaps {
			if !g.From.Before(m.Until) || !m.From.Before(g.Until) {
				continue
			}
			gx0, gx1 := at(m.Pos(g.From)), at(m.Pos(g.Until))
			fmt.Fprintf(b, `<rect class="gap" x="%s" y="%s" width="%s" height="%s" fill="url(#ka2-gap)" fill-opacity="0.7"><title>gap %s: no source applies</title></rect>`+"\n",
				num(gx0), num(y+2), num(max(gx1-gx0, 2)), num(h-4), xesc(g.Interval()))
		}
		for _, o := range l.Overlaps {
			if !o.From.Before(m.Until) || (!o.Until.IsZero() && !m.From.Before(o.Until)) {
				continue
			}
			ox0, ox1 := at(m.Pos(o.From)), x1
			if !o.Until.IsZero() {
				ox1 = at(m.Pos(o.Until))
			}
			class, col, what := "overlap", colOverlap, "overlap of a supersedes pair"
			if o.Conflict {
				class, col, what = "overlap conflict", colConflict, "conflict"
			}
			fmt.Fprintf(b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.3"><title>%s %s: %s all apply</title></rect>`+"\n",
				class, num(ox0), num(y+2), num(max(ox1-ox0, 2)), num(h-4), col, what, xesc(o.Interval()), xesc(strings.Join(rawIDs(l, o.Bars), ", ")))
		}
		for _, bar := range l.Bars {
			bx0, bx1 := at(m.Pos(bar.Start)), at(m.Pos(bar.End))
			if bar.End == m.Until {
				bx1 = x1
			}
			bw := max(bx1-bx0, 1)
			by := y + svgLanePad + float64(bar.Row*svgRowH)
			class := "bar"
			fill, stroke, sw := colBar, "#ffffff", "1"
			if bar.Conflict {
				class += " conflict"
				stroke, sw = colConflict, "2"
			}
			if bar.Open {
				class += " open"
			}
			if bar.Selected {
				class += " selected"
				fill, stroke, sw = colSelected, "#000000", "2"
			}
			fmt.Fprintf(b, `<g class="%s" data-source="%s" data-lang="%s">`, class, xesc(bar.SourceID), xesc(bar.Lang))
			tip := fmt.Sprintf("%s %s", bar.SourceID, bar.Version)
			if bar.Lang != "" {
				tip += " (" + bar.Lang + ")"
			}
			tip += ": " + bar.Interval()
			if bar.Unit != "" {
				tip += "; unit " + bar.Unit
			}
			if len(bar.Supersedes) > 0 {
				tip += "; supersedes " + strings.Join(bar.Supersedes, ", ")
			}
			if bar.Conflict {
				tip += "; in conflict"
			}
			if bar.Selected {
				tip += "; selected"
			}
			tip += "; " + bar.Path
			fmt.Fprintf(b, `<title>%s</title>`, xesc(tip))
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%d" rx="2" fill="%s" stroke="%s" stroke-width="%s"/>`,
				num(bx0), num(by), num(bw), svgBarH, fill, stroke, sw)
			mid := by + svgBarH/2
			if bar.Open {
				fmt.Fprintf(b, `<path d="M%s,%s L%s,%s L%s,%s z" fill="%s"/>`, num(x1), num(by), num(x1+10), num(mid), num(x1), num(by+svgBarH), fill)
			}
			if bar.ClippedEnd {
				fmt.Fprintf(b, `<path d="M%s,%s L%s,%s L%s,%s" fill="none" stroke="%s" stroke-width="2"/>`, num(x1+2), num(by), num(x1+8), num(mid), num(x1+2), num(by+svgBarH), fill)
			}
			if bar.ClippedStart {
				fmt.Fprintf(b, `<path d="M%s,%s L%s,%s L%s,%s" fill="none" stroke="%s" stroke-width="2"/>`, num(x0-2), num(by), num(x0-8), num(mid), num(x0-2), num(by+svgBarH), fill)
			}
			if label := fitPx(bar.Label(), bw-8, svgCharW); label != "" {
				textFill := "#ffffff"
				if bar.Selected {
					textFill = "#000000"
				}
				fmt.Fprintf(b, `<text x="%s" y="%s" font-size="11" fill="%s">%s</text>`, num(bx0+4), num(by+13), textFill, xesc(label))
			}
			b.WriteString("</g>\n")
		}
		for _, k := range l.Links {
			from, to := l.Bars[k.From], l.Bars[k.To]
			// From the end of the superseded bar to the start of its
			// successor, arched over the bars; left out where the bars
			// are too narrow to tell the arrows apart (the tables and
			// tooltips still say it).
			ax0, ax1 := at(m.Pos(to.Start)), at(m.Pos(to.End))
			bx0, bx1 := at(m.Pos(from.Start)), at(m.Pos(from.End))
			if ax1-ax0 < 12 || bx1-bx0 < 12 {
				continue
			}
			ax := max(ax0+(ax1-ax0)/2, ax1-36)
			bx := min(bx0+(bx1-bx0)/2, bx0+36)
			ay := y + svgLanePad + float64(to.Row*svgRowH)
			by := y + svgLanePad + float64(from.Row*svgRowH)
			lift := 13.0
			fmt.Fprintf(b, `<path class="link" d="M%s,%s C%s,%s %s,%s %s,%s" fill="none" stroke="%s" stroke-width="1.2" marker-end="url(#ka2-arrow)"><title>%s supersedes %s</title></path>`+"\n",
				num(ax), num(ay), num(ax), num(ay-lift), num(bx), num(by-lift), num(bx), num(by), colLink, xesc(from.SourceID), xesc(to.SourceID))
		}
		b.WriteString("</g>\n")
		y += h
	}
	if len(m.Lanes) == 0 {
		fmt.Fprintf(b, `<text x="%s" y="%s">no source to show</text>`+"\n", num(x0), num(y+svgRowH))
	}
	if !m.Today.IsZero() && !m.Today.Before(m.From) && m.Today.Before(m.Until) {
		tx := at(m.Pos(m.Today))
		fmt.Fprintf(b, `<g class="today"><title>today %s</title><line x1="%s" y1="%d" x2="%s" y2="%s" stroke="%s" stroke-width="2" stroke-dasharray="5 3"/>`+
			`<text x="%s" y="%d" fill="%s" text-anchor="middle" font-weight="bold">today</text></g>`+"\n",
			m.Today, num(tx), svgTop-10, num(tx), num(bottom), colToday, num(tx), svgTop-2, colToday)
	}
	m.svgLegend(b, bottom+14)
	b.WriteString("</svg>\n")
}

// svgLegend draws the key of colours and marks in one line at y.
func (m *Model) svgLegend(b *bytes.Buffer, y float64) {
	items := []struct{ swatch, label string }{
		{`<rect width="18" height="12" rx="2" fill="` + colBar + `"/>`, "source [valid_from, valid_until)"},
		{`<rect width="12" height="12" fill="` + colBar + `"/><path d="M12,0 L18,6 L12,12 z" fill="` + colBar + `"/>`, "open-ended"},
		{`<rect width="18" height="12" fill="` + colConflict + `" fill-opacity="0.3"/><rect x="2" y="2" width="14" height="8" fill="none" stroke="` + colConflict + `" stroke-width="2"/>`, "conflict"},
		{`<rect width="18" height="12" fill="` + colOverlap + `" fill-opacity="0.3"/>`, "overlap, supersedes"},
		{`<rect width="18" height="12" fill="url(#ka2-gap)"/>`, "gap"},
		{`<path d="M1,10 C1,1 17,1 17,10" fill="none" stroke="` + colLink + `" stroke-width="1.2" marker-end="url(#ka2-arrow)"/>`, "supersedes"},
		{`<line x1="9" y1="0" x2="9" y2="12" stroke="` + colToday + `" stroke-width="2" stroke-dasharray="5 3"/>`, "today"},
		{`<rect width="18" height="12" rx="2" fill="` + colSelected + `" stroke="#000000" stroke-width="2"/>`, "selected"},
	}
	fmt.Fprintf(b, `<g class="legend" transform="translate(8,%s)">`, num(y))
	x := 0.0
	for _, it := range items {
		fmt.Fprintf(b, `<g transform="translate(%s,0)">%s<text x="24" y="10" font-size="11">%s</text></g>`, num(x), it.swatch, xesc(it.label))
		x += 24 + float64(len(it.label))*svgCharW + 16
	}
	b.WriteString("</g>\n")
}

func laneHeight(l *Lane) int { return 2*svgLanePad + l.Rows*svgRowH }

func rawIDs(l *Lane, idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = l.Bars[k].SourceID
	}
	return out
}

// fitPx cuts s to what fits in px pixels at charW per column, or "" when
// fewer than three columns would show.
func fitPx(s string, px, charW float64) string {
	n := int(px / charW)
	if n < 3 {
		return ""
	}
	return fit(s, n)
}

// num formats a coordinate with one decimal, without a trailing ".0".
func num(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// xesc escapes s for XML and HTML text and attributes; characters XML 1.0
// cannot hold become U+FFFD.
func xesc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\t', r == '\n', r == '\r', 0x20 <= r && r <= 0xD7FF, 0xE000 <= r && r <= 0xFFFD, 0x10000 <= r && r <= 0x10FFFF:
			b.WriteRune(r)
		default:
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}
