package timeline

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
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
	svgNameW   = 7.2 // one column of a lane's name, 12 px bold
	svgNameH   = 14  // one line of a lane's name
)

// Colours, chosen to stay apart for colour-blind readers (Tableau 10).
const (
	colBar        = "#4e79a7"
	colSelected   = "#f28e2b"
	colConflict   = "#d62728"
	colOverlap    = "#edc948"
	colSupplement = "#76b7b2"
	colGap        = "#9d9d9d"
	colToday      = "#2ca02c"
	colLink       = "#3b3b3b"
	colGrid       = "#dddddd"
	colLaneBG     = "#f5f5f5"
)

// Swatches of the legends (the SVG's and the HTML page's): constant
// markup, never data.
const (
	swatchBar        template.HTML = `<rect width="18" height="12" rx="2" fill="` + colBar + `"/>`
	swatchOpen       template.HTML = `<rect width="12" height="12" fill="` + colBar + `"/><path d="M12,0 L18,6 L12,12 z" fill="` + colBar + `"/>`
	swatchCut        template.HTML = `<path d="M2,0 L8,6 L2,12" fill="none" stroke="` + colBar + `" stroke-width="2"/>`
	swatchConflict   template.HTML = `<rect width="18" height="12" fill="` + colConflict + `" fill-opacity="0.3"/><rect x="2" y="2" width="14" height="8" fill="none" stroke="` + colConflict + `" stroke-width="2"/>`
	swatchOverlap    template.HTML = `<rect width="18" height="12" fill="` + colOverlap + `" fill-opacity="0.3"/>`
	swatchSupplement template.HTML = `<rect width="18" height="12" rx="2" fill="` + colSupplement + `" stroke="#000000" stroke-width="1" stroke-dasharray="3 2"/>`
	swatchGap        template.HTML = `<rect width="18" height="12" fill="url(#ka2-gap)"/>`
	swatchGapPlain   template.HTML = `<rect width="18" height="12" fill="#ffffff" stroke="` + colGap + `" stroke-dasharray="3 2"/>`
	swatchLink       template.HTML = `<path d="M1,10 C1,1 17,1 17,10" fill="none" stroke="` + colLink + `" stroke-width="1.2" marker-end="url(#ka2-arrow)"/>`
	swatchLinkPlain  template.HTML = `<path d="M1,10 C1,1 17,1 17,10" fill="none" stroke="` + colLink + `" stroke-width="1.2"/>`
	swatchToday      template.HTML = `<line x1="9" y1="0" x2="9" y2="12" stroke="` + colToday + `" stroke-width="2" stroke-dasharray="5 3"/>`
	swatchSelected   template.HTML = `<rect width="18" height="12" rx="2" fill="` + colSelected + `" stroke="#000000" stroke-width="2"/>`
)

// svgTemplate draws an svgData. Every value is escaped by html/template
// for where it lands (text, attribute); the markup is only the template's.
var svgTemplate = template.Must(template.New("svg").Parse(`{{define "svg" -}}
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-labelledby="ka2-tl-title ka2-tl-desc" font-family="sans-serif" font-size="12">
<title id="ka2-tl-title">{{.Title}}</title>
<desc id="ka2-tl-desc">{{.Lanes | len}} lanes (subject and language), {{.Sources}} source bars, {{.Conflicts}} conflicts, {{.Gaps}} gaps. Bars run over [valid_from, valid_until): the end date is the first day a source no longer applies.</desc>
<defs><pattern id="ka2-gap" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="{{.ColGap}}" stroke-width="3"/></pattern><marker id="ka2-arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="{{.ColLink}}"/></marker></defs>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="8" y="20" font-size="14" font-weight="bold">{{.Title}}</text>
<g class="axis">
{{range .Ticks}}<line x1="{{.X}}" y1="{{.Y1}}" x2="{{.X}}" y2="{{.Y2}}" stroke="{{.Stroke}}"/>
{{if .Label}}<text x="{{.LabelX}}" y="{{.LabelY}}">{{.Label}}</text>
{{end}}{{end}}</g>
{{range .Lanes}}<g class="lane" data-subject="{{.Subject}}" data-lang="{{.Lang}}">
{{if .Shade}}<rect x="0" y="{{.Y}}" width="{{.Width}}" height="{{.H}}" fill="{{.Fill}}" fill-opacity="0.6"/>
{{end}}<text x="8" y="{{.NameY}}" font-weight="bold"><title>{{.Name}}</title>{{range .NameLines}}<tspan x="8" y="{{.Y}}">{{.Text}}</tspan>{{end}}</text>
{{range .Gaps}}<rect class="gap" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="url(#ka2-gap)" fill-opacity="0.7"><title>{{.Title}}</title></rect>
{{end}}{{range .Overlaps}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Fill}}" fill-opacity="0.3"><title>{{.Title}}</title></rect>
{{end}}{{range .Bars}}<g class="{{.Class}}" data-source="{{.Source}}" data-lang="{{.Lang}}"><title>{{.Tip}}</title><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="2" fill="{{.Fill}}" stroke="{{.Stroke}}" stroke-width="{{.StrokeW}}"{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}/>{{range .Marks}}<path d="{{.D}}" fill="{{.Fill}}"{{if .Stroke}} stroke="{{.Stroke}}" stroke-width="2"{{end}}/>{{end}}{{if .Label}}<text x="{{.LabelX}}" y="{{.LabelY}}" font-size="11" fill="{{.TextFill}}">{{.Label}}</text>{{end}}</g>
{{end}}{{range .Links}}<path class="link" d="{{.D}}" fill="none" stroke="{{.Stroke}}" stroke-width="1.2" marker-end="url(#ka2-arrow)"><title>{{.Title}}</title></path>
{{end}}</g>
{{end}}{{with .Empty}}<text x="{{.X}}" y="{{.Y}}">no source to show</text>
{{end}}{{with .Today}}<g class="today"><title>{{.Title}}</title><line x1="{{.X}}" y1="{{.Y1}}" x2="{{.X}}" y2="{{.Y2}}" stroke="{{.Stroke}}" stroke-width="2" stroke-dasharray="5 3"/><text x="{{.X}}" y="{{.TextY}}" fill="{{.Stroke}}" text-anchor="middle" font-weight="bold">today</text></g>
{{end}}<g class="legend" transform="translate(8,{{.LegendY}})">{{range .Legend}}<g transform="translate({{.X}},0)">{{.Swatch}}<text x="24" y="10" font-size="11">{{.Label}}</text></g>{{end}}</g>
</svg>
{{end}}`))

// svgData is what svgTemplate draws; coordinates are formatted by num.
type svgData struct {
	Width, Height            int
	Title                    string
	Sources, Conflicts, Gaps int
	ColGap, ColLink          string
	Ticks                    []svgTick
	Lanes                    []svgLane
	Empty                    *svgPoint
	Today                    *svgToday
	LegendY                  string
	Legend                   []svgLegendItem
}

type svgTick struct {
	X, Y1, Y2, Stroke, LabelX, LabelY, Label string
}

type svgLane struct {
	Subject, Lang, Name string
	Shade               bool
	Y, H, Fill, NameY   string
	Width               int
	NameLines           []svgText
	Gaps, Overlaps      []svgRect
	Bars                []svgBar
	Links               []svgLink
}

type svgText struct{ Y, Text string }

type svgRect struct{ Class, X, Y, W, H, Fill, Title string }

type svgBar struct {
	Class, Source, Lang, Tip                string
	X, Y, W, H, Fill, Stroke, StrokeW, Dash string
	Marks                                   []svgPath
	Label, LabelX, LabelY, TextFill         string
}

type svgPath struct{ D, Fill, Stroke string }

type svgLink struct{ D, Stroke, Title string }

type svgPoint struct{ X, Y string }

type svgToday struct{ Title, X, Y1, Y2, TextY, Stroke string }

type svgLegendItem struct {
	X      string
	Swatch template.HTML
	Label  string
}

// WriteSVG draws m as a standalone SVG document width pixels wide
// (clamped to MinSVGWidth..MaxSVGWidth). The same model and width always
// give the same bytes. It has no script, no style sheet and no external
// reference: only presentation attributes, so it can be embedded in a
// page whose Content-Security-Policy forbids inline styles.
func (m *Model) WriteSVG(w io.Writer, width int) error {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	if err := svgTemplate.ExecuteTemplate(&b, "svg", m.svgData(width)); err != nil {
		return err
	}
	_, err := w.Write(xmlSafe(b.Bytes()))
	return err
}

// svgData lays the model out in pixels: the frame and its summary, the
// axis, the lanes, today's line and the legend.
func (m *Model) svgData(width int) *svgData {
	g := m.svgLayout(width)
	d := &svgData{Width: g.width, Height: g.height, ColGap: colGap, ColLink: colLink}
	m.svgSummary(d)
	d.Ticks = m.svgAxis(g)
	y := float64(svgTop)
	for li := range m.Lanes {
		sl := m.svgLaneOf(g, li, y)
		d.Lanes = append(d.Lanes, sl)
		y += float64(laneHeight(&m.Lanes[li], len(g.names[li])))
	}
	if len(m.Lanes) == 0 {
		d.Empty = &svgPoint{X: num(g.x0), Y: num(y + svgRowH)}
	}
	if !m.Today.IsZero() && !m.Today.Before(m.From) && m.Today.Before(m.Until) {
		tx := g.at(m.Pos(m.Today))
		d.Today = &svgToday{Title: "today " + m.Today.String(), X: num(tx), Y1: strconv.Itoa(svgTop - 10), Y2: num(g.bottom),
			TextY: strconv.Itoa(svgTop - 2), Stroke: colToday}
	}
	d.LegendY, d.Legend = num(g.bottom+14), svgLegend()
	return d
}

// svgGrid is where an SVG timeline puts things: the plot runs from x0 to
// x1, above the legend at bottom; names holds each lane's name, wrapped
// to its column.
type svgGrid struct {
	width, height  int
	x0, x1, bottom float64
	names          [][]string
}

// at is the x of position f of the period.
func (g svgGrid) at(f float64) float64 { return g.x0 + f*(g.x1-g.x0) }

// svgLayout sizes the picture, width clamped to MinSVGWidth..MaxSVGWidth:
// a lane's name wraps in its column (after a '/' where it can), never
// cut, for two lanes must not read alike, and a lane is as tall as its
// rows of bars or its name.
func (m *Model) svgLayout(width int) svgGrid {
	width = min(max(width, MinSVGWidth), MaxSVGWidth)
	nameW := float64(svgLabelW - 16)
	nameCols := int(nameW / svgNameW)
	g := svgGrid{width: width, x0: svgLabelW, x1: float64(width - svgRight), names: make([][]string, len(m.Lanes)), height: svgTop + svgLegendH}
	for i := range m.Lanes {
		g.names[i] = wrap(m.Lanes[i].Name(), nameCols, nameCols, true)
		g.height += laneHeight(&m.Lanes[i], len(g.names[i]))
	}
	if len(m.Lanes) == 0 {
		g.height += 2 * svgRowH
	}
	g.bottom = float64(g.height - svgLegendH)
	return g
}

// svgSummary sets the title and the counts the description gives.
func (m *Model) svgSummary(d *svgData) {
	for i := range m.Lanes {
		d.Sources += len(m.Lanes[i].Bars)
		d.Gaps += len(m.Lanes[i].Gaps)
		for _, o := range m.Lanes[i].Overlaps {
			if o.Conflict {
				d.Conflicts++
			}
		}
	}
	d.Title = "Validity timeline " + interval(m.From, m.Until)
	if !m.Today.IsZero() {
		d.Title += ", today " + m.Today.String()
	}
}

// svgAxis makes a grid line and a label per tick; labels that would run
// into the previous one are left out (the grid line stays).
func (m *Model) svgAxis(g svgGrid) []svgTick {
	var ticks []svgTick
	next := 0.0
	for _, t := range m.Ticks(int((g.x1 - g.x0) / 60)) {
		tx := g.at(m.Pos(t.Date))
		tk := svgTick{X: num(tx), Y1: strconv.Itoa(svgTop - 12), Y2: num(g.bottom), Stroke: colGrid}
		if tx >= next {
			tk.Label, tk.LabelX, tk.LabelY = t.Label, num(tx+3), strconv.Itoa(svgTop-16)
			next = tx + 3 + float64(len(t.Label))*7 + 8
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// svgLaneOf draws lane li, whose top is at y: its name, the gaps and
// overlaps shading the lane under its bars, the bars, and the arrows of
// supersedes links.
func (m *Model) svgLaneOf(g svgGrid, li int, y float64) svgLane {
	l := &m.Lanes[li]
	h := float64(laneHeight(l, len(g.names[li])))
	sl := svgLane{Subject: l.Subject, Lang: l.Lang, Name: l.Name(), Shade: li%2 == 0, Y: num(y), H: num(h), Fill: colLaneBG, Width: g.width,
		NameY: num(y + svgLanePad + 13)}
	for k, line := range g.names[li] {
		sl.NameLines = append(sl.NameLines, svgText{Y: num(y + svgLanePad + 13 + float64(k*svgNameH)), Text: line})
	}
	for _, gap := range l.Gaps {
		if !gap.From.Before(m.Until) || !m.From.Before(gap.Until) {
			continue
		}
		gx0, gx1 := g.at(m.Pos(gap.From)), g.at(m.Pos(gap.Until))
		sl.Gaps = append(sl.Gaps, svgRect{X: num(gx0), Y: num(y + 2), W: num(max(gx1-gx0, 2)), H: num(h - 4),
			Title: "gap " + gap.Interval() + ": no source applies"})
	}
	for _, o := range l.Overlaps {
		if r, ok := m.svgOverlap(g, l, o, y, h); ok {
			sl.Overlaps = append(sl.Overlaps, r)
		}
	}
	for _, bar := range l.Bars {
		sl.Bars = append(sl.Bars, svgBarOf(bar, m, g.at, g.x0, g.x1, y))
	}
	for _, k := range l.Links {
		if link, ok := m.svgLinkOf(g, l, k, y); ok {
			sl.Links = append(sl.Links, link)
		}
	}
	return sl
}

// svgOverlap shades overlap o of lane l (top y, height h); a
// supplement's overlap without conflict is by design, its bar says so,
// and is not shaded, nor is one off the axis.
func (m *Model) svgOverlap(g svgGrid, l *Lane, o Overlap, y, h float64) (svgRect, bool) {
	if o.Supplement && !o.Conflict {
		return svgRect{}, false
	}
	if !o.From.Before(m.Until) || (!o.Until.IsZero() && !m.From.Before(o.Until)) {
		return svgRect{}, false
	}
	ox0, ox1 := g.at(m.Pos(o.From)), g.x1
	if !o.Until.IsZero() {
		ox1 = g.at(m.Pos(o.Until))
	}
	class, col, what := "overlap", colOverlap, "overlap of a supersedes pair"
	if o.Conflict {
		class, col, what = "overlap conflict", colConflict, "conflict"
	}
	return svgRect{Class: class, X: num(ox0), Y: num(y + 2), W: num(max(ox1-ox0, 2)), H: num(h - 4), Fill: col,
		Title: what + " " + o.Interval() + ": " + strings.Join(rawIDs(l, o.Bars), ", ") + " all apply"}, true
}

// svgLinkOf draws link k of lane l (top y) from the end of the
// superseded bar to the start of its successor, arched over the bars;
// it is left out where the bars are too narrow to tell the arrows apart
// (the tables and tooltips still say it).
func (m *Model) svgLinkOf(g svgGrid, l *Lane, k Link, y float64) (svgLink, bool) {
	from, to := l.Bars[k.From], l.Bars[k.To]
	ax0, ax1 := g.at(m.Pos(to.Start)), g.at(m.Pos(to.End))
	bx0, bx1 := g.at(m.Pos(from.Start)), g.at(m.Pos(from.End))
	if ax1-ax0 < 12 || bx1-bx0 < 12 {
		return svgLink{}, false
	}
	ax := max(ax0+(ax1-ax0)/2, ax1-36)
	bx := min(bx0+(bx1-bx0)/2, bx0+36)
	ay := y + svgLanePad + float64(to.Row*svgRowH)
	by := y + svgLanePad + float64(from.Row*svgRowH)
	lift := 13.0
	return svgLink{Stroke: colLink, Title: from.SourceID + " supersedes " + to.SourceID,
		D: fmt.Sprintf("M%s,%s C%s,%s %s,%s %s,%s", num(ax), num(ay), num(ax), num(ay-lift), num(bx), num(by-lift), num(bx), num(by))}, true
}

// svgLegend lays the legend's items out in a row.
func svgLegend() []svgLegendItem {
	var out []svgLegendItem
	x := 0.0
	for _, it := range []struct {
		swatch template.HTML
		label  string
	}{
		{swatchBar, "source [valid_from, valid_until)"},
		{swatchOpen, "open-ended"},
		{swatchConflict, "conflict"},
		{swatchOverlap, "overlap, supersedes"},
		{swatchSupplement, "supplement"},
		{swatchGap, "gap"},
		{swatchLink, "supersedes"},
		{swatchToday, "today"},
		{swatchSelected, "selected"},
	} {
		out = append(out, svgLegendItem{X: num(x), Swatch: it.swatch, Label: it.label})
		x += 24 + float64(len(it.label))*svgCharW + 16
	}
	return out
}

// svgBarOf draws one bar of the lane at y.
func svgBarOf(bar Bar, m *Model, at func(float64) float64, x0, x1, y float64) svgBar {
	bx0, bx1 := at(m.Pos(bar.Start)), at(m.Pos(bar.End))
	if bar.End == m.Until {
		bx1 = x1
	}
	bw := max(bx1-bx0, 1)
	by := y + svgLanePad + float64(bar.Row*svgRowH)
	sb := svgBar{Class: "bar", Source: bar.SourceID, Lang: bar.Lang, X: num(bx0), Y: num(by), W: num(bw), H: strconv.Itoa(svgBarH),
		Fill: colBar, Stroke: "#ffffff", StrokeW: "1", TextFill: "#ffffff"}
	if bar.Supplement {
		sb.Class += " supplement"
		sb.Fill, sb.Stroke, sb.Dash, sb.TextFill = colSupplement, "#000000", "3 2", "#000000"
	}
	if bar.Conflict {
		sb.Class += " conflict"
		sb.Stroke, sb.StrokeW = colConflict, "2"
	}
	if bar.Open {
		sb.Class += " open"
	}
	if bar.Selected {
		sb.Class += " selected"
		sb.Fill, sb.Stroke, sb.StrokeW, sb.TextFill = colSelected, "#000000", "2", "#000000"
	}
	tip := bar.SourceID + " " + bar.Version
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
	if bar.Supplement {
		tip += "; supplement: applies beside the others by design"
	}
	if bar.Conflict {
		tip += "; in conflict"
	}
	if bar.Selected {
		tip += "; selected"
	}
	sb.Tip = tip + "; " + bar.Path
	mid := by + svgBarH/2
	if bar.Open {
		sb.Marks = append(sb.Marks, svgPath{Fill: sb.Fill, D: fmt.Sprintf("M%s,%s L%s,%s L%s,%s z", num(x1), num(by), num(x1+10), num(mid), num(x1), num(by+svgBarH))})
	}
	if bar.ClippedEnd {
		sb.Marks = append(sb.Marks, svgPath{Fill: "none", Stroke: sb.Fill, D: fmt.Sprintf("M%s,%s L%s,%s L%s,%s", num(x1+2), num(by), num(x1+8), num(mid), num(x1+2), num(by+svgBarH))})
	}
	if bar.ClippedStart {
		sb.Marks = append(sb.Marks, svgPath{Fill: "none", Stroke: sb.Fill, D: fmt.Sprintf("M%s,%s L%s,%s L%s,%s", num(x0-2), num(by), num(x0-8), num(mid), num(x0-2), num(by+svgBarH))})
	}
	if label := fitPx(bar.Label(), bw-8, svgCharW); label != "" {
		sb.Label, sb.LabelX, sb.LabelY = label, num(bx0+4), num(by+13)
	}
	return sb
}

// laneHeight is the height of a lane whose name takes nameLines lines:
// its rows of bars, or its name when that is taller.
func laneHeight(l *Lane, nameLines int) int {
	return max(2*svgLanePad+l.Rows*svgRowH, 2*svgLanePad+4+nameLines*svgNameH)
}

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

// xmlSafe replaces what XML 1.0 cannot hold (invalid UTF-8, control
// characters other than tab and newlines, U+FFFE and U+FFFF) with U+FFFD.
// html/template escapes markup but passes such characters through; the
// templates hold none, so only data can bring them.
func xmlSafe(b []byte) []byte {
	ok := func(r rune) bool {
		return r == '\t' || r == '\n' || r == '\r' || 0x20 <= r && r <= 0xD7FF || 0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF
	}
	clean := true
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && n <= 1) || !ok(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && n <= 1) || !ok(r) {
			r = '\uFFFD'
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}
