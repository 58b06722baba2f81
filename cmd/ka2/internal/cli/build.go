package cli

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/atomicfile"
)

// BuildOptions are the inputs of `ka2 build`.
type BuildOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	queryFlags
	Question        string
	Short           bool
	RequireEvidence bool
	Trace           string
}

// NewCmdBuild makes `ka2 build`. runF replaces the run step in tests.
func NewCmdBuild(f *Factory, runF func(*BuildOptions) error) *cobra.Command {
	opts := &BuildOptions{f: f}
	cmd := &cobra.Command{
		Use:   "build --subject S --date D --question Q",
		Short: "Print the context contract for one question",
		Long: `Build selects the sources that apply to the subject and date(s), quotes
their lines with addresses, and prints the ka2-context-v1 contract as compact
JSON followed by a newline. The whole input is counted against the budget; a
contract that does not fit is an error (exit 3) that names every part's cost,
never a shortened contract.`,
		Example: `  ka2 build --subject lodging --date 2026-09-14 --question "What is the Beijing lodging limit?"
  ka2 build --subject lodging --date 2025-09-14 --date 2026-09-14 --short --question "How did the limit change?"
  ka2 build --corpus policies --lang zh --subject lodging --date 2026-09-14 --question "住宿标准是多少？" --trace run.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runBuild(opts)
		},
	}
	fs := cmd.Flags()
	opts.queryFlags.register(fs, "en", "language of the instruction and the evidence: en or zh")
	fs.StringVar(&opts.Question, "question", "", "the question, as the user asked it")
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.BoolVar(&opts.Short, "short", false, "quote only each source's author-declared cite ranges")
	fs.BoolVar(&opts.RequireEvidence, "require-evidence", false, "exit 4 instead of printing a contract with no evidence")
	fs.StringVar(&opts.Trace, "trace", "", "write a JSON record of the run to this file")
	return cmd
}

// buildRun is a build and what it was built from.
type buildRun struct {
	builder *contract.Builder
	req     contract.Request
	res     *contract.Result
}

// build runs the build shared by `build` and `budget`. Over budget it
// returns the run along with the *budget.OverError.
func (o *BuildOptions) build() (*buildRun, error) {
	q, err := o.query()
	if err != nil {
		return nil, err
	}
	if o.Question == "" {
		return nil, usageError{errors.New("--question is required")}
	}
	b, err := o.builder(&o.corpusFlags)
	if err != nil {
		return nil, err
	}
	req := contract.Request{Query: q, Question: o.Question, Short: o.Short, RequireEvidence: o.RequireEvidence}
	res, err := b.Build(req)
	if res == nil {
		return nil, err
	}
	return &buildRun{builder: b, req: req, res: res}, err
}

func runBuild(o *BuildOptions) error {
	run, err := o.build()
	if run != nil && o.Trace != "" {
		if terr := o.writeTrace(run); terr != nil {
			return terr
		}
	}
	if err != nil {
		return err
	}
	out := append(bytes.Clone(run.res.JSON), '\n')
	_, err = o.f.Out.Write(out)
	return err
}

// writeTrace records the run, including an over-budget one, atomically.
func (o *BuildOptions) writeTrace(run *buildRun) error {
	decisions, err := run.builder.Index.Explain(run.req.Query)
	if err != nil {
		return err
	}
	t := contract.NewTrace(ka2.Version, o.location(), run.builder, run.req, run.res, decisions)
	var buf bytes.Buffer
	if err := writeJSON(&buf, t, true); err != nil {
		return err
	}
	if err := atomicfile.Write(o.Trace, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	return nil
}
