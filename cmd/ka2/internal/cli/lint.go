package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/plural"
	"github.com/ka2/ka2/internal/textsafe"
	"github.com/ka2/ka2/lint"
)

// LintOptions are the inputs of `ka2 lint`.
type LintOptions struct {
	f            *Factory
	Paths        []string
	Format       string
	Strict       bool
	Today        string
	Config       string
	Corpus       []string
	ChangedSince string
	Cases        []string
	Quiet        bool
	cmdContext
}

// NewCmdLint makes `ka2 lint`.
func NewCmdLint(f *Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{f: f}
	cmd := &cobra.Command{
		Use:   "lint [--corpus DIR]... [DIR...]",
		Short: "Check policy files for mistakes before they land",
		Long: `Lint reports every problem in every policy file of each corpus folder
(--corpus, repeatable, or given as arguments; the project's when none is
given, else the embedded sample): errors that would make ka2 refuse
the corpus, and warnings about what would make it pick the wrong evidence —
overlapping validity, broken supersedes chains, gaps, amounts without a unit,
text that reads like an instruction to the assistant, translations that
disagree.

Rules can be turned off or given another severity in .ka2lint.yaml (found by
walking up from each folder, or given with --lint-config), and per file with a
"# ka2lint:disable RULE -- reason" comment in the front matter.

Exit 0 when there are no errors (warnings fail only with --strict), 1 when
there are, 2 when the linter could not run.`,
		Example: `  ka2 lint --corpus policies
  ka2 lint --format github --changed-since origin/main policies
  ka2 lint --format sarif policies > lint.sarif
  ka2 lint --cases cases policies`,
		RunE: runE(opts, &opts.cmdContext, func(args []string) {
			if len(args) > 0 && f.fromProject("corpus") {
				opts.Corpus = nil // folders given as arguments replace the project's
			}
			opts.Paths = append(opts.Corpus, args...)
		}, nil, runF, runLint),
	}
	fs := cmd.Flags()
	enumVar(fs, &opts.Format, "format", "text", lint.Formats(), "output format")
	fs.BoolVar(&opts.Strict, "strict", false, "fail on warnings too")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "no summary line on standard error when lint passes")
	fs.StringVar(&opts.Today, "today", "", "the date future_source compares with, YYYY-MM-DD (default: today)")
	fs.StringArrayVar(&opts.Corpus, "corpus", nil, "corpus folder to lint (repeat for several; folders may also be given as arguments)")
	fs.StringVar(&opts.Config, "lint-config", "", "lint configuration file (default: .ka2lint.yaml found by walking up from each folder)")
	fs.StringVar(&opts.ChangedSince, "changed-since", "", "report only files changed since this git ref, still checked against the whole corpus")
	fs.StringArrayVar(&opts.Cases, "cases", nil, "also check the case files (*.yaml) in this file or folder: subjects no linted source has (repeatable)")
	return cmd
}

func runLint(o *LintOptions) error {
	write, ok := lint.Formatter(o.Format)
	if !ok {
		return usageError{fmt.Errorf("--format %q: use one of %s", o.Format, strings.Join(lint.Formats(), ", "))}
	}
	if o.ChangedSince != "" {
		if err := checkRevision("--changed-since", o.ChangedSince); err != nil {
			return err
		}
	}
	today := o.Today
	if today == "" {
		today = o.f.now().Format("2006-01-02")
	}
	day, err := corpus.ParseDate(today)
	if err != nil {
		return usageError{fmt.Errorf("--today %w", err)}
	}
	var cfg *lint.Config
	if o.Config != "" {
		data, err := inputfile.ReadFile(o.Config, inputfile.MaxSize)
		if err != nil {
			return fmt.Errorf("read lint config: %w", err)
		}
		if cfg, err = lint.ParseConfig(filepath.ToSlash(o.Config), data); err != nil {
			return err
		}
		o.f.warnRenamed(cfg)
	}
	if o.Format == "sarif" {
		write = func(w io.Writer, r lint.Report) error {
			return lint.WriteSARIFWith(w, r, lint.SARIFOptions{ToolVersion: o.f.version().Version})
		}
	}
	if len(o.Paths) == 0 {
		if o.ChangedSince != "" {
			return usageError{errors.New("--changed-since needs a corpus folder in a git checkout")}
		}
		rep, err := lint.Run(o.ctx(), corpus.Sample(), lint.Options{Today: day, Config: cfg})
		if err != nil {
			return err
		}
		if rep, err = lintCases(o, rep, cfg); err != nil {
			return err
		}
		return finishLint(o, write, rep)
	}
	// Paths in the output start with each folder as given, except in
	// SARIF, whose paths are relative to the repository root: there they
	// start with the folder's absolute path, and the writer makes them
	// relative to the root.
	bases := make([]string, len(o.Paths))
	for i, dir := range o.Paths {
		bases[i] = filepath.ToSlash(dir)
	}
	if o.Format == "sarif" {
		root, real, err := sarifRoot(o.ctx(), o.f.git(), o.Paths)
		if err != nil {
			return err
		}
		bases = real
		write = func(w io.Writer, r lint.Report) error {
			return lint.WriteSARIFWith(w, r, lint.SARIFOptions{Root: root, ToolVersion: o.f.version().Version})
		}
	}
	var reports []lint.Report
	for i, dir := range o.Paths {
		rep, err := lintDir(o, dir, day, cfg)
		if err != nil {
			return err
		}
		reports = append(reports, rep.Rebase(bases[i]))
	}
	rep, err := lintCases(o, lint.Merge(reports...), cfg)
	if err != nil {
		return err
	}
	return finishLint(o, write, rep)
}

// lintCases adds to rep what the --cases files name that the corpus does
// not back: subjects no linted source has, and questions that name a date
// their case does not ask. A case file that does not parse is an input
// error: regress would refuse it too.
func lintCases(o *LintOptions, rep lint.Report, cfg *lint.Config) (lint.Report, error) {
	if len(o.Cases) == 0 {
		return rep, nil
	}
	var (
		subjects  []lint.SubjectRef
		questions []lint.QuestionRef
	)
	for _, p := range o.Cases {
		s, q, err := caseRefs(p)
		if err != nil {
			return lint.Report{}, err
		}
		subjects, questions = append(subjects, s...), append(questions, q...)
	}
	rep.Findings = append(rep.Findings, lint.CheckSubjects(subjects, rep.Subjects, cfg)...)
	rep.Findings = append(rep.Findings, lint.CheckQuestionDates(questions, cfg)...)
	return lint.Merge(rep), nil
}

// caseRefs reads the case files in p, a file or a folder (walked as
// regress walks it: folders named testdata or starting with '.' or '_' are
// skipped), and returns every subject their cases name, at the line that
// names it, and every case's question with its dates, at the question.
func caseRefs(p string) ([]lint.SubjectRef, []lint.QuestionRef, error) {
	var files []string
	err := filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != p && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if path == p || strings.HasSuffix(name, ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--cases: %w", err)}
	}
	var (
		subjects  []lint.SubjectRef
		questions []lint.QuestionRef
	)
	for _, name := range files {
		data, err := inputfile.ReadFile(name, inputfile.MaxSize)
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("--cases: %w", err)}
		}
		slash := filepath.ToSlash(name)
		f, err := golden.ParseFile(slash, data)
		if err != nil {
			return nil, nil, err
		}
		lines := strings.Split(string(data), "\n")
		for _, c := range f.Cases {
			for _, subj := range c.Subjects {
				line, col := locateWord(lines, c.Line, subj)
				subjects = append(subjects, lint.SubjectRef{Path: slash, Line: line, Col: col, Subject: subj})
			}
			if c.Question != "" {
				line, col := locateWord(lines, c.Line, c.Question)
				questions = append(questions, lint.QuestionRef{Path: slash, Line: line, Col: col, Question: c.Question, Dates: c.Dates})
			}
		}
	}
	return subjects, questions, nil
}

// locateWord finds word on a line at or after line from (1-based), or, for
// a subject set under defaults, anywhere; it falls back to the case's line.
func locateWord(lines []string, from int, word string) (line, col int) {
	find := func(i int) int {
		l := lines[i]
		for off := 0; ; {
			j := strings.Index(l[off:], word)
			if j < 0 {
				return -1
			}
			j += off
			k := j + len(word)
			if (j == 0 || !isWordByte(l[j-1])) && (k == len(l) || !isWordByte(l[k])) {
				return j
			}
			off = j + 1
		}
	}
	for _, start := range []int{max(from-1, 0), 0} {
		for i := start; i < len(lines); i++ {
			if j := find(i); j >= 0 {
				return i + 1, utf8.RuneCountInString(lines[i][:j]) + 1
			}
		}
	}
	return from, 1
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

func lintDir(o *LintOptions, dir string, day corpus.Date, cfg *lint.Config) (lint.Report, error) {
	opts := lint.Options{Today: day, Config: cfg}
	if cfg == nil {
		believe, err := o.f.lintConfigBelieved()
		if err != nil {
			return lint.Report{}, err
		}
		found, err := lint.FindConfigOS(dir, believe)
		if err != nil {
			return lint.Report{}, err
		}
		o.f.warnRenamed(found)
		opts.Config = found
	}
	if o.ChangedSince != "" {
		commit, err := gitCommit(o.ctx(), o.f.git(), dir, "--changed-since", o.ChangedSince)
		if err != nil {
			return lint.Report{}, err
		}
		changed, err := gitChanged(o.ctx(), o.f.git(), dir, commit)
		if err != nil {
			return lint.Report{}, fmt.Errorf("--changed-since %s: %w", o.ChangedSince, err)
		}
		opts.ChangedOnly, opts.Changed = true, changed
		// The files as they were, for version_not_bumped.
		base, _, err := gitTreeFS(o.ctx(), o.f.git(), filepath.Clean(dir), "--changed-since", o.ChangedSince)
		if err != nil {
			return lint.Report{}, err
		}
		opts.Base = base
	}
	fsys, done, err := corpus.OpenFolder(dir)
	if err != nil {
		return lint.Report{}, fmt.Errorf("open corpus: %w", err)
	}
	defer done()
	if filter := o.f.corpusFilter(); filter != nil {
		fsys = filter(dir, fsys)
	}
	rep, err := lint.Run(o.ctx(), fsys, opts)
	if err != nil {
		return lint.Report{}, fmt.Errorf("%s: %w", dir, err)
	}
	return rep, nil
}

// sarifRoot finds the folder SARIF paths are relative to: the root of the
// git repository holding the corpus folders, or, outside git, the corpus
// folder (the folder holding them all, for several). It also returns each
// folder's absolute path with links resolved, as git resolves the root's,
// so that the two compare. Folders in different repositories cannot share
// one root.
func sarifRoot(ctx context.Context, git GitRunner, dirs []string) (string, []string, error) {
	real := make([]string, len(dirs))
	var tops []string
	for i, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return "", nil, fmt.Errorf("open corpus: %w", err)
		}
		real[i] = filepath.ToSlash(abs)
		out, err := git(ctx, "-C", dir, "rev-parse", "--show-toplevel")
		if cerr := ctx.Err(); cerr != nil {
			return "", nil, cerr
		}
		if err != nil {
			continue // not in a repository (or no git): the corpus is the root
		}
		top, err := filepath.EvalSymlinks(filepath.FromSlash(strings.TrimSuffix(string(out), "\n")))
		if err != nil {
			return "", nil, fmt.Errorf("find the repository root of %s: %w", dir, err)
		}
		tops = append(tops, filepath.ToSlash(top))
		if tops[0] != tops[len(tops)-1] {
			return "", nil, usageError{fmt.Errorf("--format sarif: %s and %s are in different git repositories; lint each repository's folders in a run of its own", dirs[0], dir)}
		}
	}
	switch {
	case len(tops) == len(dirs):
		return tops[0], real, nil
	case len(tops) > 0:
		return "", nil, usageError{errors.New("--format sarif: some folders are in a git repository and some are not; lint them in separate runs")}
	}
	root := real[0]
	for _, r := range real[1:] {
		for root != "/" && root != path.Dir(root) && !strings.HasPrefix(r+"/", strings.TrimSuffix(root, "/")+"/") {
			root = path.Dir(root)
		}
	}
	return root, real, nil
}

func finishLint(o *LintOptions, write func(io.Writer, lint.Report) error, rep lint.Report) error {
	if err := write(o.f.Out, rep); err != nil {
		return err
	}
	if rep.HasErrors(o.Strict) {
		return exitError{kind: errkind.CheckFailed, err: errors.New(rep.Summary())}
	}
	if !o.Quiet {
		// On standard error, so that every format's output stays clean; a
		// failing run says the same in its error line.
		findings := "no problems"
		if len(rep.Findings) > 0 {
			findings = rep.Counts()
		}
		fmt.Fprintf(o.f.ErrOut, "lint: checked %s (%s): %s\n", plural.Count(rep.Files, "file", "files"), plural.Count(rep.Sources, "source", "sources"), findings)
	}
	return nil
}

// warningJSON is the JSON form of a warning on stderr (an old name in a
// lint configuration or a flag): the one shape of a positioned problem.
type warningJSON struct {
	Warning diag.Wire `json:"warning"`
}

// warnRenamed tells, once per place, that a lint configuration names a
// rule by the kebab-case ID of the previous release, and what to write.
func (f *Factory) warnRenamed(cfg *lint.Config) {
	if cfg != nil {
		f.warn(cfg.Renamed, flagName)
	}
}

// warn prints each warning of ds on stderr once per process (a warning
// is its place, code and message), its settings worded by name, in the
// error format.
func (f *Factory) warn(ds diag.List, name func(setting string) string) {
	for _, d := range ds {
		at := fmt.Sprintf("%s %s %s", d.Code, d.Pos, d.Message)
		if f.warned[at] {
			continue
		}
		if f.warned == nil {
			f.warned = map[string]bool{}
		}
		f.warned[at] = true
		if f.ErrorFormat == "json" {
			writeJSON(f.ErrOut, warningJSON{d.Wire(name)}, false)
			continue
		}
		fmt.Fprintf(f.ErrOut, "ka2: warning: %s\n", textsafe.Escape(diag.Phrase(d, name)))
	}
}
