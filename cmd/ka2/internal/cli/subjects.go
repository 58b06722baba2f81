package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/internal/textsafe"
)

// SubjectsOptions are the inputs of `ka2 subjects`.
type SubjectsOptions struct {
	f *Factory
	corpusFlags
	Format string
	cmdContext
}

// NewCmdSubjects makes `ka2 subjects`. runF replaces the run step in tests.
func NewCmdSubjects(f *Factory, runF func(*SubjectsOptions) error) *cobra.Command {
	opts := &SubjectsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "subjects",
		Short: "List every subject with its sources, languages and date coverage",
		Long: `Subjects lists every subject some source of the corpus is about, with the
source_ids about it, their languages ("-" when a source has none and so
serves every language) and the dates on which at least one of them
applies, merged into intervals [from, until) ("open" when one has no end).
A gap between intervals is a date on which a question about the subject
gets no evidence.`,
		Example: `  ka2 subjects
  ka2 subjects --corpus policies --format json`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, nil, runF, runSubjects),
	}
	fs := cmd.Flags()
	opts.corpusFlags.register(fs)
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

func runSubjects(o *SubjectsOptions) error {
	corp, err := o.load(o.ctx())
	if err != nil {
		return err
	}
	subjects := corp.Subjects()
	if o.Format == "json" {
		return writeJSON(o.f.Out, subjects, true)
	}
	tw := tabwriter.NewWriter(o.f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tLANGS\tCOVERAGE\tSOURCES")
	for _, s := range subjects {
		langs := s.Langs
		if s.AnyLang {
			langs = append(langs, "-")
		}
		spans := make([]string, len(s.Coverage))
		for i, sp := range s.Coverage {
			spans[i] = sp.String()
		}
		// Names come from policy files: escape what could forge a row.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", textsafe.Escape(s.Name), textsafe.Escape(strings.Join(langs, ",")),
			strings.Join(spans, " "), textsafe.Escape(strings.Join(s.Sources, ",")))
	}
	return tw.Flush()
}
