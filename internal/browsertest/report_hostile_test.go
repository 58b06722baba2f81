package browsertest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/provenance"
)

// hostile is markup that, if it reached the page as markup, would run a
// script that marks the page: it sets window.pwned and puts PWNED-<where>
// in the title. Each variant breaks out of another context: text, a
// quoted attribute, an unquoted one, an RCDATA element (an SVG title).
func hostile(where string) string {
	run := fmt.Sprintf("window.pwned=1;document.title='PWNED-%s'", where)
	return fmt.Sprintf(`"'><script>%s</script><img src=x onerror="%s"></title><svg onload="%s">`, run, run, run)
}

// TestRegressReportHostile draws a report in which every text a shard
// carries is hostile markup (report merge draws shards from other
// machines) and checks, in Chromium, that none of it ran or made an
// element: the page shows it as text. ka2 used to put records[].change
// into the page unescaped, and the title said PWNED-change.
func TestRegressReportHostile(t *testing.T) {
	ctx, problems := browser(t)
	rec := func(where string) *contract.EvidenceRecord {
		return &contract.EvidenceRecord{SourceID: hostile(where + "-source"), Version: hostile(where + "-version"),
			ValidFrom: hostile(where + "-from"), ValidUntil: hostile(where + "-until"), Unit: hostile(where + "-unit"),
			LineStart: 1, LineEnd: 2, Quote: hostile(where+"-quote") + "\n" + hostile(where+"-quote2")}
	}
	bud := &golden.CaseBudget{Counter: hostile("counter"), Limit: 100, Total: 120,
		Parts: []golden.PartCost{{Kind: provenance.Kind(hostile("kind")), Cost: 120}}}
	r := &golden.Report{Format: golden.ReportFormat,
		Files: []golden.FileReport{{Path: hostile("file"), Cases: []golden.CaseReport{{
			Name: hostile("name"), Line: 3, Status: golden.StatusFail, Golden: hostile("golden"),
			State: golden.State(hostile("state")), Outcome: hostile("outcome"), Summary: hostile("summary"),
			Diff:         "--- a\n+++ b\n+" + hostile("diff-add") + "\n-" + hostile("diff-del") + "\n " + hostile("diff") + "\n",
			Expectations: []string{hostile("expectation")}, Pending: hostile("pending"), Note: hostile("note"), Error: hostile("error"),
			Records: []golden.RecordChange{
				{Change: hostile("change"), Golden: rec("golden"), Actual: rec("actual"), Fields: []string{"quote", hostile("field")}},
				{Change: golden.RecordAdded, Actual: rec("added")},
			},
			Budget: bud,
		}, {
			Name: hostile("passing-name"), Line: 9, Status: golden.Status(hostile("status")), Golden: hostile("passing-golden"),
			State: golden.State(hostile("passing-state")), Outcome: hostile("passing-outcome"), Summary: hostile("passing-summary"), Budget: bud,
		}}}},
		Unreferenced: []golden.UnreferencedGolden{{Path: hostile("unreferenced")}},
	}
	var b bytes.Buffer
	// A link that is a script URL is refused by the page too.
	opts := golden.HTMLOptions{CaseLink: func(string, int) string { return "javascript:void(window.pwned=1,document.title='PWNED-link')" }}
	if err := r.WriteHTML(&b, opts); err != nil {
		t.Fatal(err)
	}
	openFile(t, ctx, "hostile.html", b.Bytes(), chromedp.WaitVisible("#failing"))
	ran := func(when string) {
		t.Helper()
		if title := get(t, ctx, chromedp.Evaluate[string](`document.title`)); strings.Contains(title, "PWNED") {
			t.Errorf("%s: a script ran: the title is %q", when, title)
		}
		if get(t, ctx, chromedp.Evaluate[bool](`window.pwned !== undefined`)) {
			t.Errorf("%s: a script ran: window.pwned is set", when)
		}
	}
	ran("opened")
	wantCounts(t, ctx, map[string]int{
		"script":                0,
		"img":                   0,
		"[onload]":              0,
		"[onerror]":             0,
		"svg svg":               0,
		"tr.records":            0,
		"td.what":               2,
		"section.case":          1,
		"table.passed tbody tr": 1,
	})
	// The hostile text is there, as text.
	if got := get(t, ctx, chromedp.Evaluate[string](`document.querySelector("td.what").textContent`)); got != hostile("change") {
		t.Errorf("the change is shown as %q, want the text %q", got, hostile("change"))
	}
	// Following the case links runs nothing either.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`for (const a of document.querySelectorAll("a")) a.click()`))
	ran("after clicking the links")
	wantNoProblems(t, problems())
}
