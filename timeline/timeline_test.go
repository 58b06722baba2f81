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
		{"2024-05-01 to 2024-06-01 (exclusive)", []string{"meal-2024", "meal-2024b"}, false},
		{"2024-06-01 to 2024-07-01 (exclusive)", []string{"meal-2024", "meal-2024b", "meal-promo"}, true},
		{"2024-07-01 to 2024-08-01 (exclusive)", []string{"meal-2024b", "meal-promo"}, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overlaps mismatch (-want +got):\n%s", diff)
	}
	var gaps []string
	for _, g := range l.Gaps {
		gaps = append(gaps, g.Interval())
	}
	if diff := cmp.Diff([]string{"2024-12-01 to 2025-03-01 (exclusive)"}, gaps); diff != "" {
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
			"the timeline from 2026-01-01 until 2026-01-01 holds no date; set the from setting before the until setting: until is the first date not shown"},
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
		subj := []string{"a", "b", "a, b"}[data[i+2]%3]
		id := "s" + strconv.Itoa(i/4)
		extra := ""
		if i >= 4 && data[i+3]%2 == 0 {
			extra = "supersedes: [s" + strconv.Itoa(i/4-1) + "]\n"
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

// checkTextWidth checks that the axis and bar lines of the text chart
// fit the width.
func checkTextWidth(t *testing.T, m *timeline.Model, text string, width int) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "ka2 timeline") {
			continue // the facts and the heading are not drawn to width
		}
		if n := len([]rune(line)); n > width*2 {
			t.Fatalf("line of %d characters in a %d-column chart: %q", n, width, line)
		}
	}
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
