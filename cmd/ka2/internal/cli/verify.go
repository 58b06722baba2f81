package cli

import (
	"fmt"
	"github.com/ka2/ka2/internal/plural"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
)

// VerifyOptions are the inputs of `ka2 verify`.
type VerifyOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	providerFlag
	Lang   string
	File   string
	Format string
	Policy string
	cmdContext
}

// NewCmdVerify makes `ka2 verify`.
func NewCmdVerify(f *Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Check a contract against the corpus it quotes",
		Long: `Verify reads a contract (FILE, or - for standard input) and checks that it
is one ka2 build can print for the scope it carries, with the corpus,
contract definition, provenance policy (--policy), counter and budget given:
the JSON Schema, the template, the instruction and example of its language,
ka2's compact form, the policy, and the budget. For the evidence it derives
from the scope (subjects and dates), the corpus and the contract's form
(whole bodies, or cite ranges as with build --short) the exact records build
emits and compares them record by record, every field: a record that is not
a whole body or exactly one cite range (cut, range), a source quoted both
ways or in the other form (form), cite ranges out of order or missing
(cite_order, cite_missing), sources missing, extra or out of order
(selection_missing, selection_extra, selection_order), and a quote, version,
validity or unit that is not the source's. It lists every problem and exits
1 if there is any; docs/contract.md lists every problem code.

Records that do not quote the corpus are checked as far as they can be and
noted ("note: … not_in_corpus"), which is not a problem: promoted tool output
(an evidence record whose source_id is tool:NAME) must carry the first 12 hex
digits of its quote's content ID as version and lines 1 to its last line, and
is re-derived through the policy's tool_output → evidence transform, its
validators included; memory and tool_output records must be ones a request
could add under their sources through the policy.`,
		Example: `  ka2 build --subject lodging --date 2026-09-14 --question "…" > contract.json
  ka2 verify contract.json`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.File = args[0] }, nil, runF, runVerify),
	}
	fs := cmd.Flags()
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.StringVar(&opts.Lang, "lang", "", "language the contract was built in (default: found from its instruction)")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	fs.StringVar(&opts.Policy, "policy", "", "provenance policy YAML file (default: the embedded policy)")
	opts.providerFlag.register(fs)
	return cmd
}

// verifyJSON is the JSON output of `ka2 verify`.
type verifyJSON struct {
	OK       bool                   `json:"ok"`
	Lang     string                 `json:"lang"`
	Problems []contract.ProblemJSON `json:"problems"`
	Notes    []contract.ProblemJSON `json:"notes,omitempty"`
	Budget   any                    `json:"budget,omitempty"`
}

func runVerify(o *VerifyOptions) error {
	data, err := readInput(o.f, o.File)
	if err != nil {
		return fmt.Errorf("read contract: %w", err)
	}
	// Text that encoding/json would silently change is an input error
	// (exit 2), not a problem found in the contract.
	if err := contract.CheckText(o.File, data); err != nil {
		return err
	}
	policy, err := (&typedFlags{Policy: o.Policy}).policy()
	if err != nil {
		return err
	}
	if err := o.frame(&o.budgetFlags); err != nil {
		return err
	}
	b, err := o.builder(o.ctx(), &o.corpusFlags)
	if err != nil {
		return err
	}
	b.Policy = policy
	if b.Framing, err = o.framing(&o.budgetFlags, b.Counter); err != nil {
		return err
	}
	v := b.Verify(data, o.Lang)
	if o.Format == "json" {
		out := verifyJSON{OK: v.OK(), Lang: v.Lang, Problems: contract.ProblemsJSON(v.Problems, flagName)}
		if len(v.Notes) > 0 {
			out.Notes = contract.ProblemsJSON(v.Notes, flagName)
		}
		if v.Budget != nil {
			out.Budget = v.Budget
		}
		if err := writeJSON(o.f.Out, out, true); err != nil {
			return err
		}
	} else {
		for _, p := range v.Problems {
			fmt.Fprintf(o.f.Out, "%s: %s\n", o.File, p.Text(flagName))
		}
		for _, n := range v.Notes {
			fmt.Fprintf(o.f.Out, "%s: note: %s\n", o.File, n.Text(flagName))
		}
		if v.OK() {
			fmt.Fprintf(o.f.Out, "%s: ok (%d of %d %s used)\n", o.File, v.Budget.Total, v.Budget.Limit(), v.Budget.Counter)
		}
	}
	if !v.OK() {
		return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("%s: %s", o.File, plural.Count(len(v.Problems), "problem", "problems"))}
	}
	return nil
}
