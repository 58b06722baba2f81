package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/textsafe"
	"github.com/ka2/ka2/project"
)

// ConfigOptions are the inputs of `ka2 config`.
type ConfigOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	Cases  string
	Policy string
	Lang   string
	Format string
	cmdContext
}

// NewCmdConfig makes `ka2 config`. runF replaces the run step in tests.
func NewCmdConfig(f *Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{f: f}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective settings and where each came from",
		Long: `Config prints the settings commands run with — corpus, cases, contract,
content, policy, counter, capacity, reserve, lang and the exclusions — and where
each came from: a flag, the project file (file:line:col), its .ka2ignore,
or the default. The project file is --config, else $KA2_CONFIG, else
ka2.yaml found from the current folder upward. A ka2.yaml or .ka2ignore
found upward that is owned by neither you nor root is ignored, and listed
as such, unless its folder is in $KA2_TRUSTED_DIRS (absolute folders,
separated as in PATH, or * for every folder).

The flags are those of the other commands, so ka2 config --counter
o200k_base shows what ka2 build --counter o200k_base would use.`,
		Example: `  ka2 config
  ka2 config --format json
  KA2_CONFIG=ci/ka2.yaml ka2 config`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return runConfig(opts, cmd)
		},
	}
	fs := cmd.Flags()
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.StringVar(&opts.Cases, "cases", "", "case files or folder (default: the project's)")
	fs.StringVar(&opts.Policy, "policy", "", "provenance policy YAML file (default: the embedded policy)")
	fs.StringVar(&opts.Lang, "lang", "en", "language of the instruction and the evidence")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

// Setting is one effective setting and where it came from.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// ConfigReport is what `ka2 config --format json` prints.
type ConfigReport struct {
	// File is the project file, "" without one; From says how it was
	// chosen (--config, KA2_CONFIG or found).
	File     string    `json:"file,omitempty"`
	From     string    `json:"from,omitempty"`
	Settings []Setting `json:"settings"`
	Exclude  []Setting `json:"exclude"`
	// Skipped are the project files and .ka2ignore found upward and
	// ignored for their owner.
	Skipped []project.Skipped `json:"skipped,omitempty"`

	// Warnings are what the settings get wrong together, such as a worked
	// example that cites a source the corpus does not have.
	Warnings []string `json:"warnings,omitempty"`
}

func runConfig(o *ConfigOptions, cmd *cobra.Command) error {
	cfg, err := o.f.project() // applyProject already reported its error
	if err != nil {
		return err
	}
	rep := ConfigReport{Settings: []Setting{}, Exclude: []Setting{}}
	if cfg != nil {
		rep.File, rep.From = filepath.ToSlash(cfg.Path), o.f.proj.from
	}
	for _, s := range o.f.proj.skipped {
		rep.Skipped = append(rep.Skipped, project.Skipped{Path: filepath.ToSlash(s.Path), Owner: s.Owner})
	}
	source := func(flag string) string {
		if o.f.fromProject(flag) {
			return o.f.proj.filled[flag].String()
		}
		if cmd.Flags().Changed(flag) {
			return "flag --" + flag
		}
		return "default"
	}
	add := func(key, flag, value, dflt string, note ...string) {
		src := source(flag)
		if src == "default" {
			value = dflt
			for _, n := range note {
				src += " (" + n + ")"
			}
		}
		rep.Settings = append(rep.Settings, Setting{Key: key, Value: value, Source: src})
	}
	add(project.KeyCorpus, "corpus", o.Corpus, corpus.SampleName)
	add(project.KeyCases, "cases", o.Cases, "")
	add(project.KeyContract, "definition", o.Contract, "", "embedded ka2-context-contract-v1")
	add(project.KeyContent, "content", o.Content, "", "the contract's")
	add(project.KeyPolicy, "policy", o.Policy, "", "embedded")
	// The counter and limits the contract definition gives by default.
	def, err := contract.LoadDefinitionContent(o.Contract, o.Content)
	if err != nil {
		return err
	}
	counter, limits, err := o.config(&o.corpusFlags).Budget(def)
	if err != nil {
		return o.usage(err)
	}
	add(project.KeyCounter, "counter", o.Counter, counter.Name(), "the contract's")
	add(project.KeyCapacity, "capacity", strconv.Itoa(limits.Capacity), strconv.Itoa(limits.Capacity), "the contract's for "+counter.Name())
	add(project.KeyReserve, "reserve", strconv.Itoa(limits.Reserve), strconv.Itoa(limits.Reserve), "the contract's for "+counter.Name())
	add(project.KeyLang, "lang", o.Lang, "en")
	if cfg != nil {
		for _, p := range cfg.Ignore {
			rep.Exclude = append(rep.Exclude, Setting{Key: project.KeyExclude, Value: p, Source: filepath.ToSlash(filepath.Join(cfg.Dir, corpus.IgnoreFile))})
		}
		for _, p := range cfg.Exclude {
			rep.Exclude = append(rep.Exclude, Setting{Key: project.KeyExclude, Value: p, Source: cfg.Pos[project.KeyExclude].String()})
		}
	}
	rep.Warnings = exampleWarnings(o.ctx(), def, &o.corpusFlags)
	if o.Format == "json" {
		return writeJSON(o.f.Out, rep, true)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(o.f.ErrOut, "ka2: warning: %s\n", w)
	}
	tw := tabwriter.NewWriter(o.f.Out, 0, 4, 2, ' ', 0)
	switch {
	case rep.File == "":
		fmt.Fprintln(tw, "project file\t(none)\tno ka2.yaml in this folder or above it")
	case rep.From == "found":
		fmt.Fprintf(tw, "project file\t%s\tfound from the current folder upward\n", rep.File)
	default:
		fmt.Fprintf(tw, "project file\t%s\t%s\n", rep.File, rep.From)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(tw, "ignored\t%s\towned by user %d, neither you nor root\n", textsafe.Escape(s.Path), s.Owner)
	}
	for _, s := range rep.Settings {
		if s.Value == "" {
			s.Value = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, textsafe.Escape(s.Value), textsafe.Escape(s.Source))
	}
	for _, s := range rep.Exclude {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, textsafe.Escape(s.Value), textsafe.Escape(s.Source))
	}
	return tw.Flush()
}

// exampleWarnings checks the definition's worked examples against the
// corpus, worded for the command line; a corpus that does not load leaves
// them unchecked, and says so.
func exampleWarnings(ctx context.Context, def *contract.Definition, c *corpusFlags) []string {
	corp, err := c.load(ctx)
	if err != nil {
		return []string{"the worked example was not checked against the corpus, which does not load (ka2 lint says why)"}
	}
	var out []string
	// The content setting lives in ka2.yaml as much as on the command line.
	name := func(setting string) string {
		if setting == project.KeyContent {
			return "content: in " + project.FileName + ", or --content"
		}
		return flagName(setting)
	}
	for _, d := range def.CheckExample(corp) {
		out = append(out, diag.Phrase(d, name))
	}
	return out
}
