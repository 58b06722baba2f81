package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/internal/textsafe"
	"github.com/ka2/ka2/selector"
)

// SelectOptions are the inputs of `ka2 select`.
type SelectOptions struct {
	f *Factory
	corpusFlags
	queryFlags
	Format string
	cmdContext
}

// NewCmdSelect makes `ka2 select`.
func NewCmdSelect(f *Factory, runF func(*SelectOptions) error) *cobra.Command {
	opts := &SelectOptions{f: f}
	cmd := &cobra.Command{
		Use:   "select --subject S --date D",
		Short: "Show every source's decision and reason for a subject and date",
		Long: `Select decides every source of the corpus for the subject, date(s) and
language: selected, or excluded with the reason (subject mismatch, other
language, before valid_from, on or after valid_until). Selected sources come
first, in contract order; conflicts (several sources applying on the same
date) are listed after the table.`,
		Example: `  ka2 select --subject lodging --date 2026-09-14
  ka2 select --subject lodging --date 2025-09-14 --date 2026-09-14 --lang en --format json`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, nil, runF, runSelect),
	}
	fs := cmd.Flags()
	opts.queryFlags.register(fs, "", "only sources in this language, and those without one (default: every language)")
	opts.corpusFlags.register(fs)
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

func runSelect(o *SelectOptions) error {
	q, err := o.query()
	if err != nil {
		return err
	}
	corp, err := o.load(o.ctx())
	if err != nil {
		return err
	}
	rep, err := selector.NewIndex(corp).NewReport(q)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		return writeJSON(o.f.Out, rep, true)
	}
	tw := tabwriter.NewWriter(o.f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tLANG\tVERSION\tVALIDITY\tSUBJECTS\tDECISION")
	for _, d := range rep.Decisions {
		lang := d.Lang
		if lang == "" {
			lang = "-"
		}
		// Cells come from policy files: escape what could forge a row
		// or reach the terminal as a control sequence.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", textsafe.Escape(d.SourceID), textsafe.Escape(lang),
			textsafe.Escape(d.Version), d.Interval(), textsafe.Escape(strings.Join(d.Subjects, ",")), textsafe.Escape(d.Explain))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(o.f.Out, "conflict: %s\n", textsafe.Escape(fmt.Sprint(c)))
	}
	return nil
}
