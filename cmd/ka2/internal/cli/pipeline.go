package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/jsontext"
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
flow, handing each stage exactly the context its declaration asks for;
replay runs one stage again from its snapshot, and rollback discards the
snapshots after a stage so that run --resume goes on from there.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdPipelineCheck(f, nil), NewCmdPipelineRun(f, nil), NewCmdPipelineReplay(f, nil), NewCmdPipelineRollback(f, nil))
	return cmd
}

// readInput reads a file, or standard input for "-", within the input cap.
func readInput(f *Factory, name string) ([]byte, error) {
	if name == "-" {
		return inputfile.ReadAll(f.In, "<stdin>", inputfile.MaxSize)
	}
	return inputfile.ReadFile(name, inputfile.MaxSize)
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
	cmdContext
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
runs (C-012). Each message starts with that number; --format json gives
each problem's snake_case code (C-004 is incompatible_context).

With --mode strict (the default) any error exits 1; --mode warn prints the
same and exits 0.`,
		Example: `  ka2 pipeline check answer.pipeline.yaml
  ka2 pipeline check --mode warn --format json answer.pipeline.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.File = args[0] }, opts.validate, runF, runPipelineCheck),
	}
	fs := cmd.Flags()
	enumVar(fs, &opts.Mode, "mode", "strict", []string{"strict", "warn"}, "strict: exit 1 on any error; warn: print and exit 0")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	definitionVar(fs, &opts.Contract, "contract definition whose output schema is the built-in protocol (default: the embedded one)")
	return cmd
}

func (o *PipelineCheckOptions) validate() error {
	return nil // --mode and --format are checked while parsing (enumVar)
}

// parsePipeline reads and checks a pipeline file with the chosen contract
// definition.
// runnablePipeline parses a pipeline file to run it: its warnings go to
// standard error, and an error in it is an input error.
func runnablePipeline(f *Factory, file, contractFile string) (*pipeline.Pipeline, error) {
	p, _, err := parsePipeline(f, file, contractFile)
	if err != nil {
		return nil, err
	}
	for _, d := range p.Diagnostics {
		fmt.Fprintln(f.ErrOut, d)
	}
	if err := p.Diagnostics.Err(); err != nil {
		return nil, exitError{kind: errkind.BadInput, err: err}
	}
	return p, nil
}

func parsePipeline(f *Factory, file, contractFile string) (*pipeline.Pipeline, *contract.Definition, error) {
	def, err := contract.LoadDefinition(contractFile)
	if err != nil {
		return nil, nil, err
	}
	data, err := readInput(f, file)
	if err != nil {
		if file == "-" {
			return nil, nil, fmt.Errorf("read pipeline from stdin: %w", err)
		}
		return nil, nil, fmt.Errorf("read pipeline: %w", err)
	}
	p, err := pipeline.Parse(displayName(file), data, def)
	if err != nil {
		return nil, nil, fmt.Errorf("--definition: %w", err)
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
			fmt.Fprintf(o.f.Out, "%s: ok: %s, flow %s\n", displayName(o.File), plural.Count(len(p.Flow), "stage", "stages"), p)
		}
	}
	if ds.Errors() == 0 {
		return nil
	}
	if o.Mode == "warn" {
		fmt.Fprintf(o.f.ErrOut, "ka2: %s: %s, %s (--mode warn: not failing)\n",
			displayName(o.File), plural.Count(ds.Errors(), "error", "errors"), plural.Count(ds.Warnings(), "warning", "warnings"))
		return nil
	}
	return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("%s: %s, %s",
		displayName(o.File), plural.Count(ds.Errors(), "error", "errors"), plural.Count(ds.Warnings(), "warning", "warnings"))}
}

// PipelineRunOptions are the inputs of `ka2 pipeline run`.
type PipelineRunOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	File      string
	Input     string
	InputText string
	Snapshots string
	Resume    bool
	From      string
	Timeout   time.Duration
	cmdContext
}

// NewCmdPipelineRun makes `ka2 pipeline run`. runF replaces the run step in
// tests.
func NewCmdPipelineRun(f *Factory, runF func(*PipelineRunOptions) error) *cobra.Command {
	opts := &PipelineRunOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run FILE (--input INPUT | --input-text TEXT)",
		Short: "Run a pipeline on one question",
		Long: `Run checks the pipeline file (any error stops it, exit 2), then runs the flow
on the run input and prints the last stage's output text and a newline.

The run input (--input FILE, or - for standard input) is what the pipeline's
top-level input_schema declares: when the flow starts with ka2.build (and
declares none) a request, the ka2-request-v1 protocol:
  {"question": "What is the Beijing lodging limit?", "subjects": ["lodging"],
   "dates": ["2026-09-14"], "lang": "en", "short": false, "require_evidence": false}
(question, subjects or one "subject", and dates are required; lang defaults
to en); for input_schema: PROTOCOL a JSON value checked against it; without
either, any JSON value. --input-text TEXT gives plain text instead, for a
pipeline whose input_schema is string or that declares none.

A ka2.build stage builds the contract with the corpus and budget flags, as
ka2 build does; its output text and its "contract" artifact are the contract,
its output_schema ka2-context-v1. An exec stage runs its program in the
pipeline file's folder with ka2's environment, its context as JSON on stdin;
it writes {"output_text": "…"} or {"output": VALUE}, optionally with messages,
tool_results and artifacts, on stdout.

--snapshots DIR writes each stage's snapshot (what it was given, what it
produced, its stderr and exit status, its definition and the digests of the
definition and the input) as DIR/NN-STAGE.json, also when a stage fails.
With --resume, a stage whose snapshot in DIR completed with the same digests
is not run again: its snapshot stands for it, and the rest run. The
snapshot must agree with itself first (its definition and context the ones
its digests name, its hooks exited 0, its artifacts and output as the stage
hands them on), and ka2.build, ka2.verify and ka2.grade stages run again in
process (without their hooks) and must agree with theirs; a snapshot that
does not is exit 2, naming its file, and DIR is left as it is. --from STAGE
first discards STAGE's snapshot and the later ones into DIR/discarded/N,
with a record, as ka2 pipeline rollback does.

Exit codes: 2 the pipeline file has errors, bad input, or a snapshot that
contradicts itself; 3 and 4 as ka2 build (from a ka2.build stage); 6 a stage
failed, timed out, or broke its schema, a hook vetoed it, a ka2.verify or
ka2.grade stage found problems, or its output is over its max_output_bytes
or max_output_tokens.`,
		Example: `  ka2 pipeline run answer.pipeline.yaml --input question.json
  echo '{"question":"Lodging limit?","subjects":["lodging"],"dates":["2026-09-14"]}' |
    ka2 pipeline run answer.pipeline.yaml --input - --snapshots run/
  ka2 pipeline run answer.pipeline.yaml --input question.json --snapshots run/ --resume
  ka2 pipeline run answer.pipeline.yaml --input question.json --snapshots run/ --resume --from answer
  ka2 pipeline run research.pipeline.yaml --input-text "quantum computing 2024"`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.File = args[0] }, opts.validate, runF, runPipelineRun),
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Input, "input", "", "the run input: a JSON file, as the pipeline's input_schema says (- for stdin)")
	fs.StringVar(&opts.InputText, "input-text", "", "the run input as plain text, for a pipeline whose input_schema is string or that declares none")
	fs.StringVar(&opts.Snapshots, "snapshots", "", "write every stage's snapshot into this folder")
	fs.BoolVar(&opts.Resume, "resume", false, "reuse the snapshots in --snapshots of stages that completed with the same definition and input")
	fs.StringVar(&opts.From, "from", "", "with --resume: first discard the snapshots of this stage and the later ones (as pipeline rollback does), so they run again")
	fs.DurationVar(&opts.Timeout, "timeout", pipeline.DefaultTimeout, "time limit of an exec stage without its own timeout")
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	return cmd
}

func (o *PipelineRunOptions) validate() error {
	switch {
	case o.Input == "" && o.InputText == "":
		return usageError{errors.New(`--input is required: a JSON file such as {"question": "…", "subjects": ["lodging"], "dates": ["2026-09-14"]}, or --input-text "…" for a plain-text input`)}
	case o.Input != "" && o.InputText != "":
		return usageError{errors.New("give --input or --input-text, not both")}
	case o.Resume && o.Snapshots == "":
		return usageError{errors.New("--resume needs --snapshots DIR: the folder of the run to resume")}
	case o.From != "" && !o.Resume:
		return usageError{errors.New("--from STAGE goes with --resume: it discards STAGE's snapshot and the later ones, and the run resumes from there")}
	case o.Input == "-" && o.File == "-":
		return usageError{errors.New("the pipeline file and --input cannot both be standard input")}
	case o.Timeout <= 0:
		return usageError{fmt.Errorf("--timeout %s: give a positive duration such as 30s", o.Timeout)}
	}
	return nil
}

func runPipelineRun(o *PipelineRunOptions) error {
	p, err := runnablePipeline(o.f, o.File, o.Contract)
	if err != nil {
		return err
	}
	var in pipeline.RunInput
	if o.InputText != "" {
		if in, err = p.TextRunInput(o.InputText); err != nil {
			return fmt.Errorf("--input-text: %w", err)
		}
	} else {
		data, err := readInput(o.f, o.Input)
		if err != nil {
			return fmt.Errorf("read --input: %w", err)
		}
		if in, err = p.ParseRunInput(data); err != nil {
			return fmt.Errorf("--input %s: %w", displayName(o.Input), err)
		}
	}
	opts := pipeline.RunOptions{Env: o.f.environ(), Timeout: o.Timeout}
	if o.File != "-" {
		opts.Dir = filepath.Dir(o.File)
	}
	if o.Snapshots != "" {
		// A rollback stopped halfway is finished before the folder is
		// read or written.
		if err := finishRollbacks(context.WithoutCancel(o.ctx()), o.Snapshots); err != nil {
			return exitError{kind: errkind.BadInput, err: fmt.Errorf("--snapshots: %w", err)}
		}
	}
	if o.From != "" {
		rec, where, err := rollbackFrom(context.WithoutCancel(o.ctx()), o.Snapshots, o.From)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.f.ErrOut, "ka2: --from %s: discarded %s (record %s)\n", o.From, strings.Join(rec.Discarded, ", "),
			filepath.ToSlash(filepath.Join(where, rollbackRecordName)))
	}
	var files map[string]string // the snapshot file of each resumed stage
	if o.Resume {
		if opts.Resume, files, err = readSnapshots(o.Snapshots); err != nil {
			return exitError{kind: errkind.BadInput, err: err}
		}
	}
	if p.NeedsBuilder() {
		if opts.Builder, err = o.builder(o.ctx(), &o.corpusFlags); err != nil {
			return err
		}
	}
	run, runErr := p.Run(o.ctx(), in, opts)
	if run != nil {
		for _, s := range run.Snapshots {
			switch {
			case slices.Contains(run.Resumed, s.Stage):
				fmt.Fprintf(o.f.ErrOut, "ka2: stage '%s': resumed from its snapshot in %s\n", s.Stage, displayName(o.Snapshots))
			case slices.Contains(run.Rechecked, s.Stage):
				fmt.Fprintf(o.f.ErrOut, "ka2: stage '%s': run again in process, and agrees with its snapshot in %s\n", s.Stage, displayName(o.Snapshots))
			}
		}
	}
	var bad *pipeline.SnapshotError
	if errors.As(runErr, &bad) {
		// The folder is left as it is: the snapshot is the evidence.
		return exitError{kind: errkind.BadInput, err: fmt.Errorf("%s: %w", displayName(files[bad.Stage]), runErr)}
	}
	if run != nil && o.Snapshots != "" {
		// An interrupted run's snapshots say where it stopped: write
		// them even then (each atomically; they are small).
		if err := writeSnapshots(context.WithoutCancel(o.ctx()), o.Snapshots, opts.Dir, run); err != nil {
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
// Each stage's snapshot records progDir, where its programs ran, relative
// to DIR, so that a replay finds them.
func writeSnapshots(ctx context.Context, dir, progDir string, run *pipeline.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--snapshots: %w", err)
	}
	rel := ""
	if absDir, err := filepath.Abs(dir); err == nil {
		if absProg, err := filepath.Abs(progDir); err == nil {
			if r, err := filepath.Rel(absDir, absProg); err == nil {
				rel = filepath.ToSlash(r)
			}
		}
	}
	width := max(2, len(strconv.Itoa(len(run.Snapshots)-1)))
	for i, s := range run.Snapshots {
		if s.Definition != nil {
			s.Dir = rel
		}
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

// snapshotName is the name of a snapshot file: NN-STAGE.json.
var snapshotName = regexp.MustCompile(`^[0-9]+-(.+)\.json$`)

// readSnapshots reads the snapshots in dir by stage, and the file each
// was read from. A folder that does not exist yet holds none. A stage with
// two snapshot files (from runs of different flows) is left out, so
// neither is reused by mistake.
func readSnapshots(dir string) (map[string]*pipeline.Snapshot, map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--snapshots: %w", err)
	}
	out := map[string]*pipeline.Snapshot{}
	files := map[string]string{}
	twice := map[string]bool{}
	for _, e := range entries {
		m := snapshotName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if err := regularSnapshot(name, e); err != nil {
			return nil, nil, err
		}
		snap, err := readSnapshot(name)
		if err != nil {
			return nil, nil, err
		}
		if snap.Stage != m[1] || snap.Stage == pipeline.InputStage {
			continue
		}
		if out[snap.Stage] != nil {
			twice[snap.Stage] = true
		}
		out[snap.Stage], files[snap.Stage] = snap, name
	}
	for name := range twice {
		delete(out, name)
	}
	return out, files, nil
}

// regularSnapshot refuses a snapshot entry that is not a regular file: a
// link could make any file stand for a stage's snapshot, and ka2 writes
// none.
func regularSnapshot(name string, e fs.DirEntry) error {
	if e.Type().IsRegular() {
		return nil
	}
	return fmt.Errorf("snapshot %s is not a regular file (a link, or a folder); ka2 writes snapshots as files, so remove it", displayName(name))
}

// readSnapshot reads one snapshot file. It must be exactly what ka2
// writes: valid text, no repeated keys, and nothing that does not come
// back the same when the snapshot is written again (an unknown key, a key
// in another case, which encoding/json would take for a known one).
func readSnapshot(name string) (*pipeline.Snapshot, error) {
	data, err := inputfile.ReadFile(name, inputfile.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	bad := func(err error) error { return fmt.Errorf("snapshot %s: %w", filepath.ToSlash(name), err) }
	if e := jsontext.Exact(data); e != nil {
		return nil, bad(e)
	}
	var snap pipeline.Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, bad(err)
	}
	again, err := jsontext.Marshal(&snap)
	if err != nil {
		return nil, bad(err)
	}
	if !sameJSON(data, again) {
		return nil, bad(errors.New("it holds keys or values a snapshot does not have (an unknown key, a key spelled in another case, a null where a list belongs); it was not written by ka2 pipeline run"))
	}
	return &snap, nil
}

// sameJSON reports whether a and b, two JSON documents, hold the same
// values, whatever their spacing and key order.
func sameJSON(a, b []byte) bool {
	decode := func(data []byte) (any, bool) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v) == nil
	}
	va, oka := decode(a)
	vb, okb := decode(b)
	return oka && okb && reflect.DeepEqual(va, vb)
}

// recordedCommands writes the command lines a recorded definition runs:
// its program (or its in-process runner) and its hooks.
func recordedCommands(d *pipeline.StageDefinition) string {
	var parts []string
	if d.Uses != "" {
		parts = append(parts, d.Uses)
	} else {
		parts = append(parts, strconv.Quote(strings.Join(d.Exec, " ")))
	}
	for _, h := range slices.Concat(d.Before, d.After) {
		parts = append(parts, "hook "+strconv.Quote(strings.Join(h, " ")))
	}
	return strings.Join(parts, ", ")
}

// PipelineReplayOptions are the inputs of `ka2 pipeline replay`.
type PipelineReplayOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	Dir      string
	Stage    string
	Pipeline string
	Recorded bool
	Timeout  time.Duration
	NoHooks  bool
	cmdContext
}

// NewCmdPipelineReplay makes `ka2 pipeline replay`. runF replaces the run
// step in tests.
func NewCmdPipelineReplay(f *Factory, runF func(*PipelineReplayOptions) error) *cobra.Command {
	opts := &PipelineReplayOptions{f: f}
	cmd := &cobra.Command{
		Use:   "replay DIR STAGE (--pipeline FILE | --recorded)",
		Short: "Run one stage again from its snapshot and compare its output",
		Long: `Replay reads STAGE's snapshot in DIR (the --snapshots folder of a run), runs
the stage again as a run would, with its hooks (the pipeline's before_stage
and after_stage, the stage's before and after) on the context it was handed,
and prints the output text and a newline. It compares the output text and
the artifacts (the stage's, the inherited ones and those its hooks added)
with the recorded ones. Schemas and output limits are not applied.

With --pipeline FILE (the file the run ran) the stage runs as FILE defines
it, in FILE's folder, and only when that definition is the one the
snapshot's definition digest names: a changed stage, hook, time limit or
corpus is refused (exit 2), so a command edited into the snapshot never
runs. --recorded runs instead the command lines the snapshot records, in
the folder it records; whoever can write the snapshot chooses them, and
stderr says so before they run.

With --no-hooks the stage runs alone on the context it read (after its
before hooks) and only the output text is compared; so does a --recorded
snapshot written before ka2 recorded where hooks are declared. Stderr says
so.

Exit codes: 0 the output equals the recorded one; 1 it differs, and stderr
shows a diff (recorded, then replayed); 2 no such snapshot, a bad one, or
one FILE no longer defines that way; 6 the stage failed, or a hook vetoed
it. A ka2.build or ka2.verify stage uses the corpus and budget flags, as
ka2 build does.`,
		Example: `  ka2 pipeline run answer.pipeline.yaml --input question.json --snapshots run/
  ka2 pipeline replay run/ answer --pipeline answer.pipeline.yaml`,
		Args: cobra.ExactArgs(2),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Dir, opts.Stage = args[0], args[1] }, opts.validate, runF, runPipelineReplay),
	}
	fs := cmd.Flags()
	fs.DurationVar(&opts.Timeout, "timeout", pipeline.DefaultTimeout, "time limit of an exec stage whose snapshot records none")
	fs.BoolVar(&opts.NoHooks, "no-hooks", false, "run the stage alone, without its hooks, and compare only its output text")
	fs.StringVar(&opts.Pipeline, "pipeline", "", "the pipeline file the run ran: replay the stage as it defines it")
	fs.BoolVar(&opts.Recorded, "recorded", false, "replay the command lines the snapshot records instead of a pipeline file's")
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	return cmd
}

func (o *PipelineReplayOptions) validate() error {
	switch {
	case o.Timeout <= 0:
		return usageError{fmt.Errorf("--timeout %s: give a positive duration such as 30s", o.Timeout)}
	case o.Pipeline == "" && !o.Recorded:
		return usageError{errors.New("--pipeline FILE is required: replay runs the stage as the pipeline file the run ran defines it; --recorded runs the command lines the snapshot records instead, which whoever can edit the snapshot chooses")}
	case o.Pipeline != "" && o.Recorded:
		return usageError{errors.New("give --pipeline or --recorded, not both")}
	}
	return nil
}

func runPipelineReplay(o *PipelineReplayOptions) error {
	file, err := o.findSnapshot()
	if err != nil {
		return err
	}
	snap, err := readSnapshot(filepath.Join(o.Dir, file))
	if err != nil {
		return exitError{kind: errkind.BadInput, err: err}
	}
	opts, err := o.replayOptions(snap)
	if err != nil {
		return err
	}
	res, err := pipeline.Replay(o.ctx(), snap, opts)
	switch res.Hooks {
	case pipeline.HooksSkipped:
		fmt.Fprintf(o.f.ErrOut, "ka2: stage '%s': replayed without its hooks (--no-hooks); only the output text is compared\n", o.Stage)
	case pipeline.HooksNotRecorded:
		fmt.Fprintf(o.f.ErrOut, "ka2: stage '%s': replayed without its hooks: its snapshot does not record where they are declared (it predates hook_kinds); only the output text is compared. Run the pipeline again with --snapshots to record them\n", o.Stage)
	}
	if err != nil {
		var se *pipeline.StageError
		if errors.As(err, &se) {
			return exitError{kind: errkind.StageFailed, err: err}
		}
		if errors.Is(err, pipeline.ErrBadInput) || errors.Is(err, pipeline.ErrBadSnapshot) || errors.Is(err, pipeline.ErrDefinitionChanged) {
			return exitError{kind: errkind.BadInput, err: fmt.Errorf("%s: %w", filepath.ToSlash(filepath.Join(o.Dir, file)), err)}
		}
		return err
	}
	if _, err := fmt.Fprintln(o.f.Out, res.Output); err != nil {
		return err
	}
	return o.compareReplay(res, file)
}

// findSnapshot finishes any rollback left in the folder, then names the
// one snapshot of the stage there, a regular file.
func (o *PipelineReplayOptions) findSnapshot() (string, error) {
	if err := finishRollbacks(context.WithoutCancel(o.ctx()), o.Dir); err != nil {
		return "", exitError{kind: errkind.BadInput, err: fmt.Errorf("replay: %w", err)}
	}
	entries, err := os.ReadDir(o.Dir)
	if err != nil {
		return "", exitError{kind: errkind.BadInput, err: fmt.Errorf("replay: %w", err)}
	}
	var file string
	var entry os.DirEntry
	for _, e := range entries {
		if m := snapshotName.FindStringSubmatch(e.Name()); m != nil && m[1] == o.Stage {
			if file != "" {
				return "", exitError{kind: errkind.BadInput, err: fmt.Errorf("replay: %s holds two snapshots of stage '%s' (%s and %s); remove the stale one",
					displayName(o.Dir), o.Stage, file, e.Name())}
			}
			file, entry = e.Name(), e
		}
	}
	if file == "" {
		return "", exitError{kind: errkind.BadInput, err: fmt.Errorf("replay: %s holds no snapshot of stage '%s' (no NN-%s.json)",
			displayName(o.Dir), o.Stage, o.Stage)}
	}
	if err := regularSnapshot(filepath.Join(o.Dir, file), entry); err != nil {
		return "", exitError{kind: errkind.BadInput, err: fmt.Errorf("replay: %w", err)}
	}
	return file, nil
}

// replayOptions says how the stage of snap runs again: as the --pipeline
// file defines it, in that file's folder, or as the snapshot records it
// (said on stderr), with a builder when the stage builds or its
// definition digest covers what a builder builds from.
func (o *PipelineReplayOptions) replayOptions(snap *pipeline.Snapshot) (pipeline.ReplayOptions, error) {
	opts := pipeline.ReplayOptions{NoHooks: o.NoHooks,
		RunOptions: pipeline.RunOptions{Env: o.f.environ(), Timeout: o.Timeout, Dir: filepath.Join(o.Dir, filepath.FromSlash(snap.Dir))}}
	needsBuilder := snap.Definition != nil && snap.Definition.Uses != ""
	if o.Pipeline != "" {
		p, err := runnablePipeline(o.f, o.Pipeline, o.Contract)
		if err != nil {
			return opts, err
		}
		opts.Pipeline, opts.Dir = p, "."
		if o.Pipeline != "-" {
			opts.Dir = filepath.Dir(o.Pipeline)
		}
		st := p.Stages[o.Stage]
		// The definition digest covers what the builder builds from, so
		// a stage whose definition has it needs one to be compared.
		needsBuilder = st != nil && (st.Uses != "" || st.MaxOutputTokens != 0)
	} else if snap.Definition != nil {
		fmt.Fprintf(o.f.ErrOut, "ka2: stage '%s': replaying the command lines its snapshot records (--recorded), not a pipeline file's: %s, in %s\n",
			o.Stage, recordedCommands(snap.Definition), displayName(opts.Dir))
	}
	if needsBuilder {
		var err error
		if opts.Builder, err = o.builder(o.ctx(), &o.corpusFlags); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// compareReplay is nil when the replay equals the recording; otherwise
// it shows on stderr how the output and the artifacts differ and says
// which did.
func (o *PipelineReplayOptions) compareReplay(res pipeline.Replayed, file string) error {
	if res.Equal() {
		return nil
	}
	what := "output differs from the recorded one"
	if res.Recorded != res.Output {
		fmt.Fprint(o.f.ErrOut, golden.Diff("recorded", []byte(res.Recorded), "replayed", []byte(res.Output)))
	}
	if !res.ArtifactsEqual() {
		var was, now bytes.Buffer
		if err := writeJSON(&was, res.RecordedArtifacts, true); err != nil {
			return err
		}
		if err := writeJSON(&now, res.Artifacts, true); err != nil {
			return err
		}
		fmt.Fprint(o.f.ErrOut, golden.Diff("recorded artifacts", was.Bytes(), "replayed artifacts", now.Bytes()))
		what = "artifacts differ from the recorded ones"
		if res.Recorded != res.Output {
			what = "output and artifacts differ from the recorded ones"
		}
	}
	return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("stage '%s': the replayed %s in %s",
		o.Stage, what, filepath.ToSlash(filepath.Join(o.Dir, file)))}
}
