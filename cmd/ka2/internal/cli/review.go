package cli

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/golden"
)

// ReviewOptions are the inputs of `ka2 review`.
type ReviewOptions struct {
	f         *Factory
	Paths     []string
	AcceptAll bool
	RejectAll bool
	Color     string
	cmdContext
}

// NewCmdReview makes `ka2 review`. runF replaces the run step in tests.
func NewCmdReview(f *Factory, runF func(*ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{f: f}
	cmd := &cobra.Command{
		Use:   "review DIR|FILE...",
		Short: "Accept or reject pending goldens written by regress --pending",
		Long: `Review walks the pending goldens (NAME.golden.new, written by
ka2 regress --pending) of the cases in the given case files and folders, in
case order. For each it shows the one-line summary and the diff against the
current golden, then reads an answer from standard input: y accepts it (the
golden is replaced atomically and the pending file deleted), n rejects it
(the pending file is deleted), s skips it, q stops. At the end of the input
the remaining ones are left as they are.

--accept-all and --reject-all decide every pending golden without asking.`,
		Example: `  ka2 regress --pending cases; ka2 review cases
  ka2 review --accept-all cases
  ka2 review --reject-all cases/lodging.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Paths = args }, opts.validate, runF, runReview),
	}
	fs := cmd.Flags()
	fs.BoolVar(&opts.AcceptAll, "accept-all", false, "accept every pending golden without asking")
	fs.BoolVar(&opts.RejectAll, "reject-all", false, "reject every pending golden without asking")
	colorVar(fs, &opts.Color)
	return cmd
}

func (o *ReviewOptions) validate() error {
	if o.AcceptAll && o.RejectAll {
		return usageError{errors.New("--accept-all and --reject-all: choose one")}
	}
	return nil
}

func runReview(o *ReviewOptions) error {
	ctx := o.ctx()
	suite, err := golden.Load(ctx, o.Paths, golden.LoadOptions{OpenCorpus: o.f.openCorpus})
	if err != nil {
		return err
	}
	pending, err := suite.Pending()
	if err != nil {
		return err
	}
	out := o.f.Out
	if len(pending) == 0 {
		fmt.Fprintln(out, "ka2 review: no pending goldens (ka2 regress --pending writes them)")
		return nil
	}
	in := bufio.NewScanner(o.f.In)
	accepted, rejected := 0, 0
	for i, p := range pending {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(out, "[%d/%d] %s\n    %s\n", i+1, len(pending), p.Case, p.Summary())
		decision := "y"
		switch {
		case o.AcceptAll:
		case o.RejectAll:
			decision = "n"
		default:
			if d := p.Diff(); o.f.color(o.Color) {
				fmt.Fprint(out, golden.ColorDiff(d))
			} else {
				fmt.Fprint(out, d)
			}
			decision = ask(o, in)
		}
		switch decision {
		case "y":
			if err := p.Accept(ctx); err != nil {
				return err
			}
			accepted++
			fmt.Fprintf(out, "    accepted: wrote %s\n", p.Case.Golden)
		case "n":
			if err := p.Reject(); err != nil {
				return err
			}
			rejected++
			fmt.Fprintf(out, "    rejected: deleted %s\n", p.Path)
		case "s":
			fmt.Fprintf(out, "    skipped: %s stays\n", p.Path)
		default: // q or end of input
			fmt.Fprintln(out, "    stopped")
		}
		if decision == "q" || decision == "" {
			break
		}
	}
	left := len(pending) - accepted - rejected
	fmt.Fprintf(out, "ka2 review: %d accepted, %d rejected, %d left pending\n", accepted, rejected, left)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("review stopped, %s left untouched: %w", plural.Count(left, "pending golden", "pending goldens"), err)
	}
	return nil
}

// ask reads answers until one is y, n, s or q; "" means the input ended.
func ask(o *ReviewOptions, in *bufio.Scanner) string {
	for {
		fmt.Fprint(o.f.Out, "accept? [y]es, [n]o, [s]kip, [q]uit: ")
		if !in.Scan() {
			fmt.Fprintln(o.f.Out)
			return ""
		}
		switch a := strings.ToLower(strings.TrimSpace(in.Text())); a {
		case "y", "yes":
			return "y"
		case "n", "no":
			return "n"
		case "s", "skip":
			return "s"
		case "q", "quit":
			return "q"
		}
	}
}
