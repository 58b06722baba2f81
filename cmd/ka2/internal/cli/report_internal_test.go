package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/inputfile"
)

// TestReportMergeShardCap: a shard report of exactly the cap is merged;
// one byte over is refused, naming the file, as an input error (exit 2),
// and nothing reaches stdout.
func TestReportMergeShardCap(t *testing.T) {
	chdirRegressFixture(t)
	f, _, stderr := TestFactory("")
	if code := Run(context.Background(), f, []string{"regress", "--update", "--format", "json", "--report", "shard.json", "cases"}); code != 0 {
		t.Fatalf("regress: exit %d, %s", code, stderr)
	}
	info, err := os.Stat("shard.json")
	if err != nil {
		t.Fatal(err)
	}
	size := info.Size()
	f, stdout, _ := TestFactory("")
	if err := runReportMerge(&ReportMergeOptions{f: f, Files: []string{"shard.json"}, Format: "text", maxShard: size}); err != nil || stdout.Len() == 0 {
		t.Fatalf("runReportMerge() at the cap = %v, stdout %q; want the merged report", err, stdout)
	}
	f, stdout, _ = TestFactory("")
	err = runReportMerge(&ReportMergeOptions{f: f, Files: []string{"shard.json"}, Format: "text", maxShard: size - 1})
	want := fmt.Sprintf("read report: read shard.json: it is larger than %s, the most ka2 reads from one file", inputfile.Size(size-1))
	if err == nil || err.Error() != want || !errors.Is(err, inputfile.ErrTooLarge) || errkind.Classify(err) != errkind.BadInput || stdout.Len() != 0 {
		t.Errorf("runReportMerge() over the cap = %v, stdout %q; want %q, a bad input", err, stdout, want)
	}
}
