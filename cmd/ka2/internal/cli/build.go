package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// BuildOptions are the inputs of `ka2 build`.
type BuildOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	queryFlags
	typedFlags
	providerFlag
	Question        string
	Short           bool
	RequireEvidence bool
	Trace           string
	Audit           string
	cmdContext
}

// NewCmdBuild makes `ka2 build`. runF replaces the run step in tests.
func NewCmdBuild(f *Factory, runF func(*BuildOptions) error) *cobra.Command {
	opts := &BuildOptions{f: f}
	cmd := &cobra.Command{
		Use:   "build (--subject S --date D --question Q | --request FILE)",
		Short: "Print the context contract for one question",
		Long: `Build selects the sources that apply to the subject and date(s), quotes
their lines with addresses, and prints the ka2-context-v1 contract as compact
JSON followed by a newline. The contract carries the question's scope (the
subjects and dates asked) and each quote's validity and unit. A subject no
source is about is an input error (exit 2) with a suggestion. The whole input
is counted against the budget; a contract that does not fit is an error (exit
3) that names every part's cost, and says when --short would fit, never a
shortened contract.

Every part is a typed item in a provenance store before it is text: the
instruction and example from system, the quotes as evidence from corpus:ID,
the question from user. --request FILE (or - for standard input) reads a JSON
request whose keys replace the matching flags and which may add typed items
(instruction, memory, tool_output) and promote them, e.g. a tool result to
evidence. The policy (--policy FILE, default embedded) decides what may enter
which type; an item it refuses stops the build with exit 5 and prints nothing
on standard output. --audit FILE writes the store's history as JSON Lines.`,
		Example: `  ka2 build --subject lodging --date 2026-09-14 --question "What is the Beijing lodging limit?"
  ka2 build --subject lodging --date 2025-09-14 --date 2026-09-14 --short --question "How did the limit change?"
  ka2 build --corpus policies --lang zh --subject lodging --date 2026-09-14 --question "住宿标准是多少？" --trace run.json
  echo '{"subject":"lodging","dates":["2026-09-14"],"question":"Is order A-104 within the limit?",
    "items":[{"type":"tool_output","source":"tool:order_lookup","text":"Order A-104: 720 CNY per room-night"}],
    "promote":[{"item":0,"to":"evidence"}]}' | ka2 build --request - --trace run.json`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, opts.validate, runF, runBuild),
	}
	fs := cmd.Flags()
	opts.queryFlags.register(fs, "en", "language of the instruction and the evidence: en or zh")
	fs.StringVar(&opts.Question, "question", "", "the question, as the user asked it")
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.BoolVar(&opts.Short, "short", false, "quote only each source's author-declared cite ranges")
	fs.BoolVar(&opts.RequireEvidence, "require-evidence", false, "exit 4 instead of printing a contract with no evidence")
	fs.StringVar(&opts.Trace, "trace", "", "write a JSON record of the run to this file")
	opts.typedFlags.register(fs)
	opts.providerFlag.register(fs)
	fs.StringVar(&opts.Audit, "audit", "", "write the provenance store's history (every add, transform and refusal) to this file as JSON Lines")
	return cmd
}

// buildRun is a build and what it was built from.
type buildRun struct {
	builder *contract.Builder
	req     contract.Request
	res     *contract.Result
}

// build runs the build shared by `build` and `budget`. Over budget it
// returns the run along with the *budget.OverError; when the store refuses
// an item, the run has no contract (res.JSON is nil) and the error is the
// refusal.
// validate refuses standard output for the trace and the audit: the
// contract goes there.
func (o *BuildOptions) validate() error {
	for _, f := range []struct{ flag, name string }{{"--trace", o.Trace}, {"--audit", o.Audit}} {
		if f.name == stdoutName {
			return usageError{fmt.Errorf("%s -: standard output carries the contract; name a file (or /dev/stderr)", f.flag)}
		}
	}
	return nil
}

func (o *BuildOptions) build() (*buildRun, error) {
	rf, err := o.readRequest(o.f)
	if err != nil {
		return nil, err
	}
	// Check the settings before loading anything, then build as `ka2
	// serve`'s POST /v1/contract does.
	flags := o.settings()
	set := flags.Apply(rf)
	o.applySettings(set)
	req, err := set.Request(rf)
	if err != nil {
		return nil, settingUsage(err)
	}
	policy, err := o.policy()
	if err != nil {
		return nil, err
	}
	if err := o.frame(&o.budgetFlags); err != nil {
		return nil, err
	}
	b, err := o.builder(o.ctx(), &o.corpusFlags)
	if err != nil {
		return nil, err
	}
	if rf != nil {
		// The request's budget keys replace the budget flags, as over
		// HTTP; the operator's command line has no bounds to keep.
		if b.Counter, b.Limits, err = contract.RequestBudget(o.Request, nil, rf, o.budgetFlags.config(&o.corpusFlags), b.Definition, contract.BudgetBounds{}); err != nil {
			return nil, err
		}
		if rf.Provider != "" {
			o.Provider = rf.Provider
		}
	}
	if b.Framing, err = o.framing(&o.budgetFlags, b.Counter); err != nil {
		return nil, err
	}
	// The clock stamps items and audit events only; no byte of the
	// contract or the trace depends on it.
	b.Policy, b.Now = policy, o.f.Now
	res, err := b.Build(o.ctx(), req)
	if err != nil && rf != nil {
		err = wordedError{err, o.requestField(rf)}
	}
	if res == nil {
		return nil, err
	}
	return &buildRun{builder: b, req: req, res: res}, err
}

func runBuild(o *BuildOptions) error {
	run, err := o.build()
	if run != nil && o.Trace != "" {
		if terr := o.writeTrace(run, err); terr != nil {
			return terr
		}
	}
	if run != nil && o.Audit != "" {
		var buf bytes.Buffer
		if aerr := run.res.Store.WriteHistory(&buf); aerr != nil {
			return aerr
		}
		if aerr := writeOutput(o.ctx(), o.f.Out, "--audit", o.Audit, buf.Bytes()); aerr != nil {
			return aerr
		}
	}
	if err != nil {
		return err
	}
	warnQuestionDates(o.f.ErrOut, run.req)
	_, err = run.res.WriteTo(o.f.Out)
	return err
}

// warnQuestionDates says on w when the question names a date that no
// scope date falls on: the contract is right for its scope, but the
// generator would be asked one date and given the evidence of another.
func warnQuestionDates(w io.Writer, req contract.Request) {
	out := contract.QuestionDatesOutsideScope(req.Question, req.Query.Dates)
	if len(out) == 0 {
		return
	}
	asked := make([]string, len(req.Query.Dates))
	for i, d := range req.Query.Dates {
		asked[i] = d.String()
	}
	for _, q := range out {
		named := q.Date
		if q.Text != q.Date {
			named += fmt.Sprintf(" (%q)", q.Text)
		}
		fmt.Fprintf(w, "ka2: warning: the question names %s, but the scope asks %s: the evidence is for the scope's dates; ask about the date the question names, or reword the question\n",
			named, strings.Join(asked, ", "))
	}
}

// writeTrace records the run, including an over-budget or refused one,
// atomically.
func (o *BuildOptions) writeTrace(run *buildRun, buildErr error) error {
	decisions, err := run.builder.Index.Explain(run.req.Query)
	if err != nil {
		return err
	}
	t := contract.NewTrace(o.f.version().Version, o.location(), run.builder, run.req, run.res, decisions)
	var pe *provenance.Error
	if errors.As(buildErr, &pe) {
		t.Refusal = pe
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, t, true); err != nil {
		return err
	}
	return writeOutput(o.ctx(), o.f.Out, "--trace", o.Trace, buf.Bytes())
}
