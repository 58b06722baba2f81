package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/inputfile"
)

// ReportMergeOptions are the inputs of `ka2 report merge`.
type ReportMergeOptions struct {
	f      *Factory
	Files  []string
	Format string
	// Reports are the --report values, as regress has them.
	Reports []string
	// JUnit and JSON are the older --junit and --json, kept hidden.
	JUnit string
	JSON  string
	Color string
	cmdContext
	// maxShard is the most read of one shard's report; 0 means
	// golden.MaxReportSize (tests set less).
	maxShard int64
}

// NewCmdReport makes `ka2 report` and its subcommand `merge`. runF
// replaces merge's run step in tests.
func NewCmdReport(f *Factory, runF func(*ReportMergeOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with ka2 regress reports",
		Long:  `Report works with the JSON reports ka2 regress --format json writes.`,
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCmdReportMerge(f, runF), newCmdReportHistory(f, nil))
	return cmd
}

func newCmdReportMerge(f *Factory, runF func(*ReportMergeOptions) error) *cobra.Command {
	opts := &ReportMergeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge the JSON reports of sharded runs into one",
		Long: `Merge reads the JSON reports of the shards of one ka2 regress run (each
written with --shard K/N --format json) and combines them into the report
the unsharded run would have given. It checks that every shard 1..N is
there exactly once and that together they hold every case.

It prints the merged report in --format (text by default), or, as ka2
regress does, writes it in --format to the --report file and prints text.
Exit status: 0 when every case passed, 1 when any failed, 2 when the
reports cannot be merged.`,
		Example: `  ka2 report merge --format junit --report junit.xml shard-*.json
  ka2 report merge --format json shard-1.json shard-2.json > merged.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Files = args }, opts.validate, runF, runReportMerge),
	}
	fs := cmd.Flags()
	enumVar(fs, &opts.Format, "format", "text", reportFormats, "report format (html: one offline page, failing cases first)")
	fs.StringArrayVar(&opts.Reports, "report", nil, "write the report to this file: FILE in --format, or FORMAT=FILE (repeatable; - for standard output); the console then shows text")
	fs.StringVar(&opts.JUnit, "junit", "", "also write the merged report as JUnit XML to this file")
	fs.StringVar(&opts.JSON, "json", "", "also write the merged report as JSON to this file")
	// --junit and --json came before --report; scripts that use them
	// keep working.
	_ = fs.MarkHidden("junit")
	_ = fs.MarkHidden("json")
	colorVar(fs, &opts.Color)
	return cmd
}

// specs are the report files to write: --report's, then the older
// --junit and --json.
func (o *ReportMergeOptions) specs() ([]reportSpec, error) {
	specs, err := reportSpecs(o.Format, o.Reports)
	if err != nil {
		return nil, err
	}
	for _, old := range []reportSpec{{"junit", o.JUnit}, {"json", o.JSON}} {
		if old.file != "" {
			specs = append(specs, old)
		}
	}
	if _, err := reportSpecs("", specFiles(specs)); err != nil {
		return nil, err // two on standard output
	}
	return specs, nil
}

// specFiles is specs as FORMAT=FILE values.
func specFiles(specs []reportSpec) []string {
	var out []string
	for _, sp := range specs {
		out = append(out, sp.format+"="+sp.file)
	}
	return out
}

// validate refuses two reports on standard output: they would run into
// each other.
func (o *ReportMergeOptions) validate() error {
	_, err := o.specs()
	return err
}

func runReportMerge(o *ReportMergeOptions) error {
	var reports []*golden.Report
	for _, name := range o.Files {
		data, err := inputfile.ReadFile(name, cmp.Or(o.maxShard, golden.MaxReportSize))
		if err != nil {
			return fmt.Errorf("read report: %w", err)
		}
		r, err := golden.ReadReport(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		reports = append(reports, r)
	}
	merged, err := golden.Merge(reports)
	if err != nil {
		return err
	}
	specs, _ := o.specs() // validate checked them
	// The console shows text when --report names files; the older
	// --junit and --json leave it in --format.
	console := o.Format
	if len(o.Reports) > 0 {
		console = "text"
	}
	if err := writeReports(o.ctx(), o.f, merged, console, specs, o.f.color(o.Color)); err != nil {
		return err
	}
	if !merged.OK() {
		return exitError{errkind.CheckFailed, errReported}
	}
	return nil
}

// writeMergedReport writes r in format; file is where it goes ("" for the
// console), for the HTML report's links.
func writeMergedReport(w io.Writer, r *golden.Report, format, file string, color bool) error {
	switch {
	case format == "json":
		return r.WriteJSON(w)
	case format == "junit":
		return r.WriteJUnit(w, flagName)
	case format == "html":
		return r.WriteHTML(w, htmlReportOptions(file))
	case color:
		return r.WriteColorText(w, flagName)
	}
	return r.WriteText(w, flagName)
}
