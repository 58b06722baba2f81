package corpus_test

import (
	"errors"
	"fmt"

	"github.com/ka2/ka2/corpus"
)

func ExampleParseDate() {
	d, err := corpus.ParseDate("2026-01-01")
	fmt.Println(d, err)
	fmt.Println(d.AddDays(-1), d.AddDays(-1).Before(d))

	// A timestamp is refused: ka2 compares calendar days, so a boundary can
	// never depend on a clock or a zone.
	_, err = corpus.ParseDate("2026-01-01T00:00:00+08:00")
	fmt.Println(errors.Is(err, corpus.ErrNotCivilDate))
	fmt.Println(err)

	_, err = corpus.ParseDate("2026-02-30")
	fmt.Println(errors.Is(err, corpus.ErrBadDate))
	// Output:
	// 2026-01-01 <nil>
	// 2025-12-31 true
	// true
	// "2026-01-01T00:00:00+08:00": ka2 compares civil dates: write the date as YYYY-MM-DD, without a time or zone
	// true
}

func ExampleParseAddress() {
	for _, s := range []string{"[travel-v2:1-3]", "travel-v1:2", "rail-faq-v1", "travel-v2:3-1"} {
		a, err := corpus.ParseAddress(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s → source %s, lines %v (%s)\n", s, a.SourceID, a.Range, a)
	}
	// Output:
	// [travel-v2:1-3] → source travel-v2, lines 1-3 (travel-v2:1-3)
	// travel-v1:2 → source travel-v1, lines 2-2 (travel-v1:2-2)
	// rail-faq-v1 → source rail-faq-v1, lines 0-0 (rail-faq-v1)
	// "travel-v2:3-1": not an address: write SOURCE_ID:START-END, e.g. travel-v2:1-3
}

func ExampleLoad() {
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range c.Sources {
		until := s.ValidUntil.String()
		if until == "" {
			until = "open-ended"
		}
		fmt.Printf("%-14s %-2s %s from %s until %s\n", s.ID, s.Lang, s.Subjects, s.ValidFrom, until)
	}

	a, _ := corpus.ParseAddress("travel-v2:3")
	_, _, quote, err := c.Resolve(a, "en")
	fmt.Println(quote, err)
	// Output:
	// notice-hostile    [lodging-notice] from 2026-01-01 until open-ended
	// rail-faq-v1    en [rail] from 2026-01-01 until open-ended
	// rail-faq-v1    zh [rail] from 2026-01-01 until open-ended
	// travel-v1      en [lodging] from 2025-01-01 until 2026-01-01
	// travel-v1      zh [lodging] from 2025-01-01 until 2026-01-01
	// travel-v2      en [lodging] from 2026-01-01 until open-ended
	// travel-v2      zh [lodging] from 2026-01-01 until open-ended
	// The lodging limit is 750 CNY per room-night. <nil>
}

func ExampleSource_ShortLoss() {
	src, err := corpus.Parse("meals.md", []byte(`---
source_id: meals-v1
version: v1
subjects: [meals]
valid_from: 2026-01-01
cite: ["3"]
---
Scope: meals on business trips.
Amounts are in CNY per day.
Ceiling: 750.
`))
	if err != nil {
		panic(err)
	}
	loss := src.ShortLoss()
	fmt.Println(loss.What())
	fmt.Println(corpus.CiteList(src.Cite), "->", corpus.CiteList(loss.Fix))

	// The fix keeps both, and loses nothing.
	src.Cite = loss.Fix
	fmt.Println(src.ShortLoss() == nil)
	// Output:
	// the scope, stated in body line 1, and the unit of the amount 750 in body line 3, named in body line 2
	// ["3"] -> ["1-3"]
	// true
}
