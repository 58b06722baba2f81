package golden_test

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
)

// sampleCopy writes the embedded sample corpus to a folder.
func sampleCopy(t *testing.T, dir string) {
	t.Helper()
	err := fs.WalkDir(corpus.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(corpus.Sample(), p)
		if err != nil {
			return err
		}
		write(t, filepath.Join(dir, filepath.FromSlash(p)), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func loadCorpus(t *testing.T, dir string) *corpus.Corpus {
	t.Helper()
	c, err := contract.LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestImpact moves travel-v1's valid_until (en) by one day. Only the cases
// asking about 2026-01-01 in English can change: that day now selects both
// versions.
func TestImpact(t *testing.T) {
	dir := t.TempDir()
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	sampleCopy(t, oldDir)
	sampleCopy(t, newDir)
	edit(t, filepath.Join(newDir, "en", "travel-v1.md"), "valid_until: 2026-01-01", "valid_until: 2026-01-02")
	next := loadCorpus(t, newDir)
	s, err := golden.Load([]string{sampleCases}, golden.LoadOptions{Corpus: next})
	if err != nil {
		t.Fatal(err)
	}
	rep := golden.Impact(s, loadCorpus(t, oldDir), next, 0)
	if diff := cmp.Diff([]golden.FileChange{{Path: "en/travel-v1.md", Change: "modified"}}, rep.ChangedFiles); diff != "" {
		t.Errorf("ChangedFiles mismatch (-want +got):\n%s", diff)
	}
	var got []golden.CaseImpact
	for _, c := range rep.Changed {
		c.Diff = ""
		got = append(got, c)
	}
	want := []golden.CaseImpact{{
		File: "testdata/sample-cases/boundaries.yaml", Line: 18, Name: "first-day-of-v2",
		Summary:  "now fails: budget_exceeded: over budget by 40 code points: the input takes 1240, the limit is 1200 (capacity 1400 − reserve 200); budget total 946 → 1240 (+294) of 1200",
		CausedBy: []string{"en/travel-v1.md"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Impact() mismatch (-want +got):\n%s", diff)
	}
	if rep.Cases != len(s.Cases) {
		t.Errorf("Cases = %d, want %d", rep.Cases, len(s.Cases))
	}
	// Unchanged corpora change nothing.
	if same := golden.Impact(s, next, next, 1); len(same.Changed) != 0 || len(same.ChangedFiles) != 0 {
		t.Errorf("Impact() of a corpus with itself: %+v", same)
	}
}
