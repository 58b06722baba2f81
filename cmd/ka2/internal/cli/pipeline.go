package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/errkind"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/pipeline"
)

// NewCmdPipeline makes `ka2 pipeline` and its subcommands.
func NewCmdPipeline(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pipeline",
		Short: "Check and run pipelines of stages with declared context",
		Long: `A pipeline file declares stages (ka2's own build, or programs), what context
each takes and gives, and a flow such as build >> answer >> check. check finds
every hand-off whose schemas do not fit before anything runs; run runs the
flow, handing each stage exactly the context its declaration asks for.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdPipelineCheck(f, nil), NewCmdPipelineRun(f, nil))
	return cmd
}

// readPipelineFile reads FILE, or standard input for "-".
func readPipelineFile(f *Factory, file string) ([]byte, error) {
	if file == "-" {
		data, err := inputfile.ReadAll(f.In, "<stdin>", inputfile.MaxSize)
		if err != nil {
			return nil, fmt.Errorf("read pipeline from stdin: %w", err)
		}
		return data, nil
	}
	data, err := inputfile.ReadFile(file, inputfile.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("read pipeline: %w", err)
	}
	return data, nil
}

// displayName is how diagnostics name the file: as given, with slashes.
func displayName(file string) string {
	if file == "-" {
		return "<stdin>"
	}
	return filepath.ToSlash(file)
}

// PipelineCheckOptions are the inputs of `ka2 pipeline check`.
type PipelineCheckOptions struct {
	f        *Factory
	File     string
	Mode     string
	Format   string
	Contract string
}

// NewCmdPipelineCheck makes `ka2 pipeline check`. runF replaces the run
// step in tests.
func NewCmdPipelineCheck(f *Factory, runF func(*PipelineCheckOptions) error) *cobra.Command {
	opts := &PipelineCheckOptions{f: f}
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Check a pipeline file before anything runs",
		Long: `Check reads a pipeline file (FILE, or - for standard input) and prints every
problem with file:line:col and a stable code: YAML that is not a pipeline
(C-001), unknown protocols or types (C-002), unknown stages (C-003), stages
whose output schema is not a subtype of the next stage's input schema (C-004,
one per hand-off, naming every missing or mistyped field), unknown inherit
parts (C-005), bad sources and sinks (C-006), shared stores read before any
stage writes them (C-007), stages reading upstream after a discard or shared
sink (C-008), bad runners (C-009), values out of range (C-010), names used
twice or reserved (C-011) and, as a warning, declared stages the flow never
runs (C-012).

With --mode strict (the default) any error exits 1; --mode warn prints the
same and exits 0.`,
		Example: `  ka2 pipeline check answer.pipeline.yaml
  ka2 pipeline check --mode warn --format json answer.pipeline.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runPipelineCheck(opts)
		},
	}
	fs := cmd.Flags()
	enumVar(fs, &opts.Mode, "mode", "strict", []string{"strict", "warn"}, "strict: exit 1 on any error; warn: print and exit 0")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	fs.StringVar(&opts.Contract, "contract", "", "contract definition whose output schema is the built-in protocol (default: the embedded one)")
	return cmd
}

func (o *PipelineCheckOptions) validate() error {
	return nil // --mode and --format are checked while parsing (enumVar)
}

// parsePipeline reads and checks a pipeline file with the chosen contract
// definition.
func parsePipeline(f *Factory, file, contractFile string) (*pipeline.Pipeline, *contract.Definition, error) {
	def, err := contract.LoadDefinition(contractFile)
	if err != nil {
		return nil, nil, err
	}
	data, err := readPipelineFile(f, file)
	if err != nil {
		return nil, nil, err
	}
	p, err := pipeline.Parse(displayName(file), data, def)
	if err != nil {
		return nil, nil, fmt.Errorf("--contract: %w", err)
	}
	return p, def, nil
}

// checkJSON is the JSON output of `ka2 pipeline check`.
type checkJSON struct {
	File        string                `json:"file"`
	OK          bool                  `json:"ok"`
	Errors      int                   `json:"errors"`
	Warnings    int                   `json:"warnings"`
	Diagnostics []pipeline.Diagnostic `json:"diagnostics"`
}

func runPipelineCheck(o *PipelineCheckOptions) error {
	p, _, err := parsePipeline(o.f, o.File, o.Contract)
	if err != nil {
		return err
	}
	ds := p.Diagnostics
	if o.Format == "json" {
		out := checkJSON{File: displayName(o.File), OK: ds.Errors() == 0, Errors: ds.Errors(),
			Warnings: ds.Warnings(), Diagnostics: ds}
		if out.Diagnostics == nil {
			out.Diagnostics = pipeline.Diagnostics{}
		}
		if err := writeJSON(o.f.Out, out, true); err != nil {
			return err
		}
	} else {
		for _, d := range ds {
			fmt.Fprintln(o.f.Out, d)
		}
		if ds.Errors() == 0 {
			fmt.Fprintf(o.f.Out, "%s: ok: %d stage(s), flow %s\n", displayName(o.File), len(p.Flow), p)
		}
	}
	if ds.Errors() == 0 {
		return nil
	}
	if o.Mode == "warn" {
		fmt.Fprintf(o.f.ErrOut, "ka2: %s: %d error(s), %d warning(s) (--mode warn: not failing)\n",
			displayName(o.File), ds.Errors(), ds.Warnings())
		return nil
	}
	return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("%s: %d error(s), %d warning(s)",
		displayName(o.File), ds.Errors(), ds.Warnings())}
}

// PipelineRunOptions are the inputs of `ka2 pipeline run`.
type PipelineRunOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	File      string
	Input     string
	Snapshots string
	Timeout   time.Duration
	cmdContext
}

// NewCmdPipelineRun makes `ka2 pipeline run`. runF replaces the run step in
// tests.
func NewCmdPipelineRun(f *Factory, runF func(*PipelineRunOptions) error) *cobra.Command {
	opts := &PipelineRunOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run FILE --input INPUT",
		Short: "Run a pipeline on one question",
		Long: `Run checks the pipeline file (any error stops it, exit 1), then runs the flow
on the run input and prints the last stage's output text and a newline.

The run input (--input FILE, or - for standard input) is a JSON object:
  {"question": "What is the Beijing lodging limit?", "subjects": ["lodging"],
   "dates": ["2026-09-14"], "lang": "en", "short": false, "require_evidence": false}
question, subjects (or one "subject") and dates are required; lang defaults
to en. It is the ka2-request-v1 protocol, and what a ka2.build stage builds
its contract from.

A ka2.build stage builds the contract with the corpus and budget flags, as
ka2 build does; its output text and its "contract" artifact are the contract,
its output_schema ka2-context-v1. An exec stage runs its program in the
pipeline file's folder with ka2's environment, its context as JSON on stdin;
it writes {"output_text": "…"} or {"output": VALUE}, optionally with messages,
tool_results and artifacts, on stdout.

--snapshots DIR writes each stage's snapshot (what it was given, what it
produced, its stderr and exit status) as DIR/NN-STAGE.json, also when a stage
fails. Exit codes: 1 the pipeline file has errors, 2 bad input, 3 and 4 as
ka2 build (from a ka2.build stage), 6 a stage failed, timed out, or broke its
schema.`,
		Example: `  ka2 pipeline run answer.pipeline.yaml --input question.json
  echo '{"question":"Lodging limit?","subjects":["lodging"],"dates":["2026-09-14"]}' |
    ka2 pipeline run answer.pipeline.yaml --input - --snapshots run/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Ctx = cmd.Context()
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runPipelineRun(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Input, "input", "", "the run input: a JSON file with question, subjects and dates (- for stdin)")
	fs.StringVar(&opts.Snapshots, "snapshots", "", "write every stage's snapshot into this folder")
	fs.DurationVar(&opts.Timeout, "timeout", pipeline.DefaultTimeout, "time limit of an exec stage without its own timeout")
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	return cmd
}

func (o *PipelineRunOptions) validate() error {
	switch {
	case o.Input == "":
		return usageError{errors.New(`--input is required: a JSON file such as {"question": "…", "subjects": ["lodging"], "dates": ["2026-09-14"]}`)}
	case o.Input == "-" && o.File == "-":
		return usageError{errors.New("the pipeline file and --input cannot both be standard input")}
	case o.Timeout <= 0:
		return usageError{fmt.Errorf("--timeout %s: give a positive duration such as 30s", o.Timeout)}
	}
	return nil
}

func runPipelineRun(o *PipelineRunOptions) error {
	p, _, err := parsePipeline(o.f, o.File, o.Contract)
	if err != nil {
		return err
	}
	for _, d := range p.Diagnostics {
		fmt.Fprintln(o.f.ErrOut, d)
	}
	if err := p.Diagnostics.Err(); err != nil {
		return exitError{kind: errkind.BadInput, err: err}
	}
	var data []byte
	if o.Input == "-" {
		data, err = inputfile.ReadAll(o.f.In, "<stdin>", inputfile.MaxSize)
	} else {
		data, err = inputfile.ReadFile(o.Input, inputfile.MaxSize)
	}
	if err != nil {
		return fmt.Errorf("read --input: %w", err)
	}
	in, err := pipeline.ParseInput(data)
	if err != nil {
		return fmt.Errorf("--input %s: %w", displayName(o.Input), err)
	}
	opts := pipeline.RunOptions{Env: o.f.environ(), Timeout: o.Timeout}
	if o.File != "-" {
		opts.Dir = filepath.Dir(o.File)
	}
	if p.UsesBuild() {
		if opts.Builder, err = o.builder(o.ctx(), &o.corpusFlags); err != nil {
			return err
		}
	}
	run, runErr := p.Run(o.ctx(), in, opts)
	if run != nil && o.Snapshots != "" {
		// An interrupted run's snapshots say where it stopped: write
		// them even then (each atomically; they are small).
		if err := writeSnapshots(context.WithoutCancel(o.ctx()), o.Snapshots, run); err != nil {
			return err
		}
	}
	if runErr != nil {
		var se *pipeline.StageError
		switch {
		case errors.Is(runErr, budget.ErrOverBudget), errors.Is(runErr, contract.ErrNoEvidence):
			return runErr // exit 3 or 4, as ka2 build
		case errors.As(runErr, &se):
			return exitError{kind: errkind.StageFailed, err: runErr}
		}
		return runErr
	}
	_, err = fmt.Fprintln(o.f.Out, run.Output())
	return err
}

// writeSnapshots writes DIR/NN-STAGE.json for every snapshot, atomically.
func writeSnapshots(ctx context.Context, dir string, run *pipeline.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--snapshots: %w", err)
	}
	width := max(2, len(strconv.Itoa(len(run.Snapshots)-1)))
	for i, s := range run.Snapshots {
		var buf bytes.Buffer
		if err := writeJSON(&buf, s, true); err != nil {
			return err
		}
		name := filepath.Join(dir, fmt.Sprintf("%0*d-%s.json", width, i, s.Stage))
		if err := atomicfile.Write(ctx, name, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("--snapshots: %w", err)
		}
	}
	return nil
}
