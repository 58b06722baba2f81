package golden_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/golden"
)

// writeGeneratedCases writes files×perFile cases on the embedded sample
// corpus: dates across every validity boundary, both languages, three
// subjects, some short, some over budget, one in ten counted in
// cl100k_base tokens, most with an expectation.
func writeGeneratedCases(tb testing.TB, dir string, files, perFile int) {
	tb.Helper()
	dates := []string{"2024-12-31", "2025-01-01", "2025-06-30", "2025-12-31", "2026-01-01", "2026-09-14", "2031-02-28"}
	subjects := []string{"lodging", "lodging", "rail", "lodging-notice"}
	for f := range files {
		var b strings.Builder
		b.WriteString("# Generated for BenchmarkRegress.\ncases:\n")
		for i := range perFile {
			n := f*perFile + i
			fmt.Fprintf(&b, "  - name: case-%05d\n    question: Question number %d about the policy?\n", n, n)
			fmt.Fprintf(&b, "    subject: %s\n    dates: [%s]\n", subjects[n%len(subjects)], dates[n%len(dates)])
			if n%2 == 1 {
				b.WriteString("    lang: zh\n")
			}
			if n%5 == 0 {
				b.WriteString("    short: true\n")
			}
			if n%10 == 3 {
				b.WriteString("    counter: cl100k_base\n")
			}
			if n%20 == 7 {
				b.WriteString("    capacity: 300\n    expect:\n      error: budget_exceeded\n")
			}
		}
		write(tb, filepath.Join(dir, fmt.Sprintf("set-%03d", f/10), fmt.Sprintf("cases-%03d.yaml", f)), b.String())
	}
}

// BenchmarkRegress runs 10,000 generated cases against their goldens, as
// `ka2 regress` does: load and check the case files, then build, compare
// and report every case on all cores.
func BenchmarkRegress(b *testing.B) {
	dir := b.TempDir()
	writeGeneratedCases(b, dir, 100, 100)
	suite, err := golden.Load(context.Background(), []string{dir}, golden.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if rep, err := golden.Run(context.Background(), suite, golden.Options{Update: true}); err != nil || !rep.OK() {
		b.Fatalf("writing the goldens: %v, %s", err, rep.SummaryLine())
	}
	b.ResetTimer()
	for b.Loop() {
		suite, err := golden.Load(context.Background(), []string{dir}, golden.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := golden.Run(context.Background(), suite, golden.Options{})
		if err != nil || !rep.OK() || rep.Summary.Cases != 10000 {
			b.Fatalf("run: %v, %s", err, rep.SummaryLine())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/case")
}
