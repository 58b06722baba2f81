package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
)

// registerCompletions gives every command of the tree shell completion of
// flag values: each enum flag's values (formats, counters, …), and, where
// a command reads a corpus, its subjects for --subject, its languages for
// --lang and its source_ids for show's arguments, from the corpus the
// command line or the project file names (else the sample).
func registerCompletions(f *Factory, cmd *cobra.Command) {
	enums := func(fl *pflag.Flag) {
		if ev, ok := fl.Value.(*enumValue); ok {
			allowed := ev.allowed
			_ = cmd.RegisterFlagCompletionFunc(fl.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return allowed, cobra.ShellCompDirectiveNoFileComp
			})
		}
	}
	cmd.LocalNonPersistentFlags().VisitAll(enums)
	cmd.PersistentFlags().VisitAll(enums)
	if cmd.Flags().Lookup("corpus") != nil {
		corpusNames := func(list func(*corpus.Corpus) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
				corp := completionCorpus(f, c)
				if corp == nil {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				var out []string
				for _, s := range list(corp) {
					if strings.HasPrefix(s, prefix) {
						out = append(out, s)
					}
				}
				return out, cobra.ShellCompDirectiveNoFileComp
			}
		}
		if cmd.Flags().Lookup("subject") != nil {
			_ = cmd.RegisterFlagCompletionFunc("subject", corpusNames(subjectNames))
		}
		if cmd.Flags().Lookup("lang") != nil {
			_ = cmd.RegisterFlagCompletionFunc("lang", corpusNames(langNames))
		}
		if cmd.Name() == "show" {
			cmd.ValidArgsFunction = corpusNames(sourceIDs)
		}
		if cmd.Name() == "subjects" {
			cmd.ValidArgsFunction = corpusNames(func(c *corpus.Corpus) []string { return withParents(subjectNames(c)) })
		}
	}
	if cmd.Name() == "regress" && cmd.Flags().Lookup("case") != nil {
		_ = cmd.RegisterFlagCompletionFunc("case", func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return caseNames(f, args, prefix), cobra.ShellCompDirectiveNoFileComp
		})
	}
	for _, sub := range cmd.Commands() {
		registerCompletions(f, sub)
	}
}

// completionCorpus loads the corpus c's command line would use, or nil
// when it cannot be loaded: a completion never prints an error.
func completionCorpus(f *Factory, c *cobra.Command) *corpus.Corpus {
	dir := ""
	if fl := c.Flags().Lookup("corpus"); fl != nil && fl.Changed {
		dir = fl.Value.String()
	}
	if cfg, err := f.project(); err == nil && cfg != nil {
		if dir == "" {
			dir = cfg.Corpus
		}
	}
	// With no corpus named, the sample, as the command would read it.
	corp, err := f.openCorpus(dir).Load(context.Background())
	if err != nil {
		return nil
	}
	return corp
}

// caseNames lists the names of the cases in the case files args name (the
// project's cases when none), that start with prefix; nothing when they
// cannot be loaded.
func caseNames(f *Factory, args []string, prefix string) []string {
	if len(args) == 0 {
		if cfg, err := f.project(); err == nil && cfg != nil && cfg.Cases != "" {
			args = []string{cfg.Cases}
		}
	}
	if len(args) == 0 {
		return nil
	}
	suite, err := golden.Load(context.Background(), args, golden.LoadOptions{OpenCorpus: f.openCorpus})
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range suite.Cases {
		if strings.HasPrefix(c.Name, prefix) && !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c.Name)
		}
	}
	return out
}

func subjectNames(c *corpus.Corpus) []string {
	var out []string
	for _, s := range c.Subjects() {
		out = append(out, s.Name)
	}
	return out
}

func langNames(c *corpus.Corpus) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range c.Sources {
		if s.Lang != "" && !seen[s.Lang] {
			seen[s.Lang] = true
			out = append(out, s.Lang)
		}
	}
	return out
}

func sourceIDs(c *corpus.Corpus) []string {
	var out []string
	for i, s := range c.Sources {
		if i == 0 || c.Sources[i-1].ID != s.ID { // sorted by ID, then lang
			out = append(out, s.ID)
		}
	}
	return out
}
