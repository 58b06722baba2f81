package golden

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/parallel"
	"github.com/ka2/ka2/selector"
)

// ImpactReport lists the cases whose build output differs between two
// versions of a corpus, and the changed files that caused each difference.
type ImpactReport struct {
	// Cases is how many cases were built against both corpora.
	Cases int `json:"cases"`
	// ChangedFiles are the corpus files added, removed or modified, by path.
	ChangedFiles []FileChange `json:"changed_files"`
	// Changed are the cases whose output differs, in suite order.
	Changed []CaseImpact `json:"changed_cases"`
}

// FileChange is one corpus file that differs between the two corpora.
type FileChange struct {
	// Path is slash-separated and relative to the corpus folder.
	Path string `json:"path"`
	// Change is "added", "removed" or "modified".
	Change string `json:"change"`
}

// CaseImpact is one case whose output differs.
type CaseImpact struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Name string `json:"name"`
	// Summary and Diff compare the old corpus's output (the old side) with
	// the new one's.
	Summary string `json:"summary"`
	Diff    string `json:"diff"`
	// CausedBy are the changed files among the sources selected with
	// either corpus: only those can change what a case receives.
	CausedBy []string `json:"caused_by"`
}

// Impact builds every case of s against base (the corpus before an edit)
// and next (after it) and reports the cases whose output differs. The
// case files' own corpus settings are ignored; every other setting
// applies. Load s with LoadOptions{Corpus: next}, or any corpus: Impact
// builds with the two it is given.
//
// Once ctx is done no further case is built, and Impact returns ctx.Err()
// (wrapped) and no report: a report of some of the cases would read as if
// the others did not change.
func Impact(ctx context.Context, s *Suite, base, next *corpus.Corpus, jobs int) (*ImpactReport, error) {
	bix, nix := selector.NewIndex(base), selector.NewIndex(next)
	changed := changedFiles(base, next)
	isChanged := map[string]bool{}
	for _, f := range changed {
		isChanged[f.Path] = true
	}
	results := make([]*CaseImpact, len(s.Cases))
	err := parallel.Do(ctx, len(s.Cases), jobs, func(i int) {
		c := s.Cases[i]
		bb, nb := *c.builder, *c.builder
		bb.Index, nb.Index = bix, nix
		req := c.Request()
		ob, on := BuildOutcome(&bb, req), BuildOutcome(&nb, req)
		if bytes.Equal(ob.Bytes, on.Bytes) {
			return
		}
		ci := &CaseImpact{File: c.File, Line: c.Line, Name: c.Name, CausedBy: []string{},
			Summary: Summarize(ob.Bytes, on.Bytes, nb.Counter, nb.Limits),
			Diff:    Diff("old corpus", ob.Bytes, "new corpus", on.Bytes)}
		for _, src := range slices.Concat(ob.Selected, on.Selected) {
			if isChanged[src.Path] && !slices.Contains(ci.CausedBy, src.Path) {
				ci.CausedBy = append(ci.CausedBy, src.Path)
			}
		}
		slices.Sort(ci.CausedBy)
		results[i] = ci
	})
	if err != nil {
		return nil, fmt.Errorf("impact stopped before every case was built: %w", err)
	}
	rep := &ImpactReport{Cases: len(s.Cases), ChangedFiles: changed, Changed: []CaseImpact{}}
	for _, r := range results {
		if r != nil {
			rep.Changed = append(rep.Changed, *r)
		}
	}
	return rep, nil
}

// changedFiles compares two corpora file by file, by path and content.
func changedFiles(base, next *corpus.Corpus) []FileChange {
	old := map[string][sha256.Size]byte{}
	for _, s := range base.Sources {
		old[s.Path] = s.Digest
	}
	out := []FileChange{}
	seen := map[string]bool{}
	for _, s := range next.Sources {
		seen[s.Path] = true
		switch d, ok := old[s.Path]; {
		case !ok:
			out = append(out, FileChange{s.Path, "added"})
		case d != s.Digest:
			out = append(out, FileChange{s.Path, "modified"})
		}
	}
	for p := range old {
		if !seen[p] {
			out = append(out, FileChange{p, "removed"})
		}
	}
	slices.SortFunc(out, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// WriteText writes the impact for a content author: each changed case
// with its summary and the files that caused it, the changed files, and a
// closing line.
func (r *ImpactReport) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, c := range r.Changed {
		fmt.Fprintf(&b, "CHANGED %s:%d %s\n    %s\n", c.File, c.Line, c.Name, c.Summary)
		if len(c.CausedBy) > 0 {
			fmt.Fprintf(&b, "    caused by %s\n", strings.Join(c.CausedBy, ", "))
		}
	}
	if len(r.ChangedFiles) > 0 {
		b.WriteString("changed corpus files:\n")
		for _, f := range r.ChangedFiles {
			fmt.Fprintf(&b, "    %-8s %s\n", f.Change, f.Path)
		}
	}
	fmt.Fprintf(&b, "ka2 impact: %s, %d changed by %s\n", plural(r.Cases, "case"), len(r.Changed), plural(len(r.ChangedFiles), "changed file"))
	_, err := w.Write(b.Bytes())
	return err
}
