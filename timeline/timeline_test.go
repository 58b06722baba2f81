package timeline_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
	"golang.org/x/text/width"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/selector"
	"github.com/ka2/ka2/timeline"
)

var today = corpus.MustDate(2026, time.September, 14)

func load(t testing.TB, fsys fstest.MapFS) *selector.Index {
	t.Helper()
	var c *corpus.Corpus
	var err error
	if fsys == nil {
		c, err = corpus.Load(corpus.Sample())
	} else {
		c, err = corpus.Load(fsys)
	}
	if err != nil {
		t.Fatal(err)
	}
	return selector.NewIndex(c)
}

// source writes one policy file.
func source(id, version, subjects, from, until, lang, extra string) *fstest.MapFile {
	fm := fmt.Sprintf("---\nsource_id: %s\nversion: %s\nsubjects: [%s]\nvalid_from: %s\n", id, version, subjects, from)
	if until != "" {
		fm += "valid_until: " + until + "\n"
	}
	if lang != "" {
		fm += "lang: " + lang + "\n"
	}
	fm += extra + "---\nScope: a test source.\n"
	return &fstest.MapFile{Data: []byte(fm)}
}

// tangled has every case a timeline marks: a conflict, an overlap of a
// supersedes pair, a gap, a source without lang in two languages' lanes,
// and hostile text in a unit.
func tangled() fstest.MapFS {
	return fstest.MapFS{
		"a.md": source("meal-2024", "v1", "meals", "2024-01-01", "2024-07-01", "en", "unit: EUR per day\n"),
		"b.md": source("meal-2024b", "v2", "meals", "2024-05-01", "2024-12-01", "en", "unit: EUR per day\nsupersedes: [meal-2024]\n"),
		"c.md": source("meal-promo", "v1", "meals", "2024-06-01", "2024-08-01", "en", "unit: \"<script>alert(1)</script> & co\"\n"),
		"d.md": source("meal-2025", "v3", "meals", "2025-03-01", "", "en", "unit: EUR per day\n"),
		"e.md": source("meal-any", "v1", "meals", "2023-06-01", "2024-01-01", "", ""),
		"f.md": source("meal-2025", "v3", "meals", "2025-03-01", "", "zh", "unit: 欧元/天\n"),
		"g.md": source("parking", "v1", "parking, meals-extra", "2026-02-01", "2026-03-01", "en", ""),
	}
}

func TestGoldens(t *testing.T) {
	gen, err := corpus.Load(gencorpus.FS(1000))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		ix    *selector.Index
		opts  timeline.Options
		width int // text columns; svg and html use 1200 pixels
	}{
		{name: "sample", ix: load(t, nil), opts: timeline.Options{Today: today}, width: 100},
		{name: "sample-lodging-en", ix: load(t, nil), opts: timeline.Options{Subjects: []string{"lodging"}, Lang: "en", Today: today}, width: 72},
		{name: "tangled", ix: load(t, tangled()), opts: timeline.Options{Today: corpus.MustDate(2024, time.June, 15)}, width: 110},
		{name: "tangled-window", ix: load(t, tangled()), opts: timeline.Options{Subjects: []string{"meals"}, Lang: "en",
			From: corpus.MustDate(2024, time.March, 1), Until: corpus.MustDate(2024, time.October, 1)}, width: 90},
		{name: "generated-1000", ix: selector.NewIndex(gen), opts: timeline.Options{Today: today}, width: 120},
		{name: "hierarchical", ix: load(t, hierarchical()), opts: timeline.Options{Today: today}, width: 60},
	}
	g := goldie.New(t, goldie.WithFixtureDir("testdata/golden"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := timeline.Build(tt.ix, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"txt", "svg", "html"} {
				got := render(t, m, format, tt.width)
				again := render(t, m, format, tt.width)
				if !bytes.Equal(got, again) {
					t.Errorf("%s: two renderings differ", format)
				}
				if format != "txt" {
					checkXML(t, format, got)
				}
				g.Assert(t, tt.name+"."+format, got)
			}
		})
	}
}

func render(t testing.TB, m *timeline.Model, format string, width int) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "txt":
		err = m.WriteText(&b, width)
	case "svg":
		err = m.WriteSVG(&b, timeline.DefaultSVGWidth)
	case "html":
		err = m.WriteHTML(&b, timeline.DefaultSVGWidth)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkXML parses the SVG, or the HTML (which is written as well-formed
// XML, the doctype aside), with encoding/xml, and refuses scripts,
// external references and style attributes.
func checkXML(t testing.TB, what string, data []byte) {
	t.Helper()
	text := string(data)
	text = strings.TrimPrefix(text, "<!DOCTYPE html>\n")
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.Strict = true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s does not parse as XML: %v", what, err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if el.Name.Local == "script" {
			t.Errorf("%s has a <script> element", what)
		}
		for _, a := range el.Attr {
			if strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "href" && !strings.HasPrefix(a.Value, "#") {
				t.Errorf("%s: <%s %s=%q>", what, el.Name.Local, a.Name.Local, a.Value)
			}
			if what == "svg" && a.Name.Local == "style" {
				t.Errorf("svg: <%s style=…>: the SVG must use presentation attributes (CSP)", el.Name.Local)
			}
		}
	}
}

func TestHostileTextIsEscaped(t *testing.T) {
	m, err := timeline.Build(load(t, tangled()), timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"svg", "html"} {
		got := string(render(t, m, format, 0))
		if strings.Contains(got, "<script>") {
			t.Errorf("%s holds the unit's <script> unescaped", format)
		}
		if !strings.Contains(got, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co") {
			t.Errorf("%s does not show the unit escaped", format)
		}
	}
}

func TestModel(t *testing.T) {
	m, err := timeline.Build(load(t, tangled()), timeline.Options{Subjects: []string{"meals"}, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Lanes) != 1 {
		t.Fatalf("lanes = %d, want 1 (meals en)", len(m.Lanes))
	}
	l := m.Lanes[0]
	type overlap struct {
		Interval string
		Sources  []string
		Conflict bool
	}
	var got []overlap
	for _, o := range l.Overlaps {
		var ids []string
		for _, i := range o.Bars {
			ids = append(ids, l.Bars[i].SourceID)
		}
		got = append(got, overlap{o.Interval(), ids, o.Conflict})
	}
	want := []overlap{
		{"[2024-05-01, 2024-06-01)", []string{"meal-2024", "meal-2024b"}, false},
		{"[2024-06-01, 2024-07-01)", []string{"meal-2024", "meal-2024b", "meal-promo"}, true},
		{"[2024-07-01, 2024-08-01)", []string{"meal-2024b", "meal-promo"}, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overlaps mismatch (-want +got):\n%s", diff)
	}
	var gaps []string
	for _, g := range l.Gaps {
		gaps = append(gaps, g.Interval())
	}
	if diff := cmp.Diff([]string{"[2024-12-01, 2025-03-01)"}, gaps); diff != "" {
		t.Errorf("gaps mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]timeline.Link{{From: 2, To: 1}}, l.Links); diff != "" {
		t.Errorf("links mismatch (-want +got):\n%s", diff)
	}
	if l.Rows != 3 {
		t.Errorf("rows = %d, want 3", l.Rows)
	}
	if !l.Bars[0].Overlap || l.Bars[0].Conflict || l.Bars[0].SourceID != "meal-any" {
		// meal-any (no lang) ends where meal-2024 begins: no overlap.
		if l.Bars[0].Overlap {
			t.Errorf("meal-any marked as overlapping")
		}
	}
}

func TestBuildErrors(t *testing.T) {
	ix := load(t, nil)
	tests := []struct {
		name string
		opts timeline.Options
		want string
	}{
		{"unknown subject", timeline.Options{Subjects: []string{"lodgin"}}, `unknown subject "lodgin"; did you mean lodging?`},
		{"unknown lang", timeline.Options{Lang: "fr"}, `no source of the corpus is in lang "fr"; name one of the corpus's languages with the lang setting: en, zh`},
		{"empty axis", timeline.Options{From: corpus.MustDate(2026, 1, 1), Until: corpus.MustDate(2026, 1, 1)},
			"the timeline [2026-01-01, 2026-01-01) holds no date; set the from setting before the until setting: until is the first date not shown"},
		{"after the calendar", timeline.Options{From: corpus.MustDate(9999, 12, 31)},
			"the timeline from 9999-12-31 holds no date: the last date ka2 knows is 9999-12-31; set the from setting to an earlier date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := timeline.Build(ix, tt.opts)
			if err == nil {
				t.Fatal("Build() = nil error")
			}
			if got := diag.Phrase(err, diag.SettingWords); got != tt.want {
				t.Errorf("Build() error = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTicksStayReadable(t *testing.T) {
	tests := []struct {
		from, until corpus.Date
		max         int
		first, last string
	}{
		{corpus.MustDate(2026, 1, 1), corpus.MustDate(2026, 2, 1), 10, "2026-01-01", "2026-01-29"},
		{corpus.MustDate(2026, 1, 1), corpus.MustDate(2026, 2, 1), 40, "2026-01-01", "2026-01-31"},
		{corpus.MustDate(2025, 1, 15), corpus.MustDate(2026, 12, 1), 8, "2025-04", "2026-10"},
		{corpus.MustDate(2000, 1, 1), corpus.MustDate(2040, 1, 1), 10, "2000", "2035"},
		{corpus.MustDate(1, 1, 1), corpus.MustDate(9999, 12, 31), 10, "1000", "9000"},
	}
	for _, tt := range tests {
		m := &timeline.Model{From: tt.from, Until: tt.until}
		ticks := m.Ticks(tt.max)
		if len(ticks) == 0 || len(ticks) > tt.max {
			t.Errorf("Ticks(%s..%s, %d) gives %d ticks", tt.from, tt.until, tt.max, len(ticks))
			continue
		}
		if got := ticks[0].Label + " " + ticks[len(ticks)-1].Label; got != tt.first+" "+tt.last {
			t.Errorf("Ticks(%s..%s, %d) from %s, want %s %s", tt.from, tt.until, tt.max, got, tt.first, tt.last)
		}
	}
}

// randomCorpus makes n sources with dates from r's bytes.
func randomCorpus(data []byte) fstest.MapFS {
	fsys := fstest.MapFS{}
	base := corpus.MustDate(2020, 1, 1)
	for i := 0; i+3 < len(data) && i < 4*40; i += 4 {
		from := base.AddDays(int(data[i]) * 11)
		until := ""
		if data[i+1]%5 != 0 {
			until = from.AddDays(1 + int(data[i+1])*int(data[i+2]%9+1)).String()
		}
		lang := []string{"", "en", "zh"}[data[i+3]%3]
		subj := []string{"a", "b", "a, b", "travel/lodging/beijing-and-the-capital-region", "a, travel/lodging/shanghai"}[int(data[i+2])%5]
		id := "s" + strconv.Itoa(i/4)
		extra := ""
		if i >= 4 && data[i+3]%2 == 0 {
			extra = "supersedes: [s" + strconv.Itoa(i/4-1) + "]\n"
		}
		if data[i]%7 == 3 {
			extra += "role: supplement\n"
		}
		fsys[fmt.Sprintf("%d-%s.md", i/4, lang)] = source(id, "v1", subj, from.String(), until, lang, extra)
	}
	return fsys
}

// FuzzLayout checks, for any corpus, axis and width: bars lie within the
// axis and the drawing, bars of a row never overlap, and every format is
// deterministic and well-formed.
func FuzzLayout(f *testing.F) {
	f.Add([]byte("\x00\x10\x02\x01\x05\x05\x05\x05\x30\x00\x01\x02"), uint16(0), uint16(0), uint16(100), uint16(1200))
	f.Add([]byte("\x01\x02\x03\x04\x01\x02\x03\x04\xff\xff\xff\xff"), uint16(20), uint16(400), uint16(40), uint16(400))
	f.Add([]byte("\x10\x00\x00\x00"), uint16(3000), uint16(0), uint16(7), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, fromDays, spanDays, textW, svgW uint16) {
		fsys := randomCorpus(data)
		if len(fsys) == 0 {
			return
		}
		c, err := corpus.Load(fsys)
		if err != nil {
			return // e.g. two files with one source_id and lang
		}
		opts := timeline.Options{Today: corpus.MustDate(2024, 6, 1)}
		if fromDays > 0 {
			opts.From = corpus.MustDate(2018, 1, 1).AddDays(int(fromDays))
		}
		if spanDays > 0 && fromDays > 0 {
			opts.Until = opts.From.AddDays(int(spanDays))
		}
		m, err := timeline.Build(selector.NewIndex(c), opts)
		if err != nil {
			t.Fatal(err)
		}
		checkModel(t, m)
		tw := max(int(textW), timeline.MinTextWidth)
		text := string(render(t, m, "txt", tw))
		checkTextWidth(t, m, text, tw)
		for _, format := range []string{"svg", "html"} {
			var a, b bytes.Buffer
			if format == "svg" {
				m.WriteSVG(&a, int(svgW))
				m.WriteSVG(&b, int(svgW))
			} else {
				m.WriteHTML(&a, int(svgW))
				m.WriteHTML(&b, int(svgW))
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("%s not deterministic", format)
			}
			checkXML(t, format, a.Bytes())
		}
		var svg bytes.Buffer
		m.WriteSVG(&svg, int(svgW))
		checkSVGBars(t, svg.Bytes())
	})
}

func checkModel(t *testing.T, m *timeline.Model) {
	t.Helper()
	if !m.From.Before(m.Until) {
		t.Fatalf("axis %s..%s is empty", m.From, m.Until)
	}
	for _, l := range m.Lanes {
		type span struct{ from, until corpus.Date }
		rows := map[int][]span{}
		for _, b := range l.Bars {
			if b.Start.Before(m.From) || m.Until.Before(b.End) || !b.Start.Before(b.End) {
				t.Fatalf("bar %s [%s, %s) outside the axis [%s, %s) or empty", b.SourceID, b.Start, b.End, m.From, m.Until)
			}
			if b.Row < 0 || b.Row >= l.Rows {
				t.Fatalf("bar %s in row %d of %d", b.SourceID, b.Row, l.Rows)
			}
			for _, s := range rows[b.Row] {
				if b.Start.Before(s.until) && s.from.Before(b.End) {
					t.Fatalf("bars overlap in row %d of %s", b.Row, l.Name())
				}
			}
			rows[b.Row] = append(rows[b.Row], span{b.Start, b.End})
		}
		for _, o := range l.Overlaps {
			if len(o.Bars) < 2 {
				t.Fatalf("overlap with %d bars", len(o.Bars))
			}
		}
	}
}

// checkTextWidth checks that every line of the text chart, the lists and
// the legend included, fits the width.
func checkTextWidth(t *testing.T, m *timeline.Model, text string, width int) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if n := cellWidth(line); n > width {
			t.Fatalf("line of %d columns in a %d-column chart: %q", n, width, line)
		}
	}
}

// cellWidth is how many terminal columns s takes.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// checkSVGBars checks that every bar's rectangle lies within the SVG.
func checkSVGBars(t *testing.T, data []byte) {
	t.Helper()
	var doc struct {
		Width float64 `xml:"width,attr"`
		Lanes []struct {
			Bars []struct {
				Class string `xml:"class,attr"`
				Rect  struct {
					X     float64 `xml:"x,attr"`
					Width float64 `xml:"width,attr"`
				} `xml:"rect"`
			} `xml:"g"`
		} `xml:"g"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range doc.Lanes {
		for _, b := range l.Bars {
			if !strings.HasPrefix(b.Class, "bar") {
				continue
			}
			n++
			if b.Rect.X < 0 || b.Rect.Width <= 0 || b.Rect.X+b.Rect.Width > doc.Width {
				t.Fatalf("bar rect x=%v width=%v outside 0..%v", b.Rect.X, b.Rect.Width, doc.Width)
			}
		}
	}
}

// hierarchical has long subjects of several segments, in two languages,
// and a supplement beside the others of two subjects.
func hierarchical() fstest.MapFS {
	return fstest.MapFS{
		"bj-en.md":   source("lodging-bj", "v1", "travel/lodging/beijing", "2026-01-01", "", "en", "unit: CNY per room-night\n"),
		"bj-zh.md":   source("lodging-bj", "v1", "travel/lodging/beijing", "2026-01-01", "", "zh", "unit: CNY per room-night\n"),
		"sh-en.md":   source("lodging-sh", "v1", "travel/lodging/shanghai", "2026-01-01", "2026-05-01", "en", ""),
		"sh2-en.md":  source("lodging-sh2", "v2", "travel/lodging/shanghai", "2026-08-01", "", "en", ""),
		"shared.md":  source("lodging-receipts", "v1", "travel/lodging/beijing, travel/lodging/shanghai", "2026-03-01", "2027-01-01", "en", "role: supplement\n"),
		"rail-en.md": source("rail-beijing", "v1", "travel/rail/beijing-capital-airport-express", "2026-02-01", "", "en", ""),
	}
}

// TestLaneNamesStayWhole: a lane's name that does not fit its column
// wraps, after a '/' where it can, and is never cut: the lanes of
// travel/lodging/beijing in en and zh read apart, in every format.
func TestLaneNamesStayWhole(t *testing.T) {
	m, err := timeline.Build(load(t, hierarchical()), timeline.Options{Subjects: []string{"travel/lodging/beijing"}, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	got := string(render(t, m, "txt", 40))
	want := `ka2 timeline [2026-01-01, 2027-03-01);
    today 2026-09-14

             2026                   2027
             ┼───────────────▼──────┼───
travel/      [lodging-bj v1 · CNY per …▶
lodging/        [═lodging-receipts…)
beijing en
                             │
  lodging-bj v1
    [2026-01-01, open)
    CNY per room-night
  lodging-receipts v1
    [2026-03-01, 2027-01-01)
    supplement: applies beside the
      others
  ═ supplement [2026-03-01, 2027-01-01):
      lodging-bj, lodging-receipts apply
      together by design

travel/      [lodging-bj v1 · CNY per …▶
lodging/
beijing zh
                             │
  lodging-bj v1
    [2026-01-01, open)
    CNY per room-night

[ first day  ) first day no longer valid
▶ open-ended  ◀ › cut by the axis
▓ conflict
▒ overlap of a supersedes pair  ░ gap
═ supplement: applies beside the others
│ today (▼ on the axis)
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WriteText(40) mismatch (-want +got):\n%s", diff)
	}
	for _, w := range []int{40, 41, 60, 73, 100} {
		checkTextWidth(t, m, string(render(t, m, "txt", w)), w)
	}

	// SVG and HTML: each lane's name is the text of its label, whole.
	all, err := timeline.Build(load(t, hierarchical()), timeline.Options{Today: today})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*timeline.Model{m, all} {
		var want []string
		for _, l := range m.Lanes {
			want = append(want, l.Name())
		}
		for _, format := range []string{"svg", "html"} {
			data := render(t, m, format, 0)
			if diff := cmp.Diff(want, svgLaneNames(t, data)); diff != "" {
				t.Errorf("%s lane names mismatch (-want +got):\n%s", format, diff)
			}
			if strings.Contains(string(data), "…</tspan>") {
				t.Errorf("%s cuts a lane name", format)
			}
		}
	}
}

// svgLaneNames reads the lane names of an SVG (or of the HTML page that
// holds one) from their label lines, as a person reads them: a line that
// ends in '/', '-', '_' or '.' goes on without a blank.
func svgLaneNames(t *testing.T, data []byte) []string {
	t.Helper()
	var names []string
	dec := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("<!DOCTYPE html>\n"))))
	inLane, inSpan := false, false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			for _, a := range tok.Attr {
				if a.Name.Local == "class" && a.Value == "lane" {
					inLane = true
					names = append(names, "")
				}
			}
			inSpan = inLane && tok.Name.Local == "tspan"
		case xml.EndElement:
			if tok.Name.Local == "text" {
				inLane = false
			}
			inSpan = false
		case xml.CharData:
			if inSpan {
				sep := ""
				if n := names[len(names)-1]; n != "" && !strings.ContainsAny(n[len(n)-1:], "/-_.") {
					sep = " "
				}
				names[len(names)-1] += sep + string(tok)
			}
		}
	}
}

// TestSupplementIsNoConflict: a source with role: supplement that
// overlaps the others of its subjects is drawn as a supplement, never as
// a conflict, as select and lint say; it covers no gap either.
func TestSupplementIsNoConflict(t *testing.T) {
	ix := load(t, hierarchical())
	m, err := timeline.Build(ix, timeline.Options{Subjects: []string{"travel/lodging/beijing", "travel/lodging/shanghai"}, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	type overlap struct {
		Interval             string
		Conflict, Supplement bool
	}
	var got []overlap
	var gaps []string
	for _, l := range m.Lanes {
		for _, b := range l.Bars {
			if b.Conflict {
				t.Errorf("%s: %s drawn in conflict", l.Name(), b.SourceID)
			}
			if b.Supplement != (b.SourceID == "lodging-receipts") {
				t.Errorf("%s: %s Supplement = %v", l.Name(), b.SourceID, b.Supplement)
			}
		}
		for _, o := range l.Overlaps {
			got = append(got, overlap{o.Interval(), o.Conflict, o.Supplement})
			// select agrees: no conflict on the overlap's first day.
			sel, err := ix.Select(selector.Query{Subjects: []string{l.Subject}, Dates: []corpus.Date{o.From}, Lang: l.Lang})
			if err != nil {
				t.Fatal(err)
			}
			if len(sel.Conflicts) > 0 {
				t.Errorf("select reports %v on %s where the timeline draws a supplement", sel.Conflicts, o.From)
			}
		}
		for _, g := range l.Gaps {
			gaps = append(gaps, l.Name()+" "+g.Interval())
		}
	}
	want := []overlap{
		{"[2026-03-01, 2027-01-01)", false, true},
		{"[2026-03-01, 2026-05-01)", false, true},
		{"[2026-08-01, 2027-01-01)", false, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overlaps mismatch (-want +got):\n%s", diff)
	}
	// The supplement alone between lodging-sh and lodging-sh2 is no
	// coverage: the gap stays, as lint's coverage_gap reports it.
	if diff := cmp.Diff([]string{"travel/lodging/shanghai en [2026-05-01, 2026-08-01)"}, gaps); diff != "" {
		t.Errorf("gaps mismatch (-want +got):\n%s", diff)
	}
	text := string(render(t, m, "txt", 100))
	if strings.ContainsRune(text[:strings.LastIndex(text, "[ first day")], '▓') {
		t.Errorf("text draws a conflict:\n%s", text)
	}
	if !strings.Contains(text, "═ supplement [2026-03-01, 2027-01-01): lodging-bj, lodging-receipts apply together by design") {
		t.Errorf("text does not list the supplement:\n%s", text)
	}
	for _, format := range []string{"svg", "html"} {
		out := string(render(t, m, format, 0))
		if strings.Contains(out, `class="overlap conflict"`) || strings.Contains(out, " conflict\"") || strings.Contains(out, "in conflict") {
			t.Errorf("%s draws a conflict", format)
		}
		if !strings.Contains(out, `class="bar supplement"`) || !strings.Contains(out, "0 conflicts") {
			t.Errorf("%s does not draw the supplement as one", format)
		}
	}
	// A supplement does not hide a real conflict beside it.
	fsys := hierarchical()
	fsys["bj-other.md"] = source("lodging-bj-other", "v1", "travel/lodging/beijing", "2026-06-01", "2026-07-01", "en", "")
	m, err = timeline.Build(load(t, fsys), timeline.Options{Subjects: []string{"travel/lodging/beijing"}, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Lanes[0].Bars {
		if want := b.SourceID != "lodging-receipts"; b.Conflict != want {
			t.Errorf("%s: Conflict = %v, want %v", b.SourceID, b.Conflict, want)
		}
	}
}
