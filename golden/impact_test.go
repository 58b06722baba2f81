package golden_test

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/testutil"
)

func loadCorpus(t *testing.T, dir string) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Folder(dir).Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestImpact moves travel-v1's valid_until (en) by one day: the case asking
// about 2026-01-01 in English now selects both versions, and the cases
// quoting travel-v1 in English carry its new valid_until.
func TestImpact(t *testing.T) {
	dir := t.TempDir()
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	testutil.CopyFS(t, corpus.Sample(), oldDir)
	testutil.CopyFS(t, corpus.Sample(), newDir)
	edit(t, filepath.Join(newDir, "en", "travel-v1.md"), "valid_until: 2026-01-01", "valid_until: 2026-01-02")
	next := loadCorpus(t, newDir)
	s, err := golden.Load(context.Background(), []string{sampleCases}, golden.LoadOptions{Corpus: next})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := golden.Impact(context.Background(), s, loadCorpus(t, oldDir), next, 0)
	if err != nil {
		t.Fatalf("Impact() error: %v", err)
	}
	if diff := cmp.Diff([]golden.FileChange{{Path: "en/travel-v1.md", Change: "modified"}}, rep.ChangedFiles); diff != "" {
		t.Errorf("ChangedFiles mismatch (-want +got):\n%s", diff)
	}
	var got []golden.CaseImpact
	for _, c := range rep.Changed {
		c.Diff = ""
		got = append(got, c)
	}
	// 2026-01-01 now selects both versions, which no longer fit; every
	// other case quoting travel-v1 in English changes in its record's
	// valid_until alone, since each record carries its source's validity.
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
		if diff := cmp.Diff([]string{"en/travel-v1.md"}, c.CausedBy); diff != "" {
			t.Errorf("%s: CausedBy mismatch (-want +got):\n%s", c.Name, diff)
		}
		want := regexp.MustCompile(`^evidence ~travel-v1:1-[34] \(valid_until 2026-01-01 → 2026-01-02\)$`)
		if c.Name == "first-day-of-v2" {
			want = regexp.MustCompile(`^now fails: budget_exceeded: over budget by 182 code points: the input takes 1582, the limit is 1400 \(capacity 1600 − reserve 200\); budget total 1207 → 1582 \(\+375\) of 1400$`)
		}
		if !want.MatchString(c.Summary) {
			t.Errorf("%s: Summary = %q, want %s", c.Name, c.Summary, want)
		}
	}
	wantNames := []string{"last-day-of-v1", "first-day-of-v2", "mid-2025", "compare-2025-and-2026", "compare-dates-given-newest-first",
		"compare-short", "comparison-fits-when-short"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("changed cases mismatch (-want +got):\n%s", diff)
	}
	if rep.Cases != len(s.Cases) {
		t.Errorf("Cases = %d, want %d", rep.Cases, len(s.Cases))
	}
	// Unchanged corpora change nothing.
	if same, err := golden.Impact(context.Background(), s, next, next, 1); err != nil || len(same.Changed) != 0 || len(same.ChangedFiles) != 0 {
		t.Errorf("Impact() of a corpus with itself: %+v", same)
	}
}
