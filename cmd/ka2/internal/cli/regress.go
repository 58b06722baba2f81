package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/golden"
)

// RegressOptions are the inputs of `ka2 regress`.
type RegressOptions struct {
	f     *Factory
	Paths []string

	Jobs         int
	Update       bool
	Force        bool
	Pending      bool
	Prune        bool
	Unreferenced string
	Format       string
	// Reports are the --report values: FILE (in --format) or FORMAT=FILE.
	Reports     []string
	NoHost      bool
	Shard       string
	Cases       []string
	MaxFailures int
	Quiet       bool
	Color       string
	cmdContext
}

// NewCmdRegress makes `ka2 regress`. runF replaces the run step in tests.
func NewCmdRegress(f *Factory, runF func(*RegressOptions) error) *cobra.Command {
	opts := &RegressOptions{f: f}
	cmd := &cobra.Command{
		Use:   "regress [DIR|FILE...]",
		Short: "Run case files against their golden files",
		Long: `Regress runs every case in the case files (*.yaml) under the given folders
(the project's cases folder when none is given),
builds each one exactly as ka2 build would, and compares the bytes with the
case's golden file (testdata/golden/FILE/NAME.golden beside the case file).
It also checks the cases' quick expectations (expect: sources, error).

Exit status: 0 when every case matches; 1 when a case differs, has no golden
or fails an expectation (or, with --unreferenced=reject, a golden has no
case); 2 when the case files themselves are broken. --max-failures N stops
after N failing cases (the cases under way finish; the report says how
many were not run).

Every report says when and on what it ran: the start and end, the ka2
build, the host (--no-host leaves it out), the repository's commit, and
the digests of the corpora and case files.

On a terminal, a progress line is drawn on standard error (--quiet turns
it off), and diffs are coloured (--color; NO_COLOR turns auto off).

--update rewrites the goldens of cases that differ, atomically, and lists
them; it never writes a case whose expectation fails. When the CI
environment variable is set, --update and --prune refuse unless --force is
given. --pending instead writes NAME.golden.new beside each differing
golden, for ka2 review.`,
		Example: `  ka2 regress cases
  ka2 regress --update cases
  ka2 regress --case mid-2026 cases
  ka2 regress --unreferenced=reject --format junit --report junit.xml cases
  ka2 regress --report junit=ka2-junit.xml --report html=ka2.html --report json=ka2.json cases
  ka2 regress --shard 2/4 --format json --report shard-2.json cases`,
		Args: cobra.ArbitraryArgs,
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Paths = args }, opts.validate, runF, runRegress),
	}
	fs := cmd.Flags()
	fs.IntVar(&opts.Jobs, "jobs", 0, "cases run at once (default: all cores); the report is the same for any value")
	fs.BoolVar(&opts.Update, "update", false, "rewrite the goldens of cases that differ or have none")
	fs.BoolVar(&opts.Force, "force", false, "let --update and --prune write even when CI is set")
	fs.BoolVar(&opts.Pending, "pending", false, "write NAME.golden.new beside each differing golden, for ka2 review")
	fs.BoolVar(&opts.Prune, "prune", false, "delete goldens that no case refers to")
	enumVar(fs, &opts.Unreferenced, "unreferenced", "report", []string{"report", "reject"}, "goldens no case refers to: report them, or reject (fail the run)")
	enumVar(fs, &opts.Format, "format", "text", reportFormats, "report format (html: one offline page, failing cases first)")
	fs.StringArrayVar(&opts.Reports, "report", nil, "write the report to this file: FILE in --format, or FORMAT=FILE (repeatable, e.g. --report junit=j.xml --report html=r.html; - for standard output); the console then shows text")
	fs.BoolVar(&opts.NoHost, "no-host", false, "leave the host name out of the report")
	fs.StringVar(&opts.Shard, "shard", "", "run only shard K of N (K/N, e.g. 2/4); shards are stable as cases are added")
	fs.StringArrayVar(&opts.Cases, "case", nil, "run only the case of this name (repeatable; completes from the case files)")
	fs.IntVar(&opts.MaxFailures, "max-failures", 0, "stop after this many failing cases (0: run them all)")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress line on standard error")
	colorVar(fs, &opts.Color)
	return cmd
}

// validate takes the project's cases folder when no path is given, then
// checks the flags.
func (o *RegressOptions) validate() error {
	if len(o.Paths) == 0 {
		cfg, _ := o.f.project() // its error stopped the run before
		if cfg == nil || cfg.Cases == "" {
			return usageError{errors.New("name the case files or folders, e.g. ka2 regress cases, or set cases: in ka2.yaml")}
		}
		o.Paths = []string{cfg.Cases}
	}
	if o.Update && o.Pending {
		return usageError{errors.New("--update and --pending: choose one (--update writes goldens, --pending writes NAME.golden.new for review)")}
	}
	if o.Force && !o.Update && !o.Prune {
		return usageError{errors.New("--force only applies with --update or --prune")}
	}
	if o.MaxFailures < 0 {
		return usageError{fmt.Errorf("--max-failures %d: must not be negative (0 means no limit)", o.MaxFailures)}
	}
	if o.Jobs < 0 {
		return usageError{fmt.Errorf("--jobs %d: must not be negative (0 means all cores)", o.Jobs)}
	}
	if _, err := reportSpecs(o.Format, o.Reports); err != nil {
		return err
	}
	if o.Shard != "" {
		if _, err := golden.ParseShard(o.Shard); err != nil {
			return usageError{fmt.Errorf("--shard: %w", err)}
		}
	}
	return nil
}

// ciSet reports whether the CI environment variable says this is a CI run:
// set, and not empty, "0" or "false".
func ciSet(getenv func(string) string) bool {
	switch getenv("CI") {
	case "", "0", "false", "FALSE", "False":
		return false
	}
	return true
}

func runRegress(o *RegressOptions) error {
	suite, err := golden.Load(o.ctx(), o.Paths, golden.LoadOptions{OpenCorpus: o.f.openCorpus})
	if err != nil {
		return err
	}
	if len(o.Cases) > 0 {
		if suite, err = suite.Only(o.Cases); err != nil {
			return usageError{err}
		}
	}
	shard, _ := golden.ParseShard(o.Shard)
	if o.Shard == "" {
		shard = golden.Shard{}
	}
	opts := golden.Options{
		Jobs: o.Jobs, Update: o.Update, Pending: o.Pending, Prune: o.Prune, Force: o.Force,
		CI: ciSet(o.f.getenv), RejectUnreferenced: o.Unreferenced == "reject", Shard: shard,
		MaxFailures: o.MaxFailures, Clock: o.f.now, Info: runInfo(o.ctx(), o.f, o.Paths, o.NoHost),
	}
	// Progress goes to standard error, and only to a terminal, so that
	// a report on standard output or in a CI log holds no redrawn lines.
	progress := &progressLine{w: o.f.ErrOut}
	if o.f.ErrTTY && !o.Quiet {
		opts.Progress = progress.show
	}
	rep, runErr := golden.Run(o.ctx(), suite, opts)
	progress.clear()
	if rep == nil {
		return runErr
	}
	if err := o.writeReport(rep); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if !rep.OK() {
		return exitError{errkind.CheckFailed, errReported}
	}
	return nil
}

// writeReport prints the report in --format, or with --report writes
// each report file (see writeOutput) and prints text; --report - is
// standard output, as no --report is.
func (o *RegressOptions) writeReport(rep *golden.Report) error {
	specs, _ := reportSpecs(o.Format, o.Reports) // validate checked them
	console := o.Format
	if len(specs) > 0 {
		console = "text"
	}
	return writeReports(o.ctx(), o.f, rep, console, specs, o.f.color(o.Color))
}

// progressLine shows "cases done/total, failures" on one terminal line,
// redrawn at most once per percent.
type progressLine struct {
	w       io.Writer
	last    int
	written bool
}

func (p *progressLine) show(pr golden.Progress) {
	pct := pr.Done * 100 / max(pr.Total, 1)
	if p.written && pct == p.last && pr.Done != pr.Total {
		return
	}
	p.last, p.written = pct, true
	fmt.Fprintf(p.w, "\r\033[Kka2 regress: %d/%d cases, %d failed", pr.Done, pr.Total, pr.Failed)
}

// clear erases the progress line before the report is printed.
func (p *progressLine) clear() {
	if p.written {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
