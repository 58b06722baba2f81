// Command gen writes a generated series of nightly ka2 regress JSON
// reports into a folder, one file per night, for timing `ka2 report
// history`:
//
//	go run ./internal/gennights/gen -nights 365 -cases 10000 -out /tmp/nightly
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ka2/ka2/internal/gennights"
)

func main() {
	nights := flag.Int("nights", 365, "nights")
	cases := flag.Int("cases", 10000, "cases a night")
	out := flag.String("out", "nightly", "folder to write the reports to")
	flag.Parse()
	// A tenth of a percent of the cases break, at nights spread over the
	// series, and as many flip once.
	spec := gennights.Spec{Nights: *nights, Cases: *cases, Start: time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC),
		Breaks: map[int]int{}, Flaky: map[int][]int{}}
	for i := 0; i < *cases; i += 1000 {
		spec.Breaks[i+7] = (i / 1000 * 37) % *nights
		spec.Flaky[i+500] = []int{(i/1000*53 + 11) % *nights}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	for n := range *nights {
		f, err := os.Create(filepath.Join(*out, spec.Start.AddDate(0, 0, n).Format("2006-01-02")+".json"))
		if err != nil {
			fail(err)
		}
		w := bufio.NewWriter(f)
		if err := spec.Night(n).WriteJSON(w); err != nil {
			fail(err)
		}
		if err := w.Flush(); err != nil {
			fail(err)
		}
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
