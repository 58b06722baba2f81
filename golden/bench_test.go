package golden_test

import (
	"context"
	"testing"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/gencorpus"
)

// BenchmarkRegress runs 10,000 generated cases against their goldens, as
// `ka2 regress` does: load and check the case files, then build, compare
// and report every case on all cores.
func BenchmarkRegress(b *testing.B) {
	dir := b.TempDir()
	if err := gencorpus.WriteCases(dir, 100, 100, "Generated for BenchmarkRegress."); err != nil {
		b.Fatal(err)
	}
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
