package timeline

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/text/width"

	"github.com/ka2/ka2/internal/textsafe"
)

// MinTextWidth is the narrowest text timeline, in columns.
const MinTextWidth = 40

// Text symbols. A bar is drawn as "[label━━━)": "[" its first day, ")"
// the first day it no longer applies (half-open), "▶" an open-ended bar
// that runs to the right edge, "◀" and "›" a bar cut by the axis; a
// supplement's bar is drawn with "═". The mark row under a lane shades
// conflicts, overlaps of a supersedes pair and gaps, and puts today's
// column on it; a supplement's overlap is no problem and is not shaded.
const (
	symConflict   = '▓'
	symOverlap    = '▒'
	symGap        = '░'
	symToday      = '│'
	symBar        = "━"
	symSupplement = "═"
)

// textLegend explains the symbols, printed last.
var textLegend = []string{"[ first day", ") first day no longer valid", "▶ open-ended", "◀ › cut by the axis",
	"▓ conflict", "▒ overlap of a supersedes pair", "░ gap", "═ supplement: applies beside the others", "│ today (▼ on the axis)"}

// WriteText draws m for a terminal, width columns wide (at least
// MinTextWidth): the axis, then per lane its bars, a row of marks, and a
// list of its sources, overlaps and gaps with their exact dates. Every
// line fits the width: a lane's name that does not fit its column wraps
// (after a '/' where it can) instead of being cut, so that two lanes
// never read alike, and the lists wrap.
func (m *Model) WriteText(w io.Writer, width int) error {
	lay := m.textLayout(width)
	var b bytes.Buffer
	m.writeTextHead(&b, lay)
	m.writeTextAxis(&b, &lay)
	for li := range m.Lanes {
		m.writeTextLane(&b, lay, &m.Lanes[li])
	}
	if len(m.Lanes) == 0 {
		b.WriteString("no source to show\n\n")
	}
	writeTextLegend(&b, lay.width)
	_, err := w.Write(b.Bytes())
	return err
}

// textGrid is where a text timeline puts things: the lane names'
// column, then the plot, a period position mapped to a cell by at.
type textGrid struct {
	width, labelW, plotW int
	pad                  string // blank lane-name column
	todayCol             int    // -1 when today is off the axis
}

// at is the plot cell of position f of the period.
func (g textGrid) at(f float64) int { return min(g.plotW-1, int(math.Floor(f*float64(g.plotW)))) }

// textLayout sizes the columns: the names' column as wide as the widest
// name, up to a third of the width.
func (m *Model) textLayout(width int) textGrid {
	width = max(width, MinTextWidth)
	labelW := 8
	for i := range m.Lanes {
		labelW = max(labelW, cells(textsafe.Escape(m.Lanes[i].Name()))+1)
	}
	labelW = min(labelW, width/3)
	return textGrid{width: width, labelW: labelW, plotW: width - labelW, pad: strings.Repeat(" ", labelW), todayCol: -1}
}

// writeTextHead writes the title line: the period, today, the language.
func (m *Model) writeTextHead(b *bytes.Buffer, g textGrid) {
	head := "ka2 timeline " + interval(m.From, m.Until)
	if !m.Today.IsZero() {
		head += "; today " + m.Today.String()
	}
	if m.Lang != "" {
		head += "; lang " + textsafe.Escape(m.Lang) + " and sources without one"
	}
	writeWrapped(b, head, g.width, "", "    ")
	b.WriteString("\n")
}

// writeTextAxis writes the axis, labels over a rule with a mark at each
// tick, and sets g's today column when today is on it.
func (m *Model) writeTextAxis(b *bytes.Buffer, g *textGrid) {
	ticks := m.Ticks(g.plotW / 12)
	labels := newRow(g.plotW)
	rule := newRow(g.plotW)
	for i := range rule {
		rule[i] = "─"
	}
	next := 0
	for _, t := range ticks {
		c := g.at(m.Pos(t.Date))
		rule[c] = "┼"
		if c >= next && c+cells(t.Label) <= g.plotW { // a cut label would name another date
			next = labels.put(c, t.Label) + 1
		}
	}
	if !m.Today.IsZero() && !m.Today.Before(m.From) && m.Today.Before(m.Until) {
		g.todayCol = g.at(m.Pos(m.Today))
		rule[g.todayCol] = "▼"
	}
	b.WriteString(strings.TrimRight(g.pad+labels.String(), " ") + "\n")
	b.WriteString(g.pad + rule.String() + "\n")
}

// writeTextLane writes lane l: its name beside its rows of bars, its row
// of marks, then its sources, overlaps and gaps in words.
func (m *Model) writeTextLane(b *bytes.Buffer, g textGrid, l *Lane) {
	names := wrap(textsafe.Escape(l.Name()), g.labelW-1, g.labelW-1, true)
	rows := make([]row, max(l.Rows, len(names)))
	for r := range rows {
		rows[r] = newRow(g.plotW)
	}
	m.drawBars(rows, l, g.at, g.plotW)
	for r, cellsRow := range rows {
		lead := g.pad
		if r < len(names) {
			lead = names[r] + strings.Repeat(" ", g.labelW-cells(names[r]))
		}
		b.WriteString(strings.TrimRight(lead+cellsRow.String(), " ") + "\n")
	}
	marks, any := m.laneMarks(l, g.at, g.plotW, g.todayCol)
	if any {
		b.WriteString(strings.TrimRight(g.pad+marks.String(), " ") + "\n")
	}
	writeFacts(b, l, g.width)
	for _, o := range l.Overlaps {
		what := string(symOverlap) + " overlap"
		switch {
		case o.Conflict:
			what = string(symConflict) + " conflict"
		case o.Supplement:
			what = symSupplement + " supplement"
		}
		text := fmt.Sprintf("%s %s: %s", what, o.Interval(), strings.Join(barIDs(l, o.Bars), ", "))
		if o.Supplement && !o.Conflict {
			text += " apply together by design"
		}
		writeWrapped(b, text, g.width, "  ", "      ")
	}
	for _, gap := range l.Gaps {
		writeWrapped(b, fmt.Sprintf("%c gap %s: no source applies", symGap, gap.Interval()), g.width, "  ", "      ")
	}
	b.WriteByte('\n')
}

// writeTextLegend writes the symbols' legend, as many items a line as
// fit the width.
func writeTextLegend(b *bytes.Buffer, width int) {
	line := ""
	for _, item := range textLegend {
		if line != "" && cells(line)+2+cells(item) > width {
			b.WriteString(line + "\n")
			line = ""
		}
		if line != "" {
			line += "  "
		}
		line += item
	}
	b.WriteString(line + "\n")
}

// drawBars draws the bars of lane l on its rows, each row plotW cells,
// at placing a position of the period in a cell.
func (m *Model) drawBars(rows []row, l *Lane, at func(float64) int, plotW int) {
	for _, bar := range l.Bars {
		c0 := at(m.Pos(bar.Start))
		c1 := at(m.Pos(bar.End))
		if bar.End == m.Until {
			c1 = plotW
		}
		c1 = max(c1, c0+1)
		r := rows[bar.Row]
		line := symBar
		if bar.Supplement {
			line = symSupplement
		}
		for c := c0; c < c1; c++ {
			r[c] = line
		}
		first, last := "[", ")"
		if bar.ClippedStart {
			first = "◀"
		}
		switch {
		case bar.Open:
			last = "▶"
		case bar.ClippedEnd:
			last = "›"
		}
		r[c0] = first
		if c1-c0 >= 2 {
			r[c1-1] = last
		}
		// A supplement's label starts after one "═", so that its
		// style shows however short the bar.
		lead := 1
		if bar.Supplement {
			lead = 2
		}
		if c1-c0 >= 3+lead {
			r.put(c0+lead, fit(textsafe.Escape(bar.Label()), c1-c0-1-lead))
		}
	}
}

// laneMarks is the row under lane l that marks its gaps, overlaps and
// today's column (-1: not in the period), and whether it marks anything.
func (m *Model) laneMarks(l *Lane, at func(float64) int, plotW, todayCol int) (row, bool) {
	marks := newRow(plotW)
	any := false
	paint := func(from, until int, sym string) {
		for c := from; c < until && c < plotW; c++ {
			marks[c] = sym
			any = true
		}
	}
	for _, g := range l.Gaps {
		if g.Until.Before(m.From) || !g.From.Before(m.Until) {
			continue
		}
		c0, c1 := at(m.Pos(g.From)), at(m.Pos(g.Until))
		paint(c0, max(c1, c0+1), string(symGap))
	}
	for _, o := range l.Overlaps {
		if o.Supplement || (!o.Until.IsZero() && !m.From.Before(o.Until)) || !o.From.Before(m.Until) {
			continue
		}
		c0 := at(m.Pos(o.From))
		c1 := plotW
		if !o.Until.IsZero() && o.Until.Before(m.Until) {
			c1 = at(m.Pos(o.Until))
		}
		sym := string(symOverlap)
		if o.Conflict {
			sym = string(symConflict)
		}
		paint(c0, max(c1, c0+1), sym)
	}
	if todayCol >= 0 {
		marks[todayCol] = string(symToday)
		any = true
	}
	return marks, any
}

// writeFacts lists the lane's sources with their exact dates: a table
// when it fits the width; else the table without its notes, each note
// wrapped under its row; else one source after the other, each fact on
// its own wrapped line.
func writeFacts(b *bytes.Buffer, l *Lane, width int) {
	table := func(withNotes bool) ([]string, bool) {
		var facts bytes.Buffer
		tw := tabwriter.NewWriter(&facts, 0, 4, 2, ' ', 0)
		for _, bar := range l.Bars {
			note := ""
			if withNotes {
				note = notes(l, bar)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", textsafe.Escape(bar.SourceID), textsafe.Escape(bar.Version),
				bar.Interval(), textsafe.Escape(bar.Unit), note)
		}
		tw.Flush()
		lines := strings.Split(strings.TrimSuffix(facts.String(), "\n"), "\n")
		fits := true
		for i, line := range lines {
			lines[i] = strings.TrimRight(line, " ")
			fits = fits && cells(lines[i]) <= width
		}
		return lines, fits
	}
	if lines, ok := table(true); ok {
		for _, line := range lines {
			b.WriteString(line + "\n")
		}
		return
	}
	if lines, ok := table(false); ok {
		for i, line := range lines {
			b.WriteString(line + "\n")
			if n := notes(l, l.Bars[i]); n != "" {
				writeWrapped(b, n, width, "    ", "      ")
			}
		}
		return
	}
	for _, bar := range l.Bars {
		writeWrapped(b, textsafe.Escape(bar.SourceID)+" "+textsafe.Escape(bar.Version), width, "  ", "      ")
		for _, fact := range []string{bar.Interval(), textsafe.Escape(bar.Unit), notes(l, bar)} {
			if fact != "" {
				writeWrapped(b, fact, width, "    ", "      ")
			}
		}
	}
}

// splitAfterAny splits s after each byte of seps, keeping it.
func splitAfterAny(s, seps string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
}

// writeWrapped writes text wrapped to width columns: the first line after
// first, the others after cont.
func writeWrapped(b *bytes.Buffer, text string, width int, first, cont string) {
	for i, line := range wrap(text, width-cells(first), width-cells(cont), false) {
		lead := cont
		if i == 0 {
			lead = first
		}
		b.WriteString(strings.TrimRight(lead+line, " ") + "\n")
	}
}

// wrap breaks s into lines, the first at most firstW columns wide and the
// others restW (each at least 1): at blanks, which it drops, and, with
// slash, after each '/' of a subject (or '-', '_', '.' within a segment).
// A piece wider than a line is cut where the line ends, so nothing is
// ever left out.
func wrap(s string, firstW, restW int, slash bool) []string {
	firstW, restW = max(firstW, 1), max(restW, 1)
	var lines []string
	cur, curW := "", 0
	limit := func() int {
		if len(lines) == 0 {
			return firstW
		}
		return restW
	}
	flush := func() {
		lines = append(lines, cur)
		cur, curW = "", 0
	}
	for i, word := range strings.Split(s, " ") {
		pieces := []string{word}
		if slash {
			pieces = splitAfterAny(word, "/-_.")
		}
		for k, piece := range pieces {
			if piece == "" {
				continue
			}
			sep := ""
			if k == 0 && i > 0 && curW > 0 {
				sep = " "
			}
			if w := cells(piece); curW > 0 && curW+cells(sep)+w > limit() {
				flush()
				sep = ""
			}
			cur += sep
			curW += cells(sep)
			for _, r := range piece {
				if rw := runeCells(r); curW > 0 && curW+rw > limit() {
					flush()
				}
				cur += string(r)
				curW += runeCells(r)
			}
		}
	}
	if curW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// notes says what else is known of a bar: supersedes, cut, selected.
func notes(l *Lane, bar Bar) string {
	var n []string
	if bar.Supplement {
		n = append(n, "supplement: applies beside the others")
	}
	if len(bar.Supersedes) > 0 {
		n = append(n, "supersedes "+textsafe.Escape(strings.Join(bar.Supersedes, ", ")))
	}
	if bar.Lang == "" && l.Lang != "" {
		n = append(n, "no lang: applies to every language")
	}
	if bar.Selected {
		n = append(n, "selected")
	}
	return strings.Join(n, "; ")
}

func barIDs(l *Lane, idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = textsafe.Escape(l.Bars[k].SourceID)
	}
	return out
}

// row is one line of a text plot, a string per column. A wide character
// takes two columns: its own, and an empty one after it.
type row []string

func newRow(n int) row {
	r := make(row, n)
	for i := range r {
		r[i] = " "
	}
	return r
}

// put writes s from column c, as far as it fits, and returns the column
// after it.
func (r row) put(c int, s string) int {
	for _, ch := range s {
		w := runeCells(ch)
		if c+w > len(r) {
			break
		}
		r[c] = string(ch)
		if w == 2 {
			r[c+1] = ""
		}
		c += w
	}
	return c
}

func (r row) String() string { return strings.Join(r, "") }

// runeCells is how many terminal columns r takes.
func runeCells(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func cells(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

// fit cuts s to at most n columns, ending a cut text with "…".
func fit(s string, n int) string {
	if cells(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		if w+runeCells(r) > n-1 {
			break
		}
		b.WriteRune(r)
		w += runeCells(r)
	}
	return b.String() + "…"
}
