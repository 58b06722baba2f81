package timeline

import (
	"time"

	"github.com/ka2/ka2/corpus"
)

// Tick is one mark of the date axis.
type Tick struct {
	Date  corpus.Date
	Label string
}

// step is one spacing of ticks: every n days, months or years.
type step struct {
	days, months, years int
}

// steps go from a tick a day to one a millennium, so that an axis stays
// readable from a few days to the whole calendar.
var steps = []step{
	{days: 1}, {days: 7}, {months: 1}, {months: 3}, {months: 6},
	{years: 1}, {years: 2}, {years: 5}, {years: 10}, {years: 20}, {years: 50},
	{years: 100}, {years: 200}, {years: 500}, {years: 1000},
}

// Ticks returns the marks of the axis [m.From, m.Until) at the finest
// spacing that gives at most maxTicks of them (at least one), each on a
// round date: every day or week labelled YYYY-MM-DD, on the first of every
// month, quarter or half year labelled YYYY-MM, on the first of January of
// every year or every 2, 5, 10, … years labelled YYYY.
func (m *Model) Ticks(maxTicks int) []Tick {
	maxTicks = max(1, maxTicks)
	var out []Tick
	for _, st := range steps {
		out = ticks(m.From, m.Until, st, maxTicks+1)
		if len(out) <= maxTicks {
			return out
		}
	}
	return out[:maxTicks]
}

// ticks lists the round dates of st in [from, until), stopping past limit.
func ticks(from, until corpus.Date, st step, limit int) []Tick {
	var out []Tick
	t := from.Time()
	end := until.Time()
	var cur time.Time
	switch {
	case st.days > 0:
		cur = t
	case st.months > 0:
		cur = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		for cur.Before(t) || (int(cur.Month())-1)%st.months != 0 {
			cur = cur.AddDate(0, 1, 0)
		}
	default:
		y := t.Year()
		if r := y % st.years; r != 0 {
			y += st.years - r
		}
		cur = time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)
		if cur.Before(t) {
			cur = cur.AddDate(st.years, 0, 0)
		}
	}
	for cur.Before(end) && cur.Year() <= 9999 && len(out) < limit {
		d := corpus.MustDate(cur.Year(), cur.Month(), cur.Day())
		var label string
		switch {
		case st.days > 0:
			label = d.String()
		case st.months > 0:
			label = d.String()[:7]
		default:
			label = d.String()[:4]
		}
		out = append(out, Tick{Date: d, Label: label})
		cur = cur.AddDate(st.years, st.months, st.days)
	}
	return out
}
