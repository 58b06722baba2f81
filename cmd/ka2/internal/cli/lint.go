package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/corpus/lint"
)

// LintOptions are the inputs of `ka2 lint`.
type LintOptions struct {
	f            *Factory
	Paths        []string
	Format       string
	Strict       bool
	Today        string
	Config       string
	ChangedSince string

	// Git runs git with the given arguments and returns its standard
	// output; tests replace it.
	Git func(args ...string) ([]byte, error)
}

// NewCmdLint makes `ka2 lint`.
func NewCmdLint(f *Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{f: f, Git: runGit}
	cmd := &cobra.Command{
		Use:   "lint [DIR...]",
		Short: "Check policy files for mistakes before they land",
		Long: `Lint reports every problem in every policy file of each corpus folder
(the embedded sample when none is given): errors that would make ka2 refuse
the corpus, and warnings about what would make it pick the wrong evidence —
overlapping validity, broken supersedes chains, gaps, amounts without a unit,
text that reads like an instruction to the assistant, translations that
disagree.

Rules can be turned off or given another severity in .ka2lint.yaml (found by
walking up from each folder, or given with --config), and per file with a
"# ka2lint:disable RULE -- reason" comment in the front matter.

Exit 0 when there are no errors (warnings fail only with --strict), 1 when
there are, 2 when the linter could not run.`,
		Example: `  ka2 lint policies
  ka2 lint --format github --changed-since origin/main policies
  ka2 lint --format sarif policies > lint.sarif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runLint(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Format, "format", "text", "output format: "+strings.Join(lint.Formats(), ", "))
	fs.BoolVar(&opts.Strict, "strict", false, "fail on warnings too")
	fs.StringVar(&opts.Today, "today", "", "the date future-source compares with, YYYY-MM-DD (default: today)")
	fs.StringVar(&opts.Config, "config", "", "lint configuration file (default: .ka2lint.yaml found by walking up from each folder)")
	fs.StringVar(&opts.ChangedSince, "changed-since", "", "report only files changed since this git ref, still checked against the whole corpus")
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
		today = o.f.Now().Format("2006-01-02")
	}
	day, err := corpus.ParseDate(today)
	if err != nil {
		return usageError{fmt.Errorf("--today %w", err)}
	}
	var cfg *lint.Config
	if o.Config != "" {
		data, err := os.ReadFile(o.Config)
		if err != nil {
			return fmt.Errorf("read lint config: %w", err)
		}
		if cfg, err = lint.ParseConfig(filepath.ToSlash(o.Config), data); err != nil {
			return err
		}
	}
	if len(o.Paths) == 0 {
		if o.ChangedSince != "" {
			return usageError{errors.New("--changed-since needs a corpus folder in a git checkout")}
		}
		rep, err := lint.Run(corpus.Sample(), lint.Options{Today: day, Config: cfg})
		if err != nil {
			return err
		}
		return finishLint(o, write, rep)
	}
	var reports []lint.Report
	for _, dir := range o.Paths {
		rep, err := lintDir(o, dir, day, cfg)
		if err != nil {
			return err
		}
		reports = append(reports, rep)
	}
	return finishLint(o, write, lint.Merge(reports...))
}

func lintDir(o *LintOptions, dir string, day corpus.Date, cfg *lint.Config) (lint.Report, error) {
	opts := lint.Options{Today: day, Config: cfg}
	if cfg == nil {
		found, err := lint.FindConfigOS(dir)
		if err != nil {
			return lint.Report{}, err
		}
		opts.Config = found
	}
	if o.ChangedSince != "" {
		commit, err := gitCommit(o.Git, dir, "--changed-since", o.ChangedSince)
		if err != nil {
			return lint.Report{}, err
		}
		changed, err := gitChanged(o.Git, dir, commit)
		if err != nil {
			return lint.Report{}, fmt.Errorf("--changed-since %s: %w", o.ChangedSince, err)
		}
		opts.ChangedOnly, opts.Changed = true, changed
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return lint.Report{}, fmt.Errorf("open corpus: %w", err)
	}
	defer root.Close()
	rep, err := lint.Run(root.FS(), opts)
	if err != nil {
		return lint.Report{}, fmt.Errorf("%s: %w", dir, err)
	}
	return rep.Rebase(filepath.ToSlash(dir)), nil
}

func finishLint(o *LintOptions, write func(io.Writer, lint.Report) error, rep lint.Report) error {
	if err := write(o.f.Out, rep); err != nil {
		return err
	}
	if rep.HasErrors(o.Strict) {
		return exitError{code: ExitProblems, err: errors.New(rep.Summary())}
	}
	return nil
}
