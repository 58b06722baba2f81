package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/selector"
	"github.com/ka2/ka2/serve"
	"github.com/ka2/ka2/timeline"
)

// chromium finds the browser, or skips (fails on CI) when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KA2_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	switch os.Getenv("CI") {
	case "", "0", "false":
		t.Skip("no Chromium found (install the chromium package, or set KA2_CHROMIUM): the browser tests are skipped")
	}
	t.Fatal("CI is set but no Chromium was found: install it (apt-get install -y chromium) or set KA2_CHROMIUM")
	return ""
}

// shared is the one headless Chromium of the package's tests: starting
// it is most of a test's time, so each test opens a tab of its own in it
// instead of a browser. TestMain ends it.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser; a context made from it is a tab
	cancel func()
	err    error
}

// TestMain ends the shared browser and removes its profile after the
// tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	os.Exit(code)
}

// browser returns a new tab of headless Chromium, started once with a
// fresh profile and without the background connections that fail on a
// machine with no network. The tab closes with the test. Uncaught script
// errors and console errors (a Content-Security-Policy refusal among
// them) are collected in problems.
func browser(t *testing.T) (ctx context.Context, problems func() []string) {
	t.Helper()
	path := chromium(t)
	shared.once.Do(func() {
		profile, err := os.MkdirTemp("", "ka2-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(profile),
			chromedp.WindowSize(1300, 900),
		)
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelB := chromedp.NewContext(actx)
		shared.ctx = bctx
		shared.cancel = func() { cancelB(); cancelA(); os.RemoveAll(profile) }
		_, shared.err = chromedp.Run(bctx, chromedp.Navigate("about:blank")) // starts the browser
	})
	if shared.err != nil {
		t.Fatalf("start Chromium %s: %v", path, shared.err)
	}
	ctx, cancelC := chromedp.NewContext(shared.ctx)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelT(); cancelC() })
	var mu sync.Mutex
	var seen []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			seen = append(seen, "exception: "+ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var b strings.Builder
				for _, a := range ev.Args {
					b.WriteString(string(a.Value) + a.Description + " ")
				}
				seen = append(seen, "console error: "+b.String())
			}
		}
	})
	if err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

var (
	shotDirOnce sync.Once
	shotDir     string
)

// screenshots is the folder screenshots go to: $KA2_SCREENSHOTS, or a
// temporary folder kept after the run.
func screenshots(t *testing.T) string {
	shotDirOnce.Do(func() {
		shotDir = os.Getenv("KA2_SCREENSHOTS")
		if shotDir == "" {
			shotDir = filepath.Join(os.TempDir(), "ka2-screenshots")
		}
		if err := os.MkdirAll(shotDir, 0o755); err != nil {
			t.Fatal(err)
		}
	})
	return shotDir
}

// do runs browser steps, failing the test on an error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// get runs one browser action and returns its value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// screenshot saves the whole page as NAME.png and logs where.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	savePNG(t, name, get(t, ctx, chromedp.FullScreenshot(100)))
}

// savePNG saves png in the screenshots folder as NAME.png and logs where.
func savePNG(t *testing.T, name string, png []byte) {
	t.Helper()
	p := filepath.Join(screenshots(t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// a11yScript lists basic accessibility problems of the page: no lang, no
// title, no h1 or more than one, a skipped heading level, a form control
// without a label, an image without alt text, an SVG image without a
// name, a table without header cells.
const a11yScript = `(() => {
  const p = [];
  if (!document.documentElement.lang) p.push("html has no lang");
  if (!document.title.trim()) p.push("no title");
  const h1 = document.querySelectorAll("h1").length;
  if (h1 !== 1) p.push(h1 + " h1 elements");
  let last = 0;
  for (const h of document.querySelectorAll("h1,h2,h3,h4,h5,h6")) {
    const n = +h.tagName[1];
    if (n > last + 1) p.push("heading " + h.tagName + " '" + h.textContent.trim() + "' skips a level");
    last = n;
  }
  for (const el of document.querySelectorAll("input,select,textarea")) {
    if (el.type === "hidden") continue;
    const named = el.labels && el.labels.length > 0 || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby");
    if (!named) p.push("form control #" + el.id + " has no label");
  }
  for (const img of document.querySelectorAll("img")) if (!img.hasAttribute("alt")) p.push("img without alt: " + img.src);
  for (const svg of document.querySelectorAll("svg[role=img]")) {
    const ids = (svg.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
    const named = svg.getAttribute("aria-label") || ids.length > 0 && ids.every((id) => document.getElementById(id));
    if (!named) p.push("svg image without a name");
  }
  for (const svg of document.querySelectorAll("svg:not([role=img]):not([aria-hidden=true])")) p.push("svg neither an image nor hidden");
  for (const t of document.querySelectorAll("table")) if (!t.querySelector("th")) p.push("table without header cells");
  return p;
})()`

func checkA11y(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, p := range get(t, ctx, chromedp.Evaluate[[]string](a11yScript)) {
		t.Errorf("%s: accessibility: %s", page, p)
	}
}

func count(t *testing.T, ctx context.Context, selector string) int {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", selector)))
}

// wantCounts checks how many elements each selector matches.
func wantCounts(t *testing.T, ctx context.Context, want map[string]int) {
	t.Helper()
	for sel, n := range want {
		if got := count(t, ctx, sel); got != n {
			t.Errorf("%s: %d elements, want %d", sel, got, n)
		}
	}
}

// wantNoProblems fails the test when the page logged script or console
// errors.
func wantNoProblems(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Errorf("the page logged errors: %v", problems)
	}
}

// openFile writes data to a temporary file name, opens it in the tab and
// runs wait, the step that says the page is drawn.
func openFile(t *testing.T, ctx context.Context, name string, data []byte, wait chromedp.Action[chromedp.Void]) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Navigate("file://"+filepath.ToSlash(abs)), wait)
}

var today = corpus.MustDate(2026, time.September, 14)

func sampleTimeline(t *testing.T) *timeline.Model {
	t.Helper()
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		t.Fatal(err)
	}
	m, err := timeline.Build(selector.NewIndex(c), timeline.Options{Today: today})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTimelineHTML(t *testing.T) {
	ctx, problems := browser(t)
	var b bytes.Buffer
	if err := sampleTimeline(t).WriteHTML(&b, timeline.DefaultSVGWidth); err != nil {
		t.Fatal(err)
	}
	openFile(t, ctx, "timeline.html", b.Bytes(), chromedp.WaitVisible("figure svg"))
	title := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("ka2-tl-title").textContent`))
	if title != "Validity timeline [2025-01-01, 2026-12-01), today 2026-09-14" {
		t.Errorf("SVG title = %q", title)
	}
	wantCounts(t, ctx, map[string]int{
		"figure svg g.lane":     5,
		"figure svg g.bar":      7,
		"figure svg g.bar.open": 5,
		`figure svg g.bar[data-source="travel-v1"][data-lang="zh"]`: 1,
		"figure svg path.link": 2,
		"figure svg g.today":   1,
		"ul.legend li":         10,
		"table tbody tr":       7,
	})
	checkA11y(t, ctx, "timeline.html")
	screenshot(t, ctx, "timeline-html")
	wantNoProblems(t, problems())
}

// TestRegressReportHTML opens the HTML report golden/report_test.go keeps
// as a golden: four failing cases, one with a quote holding <script>.
func TestRegressReportHTML(t *testing.T) {
	ctx, problems := browser(t)
	// Saved as .html: a browser shows a .golden file as text.
	data, err := os.ReadFile("../../golden/testdata/golden/report/html.golden")
	if err != nil {
		t.Fatal(err)
	}
	openFile(t, ctx, "report.html", data, chromedp.WaitVisible("#failing"))
	firstFail := get(t, ctx, chromedp.Text("section.case.fail h3"))
	scriptQuote := get(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("td.golden pre.quote span.changed-line")].map(s => s.textContent).join("\n")`))
	if firstFail != "FAILmid-2025" {
		t.Errorf("first case = %q, want the first failing case, mid-2025", firstFail)
	}
	if !strings.Contains(scriptQuote, `The lodging limit is <script>alert("x")</script> & 600 CNY`) {
		t.Errorf("the hostile quote is not shown as text: %q", scriptQuote)
	}
	wantCounts(t, ctx, map[string]int{
		"script":            0,
		"section.case.fail": 4,
		"tr.added":          1,
		"tr.changed":        2,
		"section.case.fail figure.budget svg rect.part.evidence": 4,
		"section.case.fail svg line.limit":                       4,
	})
	// The failing cases come before the others.
	if !get(t, ctx, chromedp.Evaluate[bool](`(document.querySelector("section.case.fail").compareDocumentPosition(document.getElementById("passing")) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0`)) {
		t.Error("a failing case comes after the other cases")
	}
	checkA11y(t, ctx, "report")
	screenshot(t, ctx, "regress-report")
	wantNoProblems(t, problems())
}

// TestServePreview runs ka2 serve's handler on a loopback port, fills the
// form, builds a contract and checks the page shows it, with the
// selected source highlighted on the timeline and the budget drawn.
func TestServePreview(t *testing.T) {
	ctx, problems := browser(t)
	s, err := serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Embedded()}, UI: true, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler()) // 127.0.0.1, a free port
	defer srv.Close()

	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`#subjects input[value="lodging"]`),
		chromedp.WaitVisible(`#timeline svg g.bar`),
		chromedp.Click(`#subjects input[value="lodging"]`),
		chromedp.SetValue("#dates", "2026-09-14"),
		chromedp.SetValue("#lang", "en"),
		chromedp.SendKeys("#question", "What is the Beijing hotel cap in September 2026?"),
		chromedp.Click("#build"),
		chromedp.WaitVisible("#contract a"),
		chromedp.WaitVisible("#budget-text"),
	)
	contract := get(t, ctx, chromedp.Text("#contract"))
	budgetLabel := get(t, ctx, chromedp.AttributeValue("#budget svg", "aria-label")).Value
	href := get(t, ctx, chromedp.AttributeValue("#evidence a.address", "href")).Value
	status := get(t, ctx, chromedp.Text("#status"))
	if !strings.Contains(contract, `"source_id": "travel-v2"`) || !strings.Contains(contract, "The lodging limit is 750 CNY per room-night.") {
		t.Errorf("the contract shown:\n%s", contract)
	}
	if !strings.HasPrefix(budgetLabel, "Budget: instruction ") || !strings.Contains(budgetLabel, " of 1400 codepoint") {
		t.Errorf("budget label = %q", budgetLabel)
	}
	if href != "/v1/show?address=travel-v2%3A1-5&lang=en" {
		t.Errorf("evidence link = %q", href)
	}
	if status != "Built: 1 evidence records." {
		t.Errorf("status = %q", status)
	}
	wantCounts(t, ctx, map[string]int{
		`#timeline g.bar.selected`: 1,
		`#timeline g.bar.selected[data-source="travel-v2"][data-lang="en"]`: 1,
		`#timeline g.lane`:      1,
		`#budget svg rect.part`: 6,
		`#error:not([hidden])`:  0,
	})
	checkA11y(t, ctx, "serve preview")
	screenshot(t, ctx, "serve-preview")

	// The address link shows the cited lines.
	do(t, ctx, chromedp.Navigate(srv.URL+href))
	shown := get(t, ctx, chromedp.Text("body"))
	if !strings.Contains(shown, `"address":"travel-v2:1-5"`) {
		t.Errorf("/v1/show answered %s", shown)
	}

	// An error from the server is shown, not thrown.
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`#subjects input[value="rail"]`),
		chromedp.Click(`#subjects input[value="rail"]`),
		chromedp.SetValue("#dates", "2026-02-30"),
		chromedp.SendKeys("#question", "q"),
		chromedp.Click("#build"),
		chromedp.WaitVisible("#error"),
	)
	status = get(t, ctx, chromedp.Text("#error"))
	if !strings.Contains(status, "bad_request") || !strings.Contains(status, "2026-02-30") {
		t.Errorf("error shown = %q", status)
	}
	var errs []string
	for _, p := range problems() {
		// The 400 of the bad date is logged by the browser as a failed
		// load; anything else is a fault of the page.
		if !strings.Contains(p, "400") {
			errs = append(errs, p)
		}
	}
	wantNoProblems(t, errs)
}

// TestTimelineScreenshots renders `ka2 timeline --format svg` of the
// sample corpus and of a generated 1,000-source corpus, checks the SVG
// loads as an image, and saves PNGs; with GOLDIE_UPDATE set it writes
// them to docs/ for the README.
func TestTimelineScreenshots(t *testing.T) {
	ctx, _ := browser(t)
	gen, err := corpus.Load(gencorpus.FS(1000))
	if err != nil {
		t.Fatal(err)
	}
	big, err := timeline.Build(selector.NewIndex(gen), timeline.Options{Today: today})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		m    *timeline.Model
	}{{"timeline-sample", sampleTimeline(t)}, {"timeline-1000", big}} {
		var b bytes.Buffer
		if err := tc.m.WriteSVG(&b, timeline.DefaultSVGWidth); err != nil {
			t.Fatal(err)
		}
		openFile(t, ctx, tc.name+".svg", b.Bytes(), chromedp.WaitReady("svg"))
		bars := count(t, ctx, "g.bar")
		want := 7
		if tc.name == "timeline-1000" {
			want = 1000
		}
		if bars != want {
			t.Errorf("%s: %d bars, want %d", tc.name, bars, want)
		}
		png := get(t, ctx, chromedp.Screenshot("svg"))
		savePNG(t, tc.name, png)
		if os.Getenv("GOLDIE_UPDATE") != "" {
			if err := os.MkdirAll(filepath.Join("..", "..", "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("..", "..", "docs", tc.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
