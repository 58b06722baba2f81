package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// VerifyOptions are the inputs of `ka2 verify`.
type VerifyOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	Lang   string
	File   string
	Format string
}

// NewCmdVerify makes `ka2 verify`.
func NewCmdVerify(f *Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Check a contract against the corpus it quotes",
		Long: `Verify reads a contract (FILE, or - for standard input) and checks it
against the corpus: the JSON Schema, that every quote equals the lines its
address names, the ordering rule, no duplicate records, ka2's compact form,
and the budget. It lists every problem and exits 1 if there is any.`,
		Example: `  ka2 build --subject lodging --date 2026-09-14 --question "…" > contract.json
  ka2 verify contract.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runVerify(opts)
		},
	}
	fs := cmd.Flags()
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.StringVar(&opts.Lang, "lang", "", "language the contract was built in (default: found from its instruction)")
	fs.StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

// verifyJSON is the JSON output of `ka2 verify`.
type verifyJSON struct {
	OK       bool   `json:"ok"`
	Lang     string `json:"lang"`
	Problems any    `json:"problems"`
	Budget   any    `json:"budget,omitempty"`
}

func runVerify(o *VerifyOptions) error {
	if err := checkFormat(o.Format, "text", "json"); err != nil {
		return err
	}
	var data []byte
	var err error
	if o.File == "-" {
		data, err = io.ReadAll(o.f.In)
	} else {
		data, err = os.ReadFile(o.File)
	}
	if err != nil {
		return fmt.Errorf("read contract: %w", err)
	}
	b, err := o.builder(&o.corpusFlags)
	if err != nil {
		return err
	}
	v := b.Verify(data, o.Lang)
	if o.Format == "json" {
		out := verifyJSON{OK: v.OK(), Lang: v.Lang, Problems: v.Problems}
		if v.Problems == nil {
			out.Problems = []struct{}{}
		}
		if v.Budget != nil {
			out.Budget = v.Budget
		}
		if err := writeJSON(o.f.Out, out, true); err != nil {
			return err
		}
	} else {
		for _, p := range v.Problems {
			fmt.Fprintf(o.f.Out, "%s: %s\n", o.File, p)
		}
		if v.OK() {
			fmt.Fprintf(o.f.Out, "%s: ok (%d of %d %s used)\n", o.File, v.Budget.Total, v.Budget.Limit(), v.Budget.Counter)
		}
	}
	if !v.OK() {
		return exitError{code: ExitProblems, err: fmt.Errorf("%s: %d problem(s)", o.File, len(v.Problems))}
	}
	return nil
}
