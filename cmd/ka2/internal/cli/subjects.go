package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/suggest"
	"github.com/ka2/ka2/internal/textsafe"
	"github.com/ka2/ka2/selector"
)

// SubjectsOptions are the inputs of `ka2 subjects`.
type SubjectsOptions struct {
	f *Factory
	corpusFlags
	Format string
	// Under, the optional argument, keeps the subject it names and those
	// under it (travel/lodging: travel/lodging/beijing, …).
	Under string
	cmdContext
}

// NewCmdSubjects makes `ka2 subjects`. runF replaces the run step in tests.
func NewCmdSubjects(f *Factory, runF func(*SubjectsOptions) error) *cobra.Command {
	opts := &SubjectsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "subjects [SUBJECT]",
		Short: "List every subject with its sources, languages and date coverage",
		Long: `Subjects lists every subject some source of the corpus is about, with the
source_ids about it, their languages ("-" when a source has none and so
serves every language) and the dates on which at least one of them
applies, merged into intervals [from, until) ("open" when one has no end).
A gap between intervals is a date on which a question about the subject
gets no evidence.

Subjects are listed segment by segment, so that those under a parent
(travel/lodging/beijing, travel/lodging/shanghai) stay together. With
SUBJECT, only that subject and those under it are listed; naming neither
a subject nor a parent of one is a usage error with a suggestion.`,
		Example: `  ka2 subjects
  ka2 subjects travel/lodging
  ka2 subjects --corpus policies --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) {
			if len(args) == 1 {
				opts.Under = args[0]
			}
		}, nil, runF, runSubjects),
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
	if o.Under != "" {
		var names []string
		for _, s := range subjects {
			names = append(names, s.Name)
		}
		parent := strings.TrimSuffix(o.Under, corpus.SubjectSep)
		subjects = slices.DeleteFunc(subjects, func(s corpus.Subject) bool {
			return s.Name != parent && !strings.HasPrefix(s.Name, parent+corpus.SubjectSep)
		})
		if len(subjects) == 0 {
			slices.Sort(names) // the selector's order
			e := selector.UnknownSubject(o.Under, names)
			if len(e.Related) == 0 {
				// Here a parent is an answer too: travel/lodgin means
				// travel/lodging.
				if p := suggest.Closest(o.Under, withParents(names)); p != "" {
					e.Suggestion = p
				}
			}
			return e
		}
	}
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

// withParents returns names and every parent of them (travel and
// travel/lodging for travel/lodging/beijing), sorted, each once.
func withParents(names []string) []string {
	out := slices.Clone(names)
	for _, n := range names {
		for i := range len(n) {
			if n[i] == '/' {
				out = append(out, n[:i])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
