package browsertest

import (
	"bytes"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/gennights"
)

// TestRegressHistoryHTML opens the history of 40 generated nights of 500
// cases: three cases break on known nights (a corpus change each), one
// fails on the first night and never passes, and one flips (fails for a
// night with nothing changed). The charts are SVG drawn by ka2, the page
// runs no script, and it reads as tables without one.
func TestRegressHistoryHTML(t *testing.T) {
	ctx, problems := browser(t)
	spec := gennights.Spec{Nights: 40, Cases: 500, Start: time.Date(2026, 2, 1, 3, 0, 0, 0, time.UTC),
		Breaks: map[int]int{12: 5, 250: 18, 499: 0, 333: 33}, Flaky: map[int][]int{101: {22}}}
	b := golden.NewHistoryBuilder()
	for n := range spec.Nights {
		b.Add(spec.Start.AddDate(0, 0, n).Format("2006-01-02")+".json", spec.Night(n))
	}
	var page bytes.Buffer
	if err := b.Build().WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	openFile(t, ctx, "history.html", page.Bytes(), chromedp.WaitVisible("svg.chart"))
	wantCounts(t, ctx, map[string]int{
		"script":                             0,
		"svg.chart":                          1 + 20, // the pass rate, and the 20 cases closest to their limit
		"svg.chart rect.failbar":             40,
		"table.failures tbody tr":            5,
		"table.flaky tbody tr":               1,
		"table.nights tbody tr":              40,
		"table.failures svg.strip rect":      5 * 40,
		"table.failures svg.strip rect.fail": (40 - 5) + (40 - 18) + 40 + (40 - 33) + 1,
		"table.flaky svg.strip rect.fail":    1,
	})
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelector("svg.chart polyline.rate").points.numberOfItems`)); n != 40 {
		t.Errorf("the pass-rate line has %d points, want one per night (40)", n)
	}
	// Drawn, not only present: the chart takes its width on the page.
	if w := get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("svg.chart").getBoundingClientRect().width`)); w < 700 {
		t.Errorf("the pass-rate chart is %.0f px wide", w)
	}
	rows := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.failures tbody tr")].map(r => [...r.cells].slice(0, 3).map(c => c.textContent).join(" | "))`))
	want := []string{
		"cases/suite-004.yaml case-00499 | 2026-02-01T03:00:00.000Z | never",
		"cases/suite-000.yaml case-00012 | 2026-02-06T03:00:00.000Z | 2026-02-05T03:00:00.000Z",
		"cases/suite-002.yaml case-00250 | 2026-02-19T03:00:00.000Z | 2026-02-18T03:00:00.000Z",
		"cases/suite-001.yaml case-00101 | 2026-02-23T03:00:00.000Z | 2026-02-22T03:00:00.000Z",
		"cases/suite-003.yaml case-00333 | 2026-03-06T03:00:00.000Z | 2026-03-05T03:00:00.000Z",
	}
	if len(rows) != len(want) {
		t.Fatalf("first failures: %q", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("first failure %d: %q, want %q", i, rows[i], want[i])
		}
	}
	checkA11y(t, ctx, "history.html")
	screenshot(t, ctx, "history-html")
	wantNoProblems(t, problems())
}
