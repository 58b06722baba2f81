package golden_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/gennights"
)

// series is 35 nights of 300 cases: case 7 breaks on night 10 and case
// 150 on night 20 (each with a corpus change), case 299 fails from the
// first night, case 42 fails alone on night 15 with nothing changed
// (flaky), and case 60 fails alone on night 25, the night case 88's
// corpus change comes (not flaky: its corpus changed).
var series = gennights.Spec{Nights: 35, Cases: 300, Start: time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC),
	Breaks: map[int]int{7: 10, 150: 20, 299: 0, 88: 25}, Flaky: map[int][]int{42: {15}, 60: {25}}}

// seriesHistory builds the series' history from its nights added in a
// shuffled order; night 3 comes from an older ka2 (no run information)
// and night 30 lacks the second case file (a changed case set).
func seriesHistory(t *testing.T) *golden.History {
	t.Helper()
	b := golden.NewHistoryBuilder()
	order := rand.New(rand.NewPCG(1, 2)).Perm(series.Nights)
	for _, n := range order {
		r := series.Night(n)
		switch n {
		case 3:
			r.Run = nil
		case 30:
			r.Files = append(r.Files[:1], r.Files[2:]...)
		}
		name := "night-" + time.Date(2026, 1, 1+n, 0, 0, 0, 0, time.UTC).Format("2006-01-02") + ".json"
		b.Add(name, r)
	}
	return b.Build()
}

func caseOf(t *testing.T, h *golden.History, i int) *golden.CaseHistory {
	t.Helper()
	for ci := range h.Cases {
		if c := &h.Cases[ci]; c.Name == gennights.CaseName(i) {
			return c
		}
	}
	t.Fatalf("no case %d in the history", i)
	return nil
}

func TestHistory(t *testing.T) {
	h := seriesHistory(t)
	if len(h.Nights) != 35 || len(h.Cases) != 300 {
		t.Fatalf("%d nights, %d cases; want 35 and 300", len(h.Nights), len(h.Cases))
	}
	// Night 3 has no start time: it sorts by its name among the others'
	// times, which sort before any name; the rest are in time order.
	for i := 1; i < len(h.Nights)-1; i++ {
		if a, b := h.Nights[i-1].Label(), h.Nights[i].Label(); a > b {
			t.Errorf("nights out of order: %s before %s", a, b)
		}
	}
	if last := h.Nights[34]; last.Name != "night-2026-01-04.json" || last.Run != nil {
		t.Errorf("the night without run information: %+v", last)
	}
	night := func(n int) int { // index of generated night n
		t.Helper()
		if n == 3 {
			return 34
		}
		if n > 3 {
			return n - 1
		}
		return n
	}
	if n := h.Nights[night(0)]; n.Passed != 299 || n.Failed != 1 {
		t.Errorf("night 0: %d passed, %d failed", n.Passed, n.Failed)
	}
	if n := h.Nights[night(30)]; n.Cases != 200 {
		t.Errorf("night 30 ran %d cases, want 200 (a case file left out)", n.Cases)
	}
	tests := []struct {
		i               int
		first, lastPass int
		changes         []string
		flips           []golden.Flip
	}{
		{7, night(10), night(9), []string{"corpus policies", "commit"}, nil},
		{150, night(20), night(19), []string{"corpus policies", "commit"}, nil},
		{299, night(0), -1, nil, nil},
		{42, night(15), night(14), []string{"commit"}, []golden.Flip{{Before: night(14), Failed: night(15), After: night(16)}}},
		{60, night(25), night(24), []string{"corpus policies", "commit"}, nil},
		{5, -1, night(35 - 1), nil, nil},
	}
	for _, tt := range tests {
		c := caseOf(t, h, tt.i)
		if c.FirstFailure != tt.first || (tt.first >= 0 && c.LastPass != tt.lastPass) {
			t.Errorf("case %d: first failure %d, last pass %d; want %d and %d", tt.i, c.FirstFailure, c.LastPass, tt.first, tt.lastPass)
		}
		var what []string
		for _, ch := range c.Changes {
			what = append(what, ch.What)
		}
		if diff := cmp.Diff(tt.changes, what); diff != "" {
			t.Errorf("case %d changes mismatch (-want +got):\n%s", tt.i, diff)
		}
		if diff := cmp.Diff(tt.flips, c.Flips); diff != "" {
			t.Errorf("case %d flips mismatch (-want +got):\n%s", tt.i, diff)
		}
	}
	// Case 150 is in the file night 30 left out: not run that night.
	if m := caseOf(t, h, 150).Marks[night(30)]; m != golden.MarkAbsent {
		t.Errorf("case 150 on night 30: mark %q, want absent", m)
	}
	var text bytes.Buffer
	if err := h.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ka2 report history: 35 nights, 2026-01-01T02:00:00.000Z to night-2026-01-04.json, 300 cases\n",
		"  2026-01-11T02:00:00.000Z  298/300 passed (99.33%); failing: case-00007, case-00299\n",
		"  cases/suite-000.yaml case-00007: first failed 2026-01-11T02:00:00.000Z (last passed 2026-01-10T02:00:00.000Z); changed: corpus policies ",
		"  cases/suite-000.yaml case-00042: failed 2026-01-16T02:00:00.000Z\n",
		"  cases/suite-002.yaml case-00299: first failed 2026-01-01T02:00:00.000Z (never passed before); failing on the last night\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "case-00060: failed") {
		t.Error("case 60 is called flaky, but its corpus changed the night it failed")
	}
	goldie.New(t, goldie.WithFixtureDir(fixtureDir)).Assert(t, "history/text", text.Bytes())
}

func TestReadHistoryReport(t *testing.T) {
	good, err := json.Marshal(series.Night(0))
	if err != nil {
		t.Fatal(err)
	}
	newer := bytes.Replace(good, []byte(`{"format":"ka2-regress-report-v1"`), []byte(`{"format":"ka2-regress-report-v2","added_later":{"x":1}`), 1)
	for _, data := range [][]byte{good, newer} {
		if r, err := golden.ReadHistoryReport(data); err != nil || len(r.Files) != 3 {
			t.Errorf("ReadHistoryReport(%.60s…) = %v", data, err)
		}
	}
	tests := []struct{ name, data, want string }{
		{"foreign", `{"format":"something-else","files":[]}`, `its format is "something-else"`},
		{"broken", `{"format":"ka2-regress-report-v1",`, "unexpected end of JSON input"},
		{"not an object", `[1,2]`, "cannot unmarshal array"},
		{"unknown status", `{"format":"ka2-regress-report-v1","files":[{"path":"a.yaml","cases":[{"name":"x","line":3,"status":"skipped"}]}]}`, `case a.yaml:3 x has status "skipped"`},
	}
	for _, tt := range tests {
		_, err := golden.ReadHistoryReport([]byte(tt.data))
		if !errors.Is(err, golden.ErrNotReport) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want ErrNotReport with %q", tt.name, err, tt.want)
		}
	}
}

// FuzzReadHistoryReport: ReadHistoryReport never panics, and a report it
// reads goes into a history as one night holding its cases, twice the
// same.
func FuzzReadHistoryReport(f *testing.F) {
	for n := range 3 {
		data, err := json.Marshal(gennights.Spec{Nights: 3, Cases: 4, PerFile: 2, Breaks: map[int]int{1: 1}}.Night(n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"format":"ka2-regress-report-v9","files":[{"path":"a.yaml","cases":[{"name":"x","status":"pass"},{"name":"x","status":"fail"}]}]}`))
	f.Add([]byte(`{"format":"ka2-regress-report-v1","files":null,"run":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := golden.ReadHistoryReport(data)
		if err != nil {
			return
		}
		text := func() string {
			b := golden.NewHistoryBuilder()
			b.Add("night.json", r)
			h := b.Build()
			if len(h.Nights) != 1 {
				t.Fatalf("%d nights from one report", len(h.Nights))
			}
			var out bytes.Buffer
			if err := h.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			if err := h.WriteHTML(&out); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		if a, b := text(), text(); a != b {
			t.Error("the same report gave two histories")
		}
	})
}
