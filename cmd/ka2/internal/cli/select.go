package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/selector"
)

// SelectOptions are the inputs of `ka2 select`.
type SelectOptions struct {
	f *Factory
	corpusFlags
	queryFlags
	Format string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runSelect(opts)
		},
	}
	fs := cmd.Flags()
	opts.queryFlags.register(fs, "", "only sources in this language, and those without one (default: every language)")
	opts.corpusFlags.register(fs)
	fs.StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

// selectJSON is the JSON output of `ka2 select`.
type selectJSON struct {
	Corpus    string         `json:"corpus_digest"`
	Subjects  []string       `json:"subjects"`
	Dates     []string       `json:"dates"`
	Lang      string         `json:"lang"`
	Decisions []decisionJSON `json:"decisions"`
	Conflicts []conflictJSON `json:"conflicts"`
}

type decisionJSON struct {
	SourceID   string   `json:"source_id"`
	Lang       string   `json:"lang,omitempty"`
	Version    string   `json:"version"`
	Path       string   `json:"path"`
	Subjects   []string `json:"subjects"`
	ValidFrom  string   `json:"valid_from"`
	ValidUntil string   `json:"valid_until,omitempty"`
	Selected   bool     `json:"selected"`
	Reason     string   `json:"reason"`
	Explain    string   `json:"explain"`
}

type conflictJSON struct {
	Subject string   `json:"subject"`
	Lang    string   `json:"lang,omitempty"`
	Dates   []string `json:"dates"`
	Sources []string `json:"sources"`
}

func runSelect(o *SelectOptions) error {
	if err := checkFormat(o.Format, "text", "json"); err != nil {
		return err
	}
	q, err := o.query()
	if err != nil {
		return err
	}
	corp, err := o.load()
	if err != nil {
		return err
	}
	ix := selector.NewIndex(corp)
	decisions, err := ix.Explain(q)
	if err != nil {
		return err
	}
	sel, err := ix.Select(q)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		out := selectJSON{Corpus: corp.Digest, Subjects: sel.Query.Subjects, Lang: q.Lang,
			Decisions: []decisionJSON{}, Conflicts: []conflictJSON{}}
		for _, d := range sel.Query.Dates {
			out.Dates = append(out.Dates, d.String())
		}
		for _, d := range decisions {
			s := d.Source
			out.Decisions = append(out.Decisions, decisionJSON{SourceID: s.ID, Lang: s.Lang, Version: s.Version,
				Path: s.Path, Subjects: s.Subjects, ValidFrom: s.ValidFrom.String(), ValidUntil: s.ValidUntil.String(),
				Selected: d.Selected(), Reason: string(d.Reason), Explain: d.Explain()})
		}
		for _, c := range sel.Conflicts {
			cj := conflictJSON{Subject: c.Subject, Lang: c.Lang, Sources: c.Sources}
			for _, d := range c.Dates {
				cj.Dates = append(cj.Dates, d.String())
			}
			out.Conflicts = append(out.Conflicts, cj)
		}
		return writeJSON(o.f.Out, out, true)
	}
	tw := tabwriter.NewWriter(o.f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tLANG\tVERSION\tVALIDITY\tSUBJECTS\tDECISION")
	for _, d := range decisions {
		s := d.Source
		lang := s.Lang
		if lang == "" {
			lang = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, lang, s.Version, selector.Interval(s),
			strings.Join(s.Subjects, ","), d.Explain())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range sel.Conflicts {
		fmt.Fprintf(o.f.Out, "conflict: %s\n", c)
	}
	return nil
}
