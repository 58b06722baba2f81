package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/errkind"
)

// ReportMergeOptions are the inputs of `ka2 report merge`.
type ReportMergeOptions struct {
	f      *Factory
	Files  []string
	Format string
	JUnit  string
	JSON   string
	cmdContext
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

It prints the merged report in --format (text by default) and can also
write it as JUnit XML (--junit FILE) and JSON (--json FILE). Exit status: 0
when every case passed, 1 when any failed, 2 when the reports cannot be
merged.`,
		Example: `  ka2 report merge --junit junit.xml shard-*.json
  ka2 report merge --format json shard-1.json shard-2.json > merged.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Files = args }, nil, runF, runReportMerge),
	}
	fs := cmd.Flags()
	enumVar(fs, &opts.Format, "format", "text", reportFormats, "output format")
	fs.StringVar(&opts.JUnit, "junit", "", "also write the merged report as JUnit XML to this file")
	fs.StringVar(&opts.JSON, "json", "", "also write the merged report as JSON to this file")
	return cmd
}

func runReportMerge(o *ReportMergeOptions) error {
	var reports []*golden.Report
	for _, name := range o.Files {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("read report: %w", err)
		}
		r, err := golden.ReadReport(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		reports = append(reports, r)
	}
	merged, err := golden.Merge(reports)
	if err != nil {
		return err
	}
	for _, file := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{o.JUnit, func(b *bytes.Buffer) error { return merged.WriteJUnit(b, flagName) }},
		{o.JSON, func(b *bytes.Buffer) error { return merged.WriteJSON(b) }},
	} {
		if file.name == "" {
			continue
		}
		var buf bytes.Buffer
		if err := file.write(&buf); err != nil {
			return err
		}
		if err := atomicfile.Write(o.ctx(), file.name, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	switch o.Format {
	case "json":
		err = merged.WriteJSON(o.f.Out)
	case "junit":
		err = merged.WriteJUnit(o.f.Out, flagName)
	case "html":
		err = merged.WriteHTML(o.f.Out, htmlReportOptions(""))
	default:
		err = merged.WriteText(o.f.Out, flagName)
	}
	if err != nil {
		return err
	}
	if !merged.OK() {
		return exitError{errkind.CheckFailed, errReported}
	}
	return nil
}
