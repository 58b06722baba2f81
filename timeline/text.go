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
// that runs to the right edge, "◀" and "›" a bar cut by the axis. The mark
// row under a lane shades conflicts, overlaps of a supersedes pair and
// gaps, and puts today's column on it.
const (
	symConflict = '▓'
	symOverlap  = '▒'
	symGap      = '░'
	symToday    = '│'
)

// textLegend explains the symbols, printed last.
var textLegend = []string{"[ first day", ") first day no longer valid", "▶ open-ended", "◀ › cut by the axis",
	"▓ conflict", "▒ overlap of a supersedes pair", "░ gap", "│ today (▼ on the axis)"}

// WriteText draws m for a terminal, width columns wide (at least
// MinTextWidth): the axis, then per lane its bars, a row of marks, and a
// list of its sources, overlaps and gaps with their exact dates.
func (m *Model) WriteText(w io.Writer, width int) error {
	width = max(width, MinTextWidth)
	labelW := 8
	for i := range m.Lanes {
		labelW = max(labelW, cells(textsafe.Escape(m.Lanes[i].Name()))+1)
	}
	labelW = min(labelW, width/3)
	plotW := width - labelW

	var b bytes.Buffer
	fmt.Fprintf(&b, "ka2 timeline %s to %s (exclusive)", m.From, m.Until)
	if !m.Today.IsZero() {
		fmt.Fprintf(&b, "; today %s", m.Today)
	}
	if m.Lang != "" {
		fmt.Fprintf(&b, "; lang %s and sources without one", m.Lang)
	}
	b.WriteString("\n\n")

	at := func(f float64) int { return min(plotW-1, int(math.Floor(f*float64(plotW)))) }

	// The axis: labels over a rule with a mark at each tick.
	ticks := m.Ticks(plotW / 12)
	labels := newRow(plotW)
	rule := newRow(plotW)
	for i := range rule {
		rule[i] = "─"
	}
	next := 0
	for _, t := range ticks {
		c := at(m.Pos(t.Date))
		rule[c] = "┼"
		if c >= next {
			next = labels.put(c, t.Label) + 1
		}
	}
	todayCol := -1
	if !m.Today.IsZero() && !m.Today.Before(m.From) && m.Today.Before(m.Until) {
		todayCol = at(m.Pos(m.Today))
		rule[todayCol] = "▼"
	}
	pad := strings.Repeat(" ", labelW)
	b.WriteString(strings.TrimRight(pad+labels.String(), " ") + "\n")
	b.WriteString(pad + rule.String() + "\n")

	for li := range m.Lanes {
		l := &m.Lanes[li]
		name := fit(textsafe.Escape(l.Name()), labelW-1)
		rows := make([]row, l.Rows)
		for r := range rows {
			rows[r] = newRow(plotW)
		}
		for _, bar := range l.Bars {
			c0 := at(m.Pos(bar.Start))
			c1 := at(m.Pos(bar.End))
			if bar.End == m.Until {
				c1 = plotW
			}
			c1 = max(c1, c0+1)
			r := rows[bar.Row]
			for c := c0; c < c1; c++ {
				r[c] = "━"
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
			if c1-c0 >= 4 {
				r.put(c0+1, fit(textsafe.Escape(bar.Label()), c1-c0-2))
			}
		}
		for r, cellsRow := range rows {
			lead := pad
			if r == 0 {
				lead = name + strings.Repeat(" ", labelW-cells(name))
			}
			b.WriteString(strings.TrimRight(lead+cellsRow.String(), " ") + "\n")
		}
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
			if (!o.Until.IsZero() && !m.From.Before(o.Until)) || !o.From.Before(m.Until) {
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
		if any {
			b.WriteString(strings.TrimRight(pad+marks.String(), " ") + "\n")
		}
		// The facts, with exact dates.
		var facts bytes.Buffer
		tw := tabwriter.NewWriter(&facts, 0, 4, 2, ' ', 0)
		for _, bar := range l.Bars {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", textsafe.Escape(bar.SourceID), textsafe.Escape(bar.Version),
				bar.Interval(), textsafe.Escape(bar.Unit), notes(l, bar))
		}
		tw.Flush()
		for _, line := range strings.SplitAfter(facts.String(), "\n") {
			if line != "" {
				b.WriteString(strings.TrimRight(line, " \n") + "\n")
			}
		}
		for _, o := range l.Overlaps {
			what := string(symOverlap) + " overlap"
			if o.Conflict {
				what = string(symConflict) + " conflict"
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", what, o.Interval(), strings.Join(barIDs(l, o.Bars), ", "))
		}
		for _, g := range l.Gaps {
			fmt.Fprintf(&b, "  %c gap %s: no source applies\n", symGap, g.Interval())
		}
		b.WriteByte('\n')
	}
	if len(m.Lanes) == 0 {
		b.WriteString("no source to show\n\n")
	}
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
	_, err := w.Write(b.Bytes())
	return err
}

// notes says what else is known of a bar: supersedes, cut, selected.
func notes(l *Lane, bar Bar) string {
	var n []string
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
