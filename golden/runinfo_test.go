package golden_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/golden"
)

// stepClock returns a clock that starts at start and moves on by step
// at each reading.
func stepClock(start time.Time, step time.Duration) func() time.Time {
	t := start.Add(-step)
	return func() time.Time { t = t.Add(step); return t }
}

// TestRunInfo checks what a report says of its run: the clock's start and
// end, the front end's facts, every case file's digest, and the corpus
// digests, which change with the corpus and only with it.
func TestRunInfo(t *testing.T) {
	inSampleCopy(t)
	at := time.Date(2026, 3, 1, 2, 0, 0, 0, time.FixedZone("CET", 3600))
	opts := golden.Options{Clock: stepClock(at, 1500*time.Millisecond),
		Info: golden.RunInfo{Tool: golden.Tool{Version: "v9.9.9", Go: "go1.26"}, Host: "night-1", Repository: &golden.Repository{Commit: "abc"}}}
	rep := run(t, load(t, "cases"), opts)
	ri := rep.Run
	if ri == nil {
		t.Fatal("the report has no run information")
	}
	if ri.Started != "2026-03-01T01:00:00.000Z" || ri.Finished != "2026-03-01T01:00:01.500Z" || ri.DurationMS != 1500 {
		t.Errorf("times: %s to %s, %d ms; want 01:00:00.000Z to 01:00:01.500Z in UTC, 1500 ms", ri.Started, ri.Finished, ri.DurationMS)
	}
	if ri.Tool.Version != "v9.9.9" || ri.Host != "night-1" || ri.Repository.Commit != "abc" {
		t.Errorf("the front end's facts were not kept: %+v", ri)
	}
	var paths []string
	for _, f := range ri.CaseFiles {
		paths = append(paths, f.Path)
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: digest %s is not the SHA-256 of its bytes", f.Path, f.SHA256)
		}
	}
	want := []string{"cases/boundaries.yaml", "cases/budget.yaml", "cases/languages.yaml", "cases/overlap.yaml", "cases/trust.yaml"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("case files mismatch (-want +got):\n%s", diff)
	}
	var locs []string
	for _, c := range ri.Corpora {
		locs = append(locs, c.Location)
		if len(c.Digest) != 64 || c.Sources == 0 {
			t.Errorf("corpus %s: digest %q, %d sources", c.Location, c.Digest, c.Sources)
		}
	}
	if diff := cmp.Diff([]string{"cases/corpora/overlap", "embedded:sample"}, locs); diff != "" {
		t.Errorf("corpora mismatch (-want +got):\n%s", diff)
	}

	// One corpus file edited: its corpus's digest changes, the other's
	// and the case files' do not.
	edit(t, "cases/corpora/overlap/meals-flat.md", "meal", "supper")
	again := run(t, load(t, "cases"), golden.Options{}).Run
	if again.Corpora[0].Digest == ri.Corpora[0].Digest || again.Corpora[1].Digest != ri.Corpora[1].Digest {
		t.Errorf("after editing the overlap corpus: digests %v, before %v", again.Corpora, ri.Corpora)
	}
	if diff := cmp.Diff(ri.CaseFiles, again.CaseFiles); diff != "" {
		t.Errorf("case file digests changed with the corpus (-before +after):\n%s", diff)
	}
	if again.Started != "" || again.DurationMS != 0 {
		t.Errorf("a run without a clock has times: %+v", again)
	}
}

// TestMergeRunInfo checks the merged run information of shards: the
// earliest start and latest finish, the host only when they agree, and
// shards of other inputs or builds refused.
func TestMergeRunInfo(t *testing.T) {
	base := func(k int, started, finished string, mod func(*golden.RunInfo)) *golden.Report {
		ri := &golden.RunInfo{Started: started, Finished: finished, Tool: golden.Tool{Version: "v1"}, Host: "h",
			Corpora:   []golden.CorpusDigest{{Location: "policies", Digest: "d1", Sources: 3}},
			CaseFiles: []golden.FileDigest{{Path: "cases/a.yaml", SHA256: "s1"}}}
		if mod != nil {
			mod(ri)
		}
		return &golden.Report{Format: golden.ReportFormat, Run: ri,
			Shard: &golden.ShardInfo{Shard: golden.Shard{Index: k, Count: 2}}}
	}
	got, err := golden.Merge([]*golden.Report{
		base(1, "2026-03-01T01:00:05.000Z", "2026-03-01T01:00:09.000Z", nil),
		base(2, "2026-03-01T01:00:01.000Z", "2026-03-01T01:00:07.250Z", func(r *golden.RunInfo) { r.Host = "other" }),
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Run; r.Started != "2026-03-01T01:00:01.000Z" || r.Finished != "2026-03-01T01:00:09.000Z" || r.DurationMS != 8000 || r.Host != "" {
		t.Errorf("merged run: %+v", r)
	}
	tests := []struct {
		name string
		mod  func(*golden.RunInfo)
		want string
	}{
		{"corpus", func(r *golden.RunInfo) { r.Corpora[0].Digest = "d2" }, "shards read different corpora (digests policies@d1 and policies@d2)"},
		{"case file", func(r *golden.RunInfo) { r.CaseFiles[0].SHA256 = "s2" }, "shards read different case files"},
		{"ka2", func(r *golden.RunInfo) { r.Tool.Version = "v2" }, "shards ran different ka2 builds (v1 and v2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := golden.Merge([]*golden.Report{base(1, "", "", nil), base(2, "", "", tt.mod)})
			if !errors.Is(err, golden.ErrMerge) || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("Merge() error = %v, want …%s", err, tt.want)
			}
		})
	}
}
