package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/parallel"
)

// ReportHistoryOptions are the inputs of `ka2 report history`.
type ReportHistoryOptions struct {
	f     *Factory
	Paths []string
	HTML  string
	cmdContext
	// maxReport is the most read of one report; 0 means
	// golden.MaxReportSize (tests set less).
	maxReport int64
}

func newCmdReportHistory(f *Factory, runF func(*ReportHistoryOptions) error) *cobra.Command {
	opts := &ReportHistoryOptions{f: f}
	cmd := &cobra.Command{
		Use:   "history REPORT.json|DIR...",
		Short: "Summarise a series of nightly JSON reports",
		Long: `History reads JSON reports of ka2 regress (files, or folders of *.json
files, one report per night) and prints, night by night, the pass rate
and the failing cases; for each case that failed, the night it first
failed and what changed since it last passed (the corpus digests, the
case file, the repository's commit, the ka2 build); the flaky cases
(failed between two passes with unchanged inputs); and the cases whose
budget use came closest to their limit. --html also writes the history
as one offline page with SVG charts.

Reports of older or newer ka2 versions, and of nights that ran other
cases, are read for what they share. A file that is not a ka2 regress
JSON report is named and skipped: the history is still written, and the
exit status is then 2 (else 0).`,
		Example: `  ka2 report history nightly/
  ka2 report history --html history.html nightly/*.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Paths = args }, nil, runF, runReportHistory),
	}
	cmd.Flags().StringVar(&opts.HTML, "html", "", "also write the history as an HTML page to this file (- for standard output, instead of the text)")
	return cmd
}

func runReportHistory(o *ReportHistoryOptions) error {
	files, skipped := historyFiles(o.Paths)
	b := golden.NewHistoryBuilder()
	var mu sync.Mutex
	problems := make([]string, len(files))
	// Decoding is most of the time: the reports are read on every core
	// and added one at a time (Build orders them, so the order of adding
	// does not show).
	err := parallel.Do(o.ctx(), len(files), 0, func(i int) {
		data, err := inputfile.ReadFile(files[i], cmp.Or(o.maxReport, golden.MaxReportSize))
		if err != nil {
			problems[i] = fmt.Sprintf("%s: %s", filepath.ToSlash(files[i]), inputfile.Reason(err))
			return
		}
		r, err := golden.ReadHistoryReport(data)
		if err != nil {
			problems[i] = fmt.Sprintf("%s: %v", filepath.ToSlash(files[i]), err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		b.Add(filepath.ToSlash(files[i]), r)
	})
	if err != nil {
		return err
	}
	total := len(files) + len(skipped)
	for _, p := range problems {
		if p != "" {
			skipped = append(skipped, p)
		}
	}
	h := b.Build()
	h.Commits = commitLogs(o, h.CommitRanges())
	if o.HTML != "" {
		var buf bytes.Buffer
		if err := h.WriteHTML(&buf); err != nil {
			return err
		}
		if err := writeOutput(o.ctx(), o.f.Out, "--html", o.HTML, buf.Bytes()); err != nil {
			return err
		}
	}
	if o.HTML != stdoutName {
		if err := h.WriteText(o.f.Out); err != nil {
			return err
		}
	}
	if len(skipped) > 0 {
		slices.Sort(skipped)
		return fmt.Errorf("skipped %d of %d files, which are not ka2 regress JSON reports (the history leaves them out):\n\t%s",
			len(skipped), total, strings.Join(skipped, "\n\t"))
	}
	return nil
}

// historyFiles lists the report files paths name: each file, and the
// *.json files directly in each folder, sorted, each once. A path that
// cannot be read is returned as a problem.
func historyFiles(paths []string) (files, problems []string) {
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s", filepath.ToSlash(p), inputfile.Reason(err)))
			continue
		}
		if !st.IsDir() {
			add(filepath.Clean(p))
			continue
		}
		names, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", filepath.ToSlash(p), err))
			continue
		}
		if len(names) == 0 {
			problems = append(problems, fmt.Sprintf("%s: %v", filepath.ToSlash(p), errNoReports))
		}
		for _, n := range names {
			add(n)
		}
	}
	return files, problems
}

var errNoReports = errors.New("no *.json reports in this folder")

// maxCommits is how many commits the history lists for one range.
const maxCommits = 20

// commitLogs looks up each range in the git repository holding the
// working folder: the commits after From up to To, newest first, as
// "hash subject". A range git cannot resolve (not a repository, a shallow
// clone, commits of another repository) is left out.
func commitLogs(o *ReportHistoryOptions, ranges []golden.CommitRange) map[golden.CommitRange][]string {
	out := map[golden.CommitRange][]string{}
	for _, r := range ranges {
		if checkRevision("commit", r.From) != nil || checkRevision("commit", r.To) != nil {
			continue // a report's text never becomes a git option
		}
		log, err := o.f.git()(o.ctx(), "log", "--no-decorate", "--format=%h %s", fmt.Sprintf("--max-count=%d", maxCommits+1), r.From+".."+r.To, "--")
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(log)), "\n")
		if len(lines) == 1 && lines[0] == "" {
			continue
		}
		if len(lines) > maxCommits {
			lines = append(lines[:maxCommits], "…")
		}
		out[r] = lines
	}
	return out
}
