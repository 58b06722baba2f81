package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/errkind"
	"github.com/ka2/ka2/internal/inputfile"
)

// ReportMergeOptions are the inputs of `ka2 report merge`.
type ReportMergeOptions struct {
	f      *Factory
	Files  []string
	Format string
	Report string
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
	cmd.AddCommand(newCmdReportMerge(f, runF))
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
	fs.StringVar(&opts.Report, "report", "", "write the report in --format to this file (- for standard output); the console then shows text")
	fs.StringVar(&opts.JUnit, "junit", "", "also write the merged report as JUnit XML to this file")
	fs.StringVar(&opts.JSON, "json", "", "also write the merged report as JSON to this file")
	// --junit and --json came before --report; scripts that use them
	// keep working.
	_ = fs.MarkHidden("junit")
	_ = fs.MarkHidden("json")
	colorVar(fs, &opts.Color)
	return cmd
}

// validate refuses two reports on standard output: they would run into
// each other.
func (o *ReportMergeOptions) validate() error {
	var dash []string
	for _, f := range []struct{ flag, name string }{{"--junit", o.JUnit}, {"--json", o.JSON}, {"--report", o.Report}} {
		if f.name == stdoutName {
			dash = append(dash, f.flag)
		}
	}
	if len(dash) > 1 {
		return usageError{fmt.Errorf("%s: only one report can go to standard output (-)", strings.Join(dash, " and "))}
	}
	return nil
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
	toStdout := false
	for _, file := range []struct {
		flag, name, format string
	}{{"--junit", o.JUnit, "junit"}, {"--json", o.JSON, "json"}, {"--report", o.Report, o.Format}} {
		if file.name == "" {
			continue
		}
		var buf bytes.Buffer
		link := file.name
		if link == stdoutName {
			link, toStdout = "", true
		}
		if err := writeMergedReport(&buf, merged, file.format, link, false); err != nil {
			return err
		}
		if err := writeOutput(o.ctx(), o.f.Out, file.flag, file.name, buf.Bytes()); err != nil {
			return err
		}
	}
	// A report written to standard output is what it shows; else text,
	// or --format when no file was asked for.
	format := o.Format
	if o.Report != "" {
		format = "text"
	}
	if !toStdout {
		if err := writeMergedReport(o.f.Out, merged, format, "", o.f.color(o.Color)); err != nil {
			return err
		}
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
