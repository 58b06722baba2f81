package cli

import (
	"github.com/spf13/cobra"
)

// BudgetOptions are the inputs of `ka2 budget`: those of build, plus a format.
type BudgetOptions struct {
	BuildOptions
	Format string
}

// NewCmdBudget makes `ka2 budget`.
func NewCmdBudget(f *Factory, runF func(*BudgetOptions) error) *cobra.Command {
	opts := &BudgetOptions{BuildOptions: BuildOptions{f: f}}
	build := NewCmdBuild(f, nil)
	cmd := &cobra.Command{
		Use:   "budget --subject S --date D --question Q",
		Short: "Print the budget accounting B = W − R − I − E − Q − H for a build",
		Long: `Budget builds the contract as build would and prints its accounting:
capacity W, reserve R, the instruction, example, question and overhead, what
is left for evidence (B), each evidence record's cost and what remains. Over
budget it still prints the accounting, and exits 3. With --request, the
request's typed items (memory, tool output, promoted evidence, extra
instructions) are counted too; an item the policy refuses exits 5.`,
		Example: `  ka2 budget --subject lodging --date 2026-09-14 --question "What is the lodging limit?"
  ka2 budget --counter cl100k_base --format json --subject lodging --date 2026-09-14 --question "…"`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, nil, runF, runBudget),
	}
	// The same flags as build, bound to this command's options.
	fs := cmd.Flags()
	opts.queryFlags.register(fs, "en", build.Flags().Lookup("lang").Usage)
	fs.StringVar(&opts.Question, "question", "", build.Flags().Lookup("question").Usage)
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.BoolVar(&opts.Short, "short", false, build.Flags().Lookup("short").Usage)
	fs.BoolVar(&opts.RequireEvidence, "require-evidence", false, build.Flags().Lookup("require-evidence").Usage)
	opts.typedFlags.register(fs)
	opts.providerFlag.register(fs)
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

func runBudget(o *BudgetOptions) error {
	run, err := o.build()
	if run == nil || run.res.JSON == nil {
		return err
	}
	if o.Format == "json" {
		if werr := writeJSON(o.f.Out, run.res.Budget, true); werr != nil {
			return werr
		}
	} else if werr := run.res.Budget.WriteText(o.f.Out); werr != nil {
		return werr
	}
	return err
}
