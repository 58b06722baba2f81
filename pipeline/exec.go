package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/internal/procrun"
	"github.com/ka2/ka2/internal/strict"
)

// The output limits of an exec program and of a hook: procrun's defaults
// (see there for why stdout over its limit fails and stderr is cut).
const (
	maxStdout = procrun.DefaultMaxStdout
	maxStderr = procrun.DefaultMaxStderr
)

// exec runs an exec stage: its context as JSON on stdin, its output as a
// StageOutput document on stdout, under its time limit. The program runs
// in its own process group, and whatever of the group is still running
// when the program exits, times out, is cancelled or writes too much is
// ended, so that nothing a stage started outlives it. The snapshot keeps
// stderr and the exit status.
func (r *runner) exec(ctx context.Context, st *Stage, sc *StageContext, snap *Snapshot) (StageOutput, error) {
	stdin, err := jsontext.Marshal(sc)
	if err != nil {
		return StageOutput{}, err
	}
	stdout, err := r.program(ctx, st, st.Exec, stdin, &snap.Stderr, &snap.ExitCode)
	if err != nil {
		return StageOutput{}, err
	}
	out, err := parseStageOutput(stdout)
	if err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "output", ExitCode: snap.ExitCode, Err: err}
	}
	return out, nil
}

// program runs argv, a stage's program or one of its hooks, with stdin
// under the stage's time limit, and returns what it wrote on stdout. It
// sets *stderr and *exitCode; a failure is a *StageError naming st.
func (r *runner) program(ctx context.Context, st *Stage, argv []string, stdin []byte, stderr *string, exitCode *int) ([]byte, error) {
	var err error
	limit := r.limit(st)
	prog := argv[0]
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) {
		// Relative to the pipeline file's folder, not wherever ka2 runs.
		if prog, err = filepath.Abs(filepath.Join(r.opts.Dir, filepath.FromSlash(prog))); err != nil {
			return nil, &StageError{Stage: st.Name, Step: "run", Err: fmt.Errorf("%w: %v", ErrStageFailed, err)}
		}
	}
	res, runErr := procrun.Run(ctx, procrun.Spec{
		Argv: append([]string{prog}, argv[1:]...), Dir: r.opts.Dir, Env: r.opts.Env, Stdin: stdin,
		Timeout: limit, After: r.opts.After, MaxStdout: r.stdoutLimit(), MaxStderr: maxStderr,
	})
	*stderr = res.Stderr
	*exitCode = res.ExitCode
	fail := func(step string, err error) ([]byte, error) {
		return nil, &StageError{Stage: st.Name, Step: step, ExitCode: *exitCode, Err: err}
	}
	const ended = "its process group was ended"
	var ee *procrun.ExitError
	switch {
	case runErr == nil:
		return res.Stdout, nil
	case errors.Is(runErr, procrun.ErrStdoutLimit):
		return fail("output", fmt.Errorf("%w: %s wrote more than %d MiB on stdout, the limit for a stage's output; it was stopped and %s",
			ErrOutputLimit, argv[0], r.stdoutLimit()>>20, ended))
	case errors.Is(runErr, procrun.ErrTimeout):
		return fail("run", &diag.Diagnostic{Err: ErrTimeout, Hint: diag.Set("raise timeout: on the stage, or {timeout}"),
			Message: fmt.Sprintf("%v: %s did not finish within %s; %s", ErrTimeout, strings.Join(argv, " "), limit, ended)})
	case ctx.Err() != nil:
		return fail("run", fmt.Errorf("%w: %s was stopped (%w); %s", ErrStageFailed, argv[0], ctx.Err(), ended))
	case errors.As(runErr, &ee):
		err := fmt.Errorf("%w: %s %v", ErrStageFailed, argv[0], ee)
		if line := lastLine(*stderr); line != "" {
			err = fmt.Errorf("%w: %s", err, line)
		}
		return fail("run", err)
	}
	return fail("run", fmt.Errorf("%w: cannot run %s: %v; a program path with a slash is relative to the pipeline file's folder, a bare name is looked up on PATH",
		ErrStageFailed, argv[0], runErr))
}

// stdoutLimit is how many bytes an exec program or hook may write on
// stdout.
func (r *runner) stdoutLimit() int {
	if r.opts.maxStdout != 0 {
		return r.opts.maxStdout
	}
	return maxStdout
}

// parseStageOutput reads and checks a StageOutput document.
func parseStageOutput(data []byte) (StageOutput, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return StageOutput{}, fmt.Errorf(`%w: nothing on stdout; write a JSON object such as {"output_text": "…"}`, ErrBadOutput)
	}
	if err := checkText(data); err != nil {
		return StageOutput{}, fmt.Errorf("%w: stdout: %v", ErrBadOutput, err)
	}
	if err := checkKeys(data, stageOutputMap); err != nil {
		return StageOutput{}, fmt.Errorf("%w: %v; the keys are output_text or output, messages, tool_results and artifacts", ErrBadOutput, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out StageOutput
	if err := dec.Decode(&out); err != nil {
		return StageOutput{}, fmt.Errorf("%w: %v; the keys are output_text or output, messages, tool_results and artifacts", ErrBadOutput, err)
	}
	if dec.More() {
		return StageOutput{}, fmt.Errorf("%w: more than one JSON value on stdout", ErrBadOutput)
	}
	if out.OutputText != nil && out.Output != nil {
		return StageOutput{}, fmt.Errorf("%w: both output_text and output are set; write one", ErrBadOutput)
	}
	if bytes.Equal(out.Output, []byte("null")) {
		return StageOutput{}, fmt.Errorf("%w: output is null; write a JSON value or use output_text", ErrBadOutput)
	}
	for i, m := range out.Messages {
		switch m.Role {
		case "system", "user", "assistant", "tool":
		default:
			return StageOutput{}, fmt.Errorf("%w: messages[%d] has role %q; use system, user, assistant or tool", ErrBadOutput, i, m.Role)
		}
	}
	for i, t := range out.ToolResults {
		if t.Tool == "" || t.Content == nil {
			return StageOutput{}, fmt.Errorf("%w: tool_results[%d] needs a tool name and a content", ErrBadOutput, i)
		}
	}
	for name := range out.Artifacts {
		if name == "" {
			return StageOutput{}, fmt.Errorf("%w: an artifact has an empty name", ErrBadOutput)
		}
	}
	return out, nil
}

// checkText refuses JSON whose text encoding/json would silently turn
// into U+FFFD, as "LINE:COL: FIELD: invalid text: …", and an object that
// repeats a key, which encoding/json would read as its last value while
// the next program may read the first (see jsontext.Exact).
func checkText(data []byte) error {
	e := jsontext.Exact(data)
	if e == nil {
		return nil
	}
	where := fmt.Sprintf("%d:%d", e.Line, e.Col)
	if f := e.Describe(); f != "" {
		where += ": " + f
	}
	if e.Repeated {
		return fmt.Errorf("%s: %s; %s", where, e.Msg, e.Hint)
	}
	return fmt.Errorf("%s: invalid text: %s; %s", where, e.Msg, e.Hint)
}

// The keys of what a stage or a hook prints, at each level.
var (
	stageOutputMap = &strict.Map{What: "the stage output", Keys: []strict.Key{{Name: "output_text"}, {Name: "output"},
		{Name: "messages", Kind: strict.Sequence}, {Name: "tool_results", Kind: strict.Sequence}, {Name: "artifacts", Kind: strict.Mapping}}}
	hookOutputMap = &strict.Map{What: "the hook output", Keys: []strict.Key{{Name: "artifacts", Kind: strict.Mapping}}}
	messageMap    = &strict.Map{What: "a message", Keys: []strict.Key{{Name: "role"}, {Name: "content"}}}
	toolResultMap = &strict.Map{What: "a tool result", Keys: []strict.Key{{Name: "tool"}, {Name: "content"}}}
	artifactsMap  = &strict.Map{What: "artifacts", AnyKey: true}
)

// checkKeys holds the keys of data, a stage's or a hook's output, to m
// through the strict decoder: exactly as written, each once, known where
// m knows them. encoding/json, which decodes the output next, matches a
// key to a field whatever its case, so {"Output_Text": …} or a second key
// differing only in case would otherwise pass for output_text. Text that
// is not JSON is left for the decoder to report.
func checkKeys(data []byte, m *strict.Map) error {
	doc, err := strict.ParseJSON(data)
	if err != nil {
		return nil
	}
	d := &strict.Decoder{Words: outputWords}
	f := d.Mapping(strict.Root(doc), m)
	for _, e := range f.All() {
		switch e.Name {
		case "messages", "tool_results":
			item := messageMap
			if e.Name == "tool_results" {
				item = toolResultMap
			}
			if v := strict.Deref(e.Value); v.Kind == yaml.SequenceNode {
				for i, c := range v.Content {
					if c.Kind == yaml.MappingNode {
						d.Mapping(c, item.Named(fmt.Sprintf("%s[%d]", e.Name, i)))
					}
				}
			}
		case "artifacts":
			if v := strict.Deref(e.Value); v.Kind == yaml.MappingNode {
				d.Mapping(v, artifactsMap)
			}
		}
	}
	if len(d.Diags) == 0 {
		return nil
	}
	first := d.Diags[0]
	return fmt.Errorf("%d:%d: %s", first.Line, first.Col, first.Message)
}

// outputWords words the structural problems of a stage's or a hook's
// output.
func outputWords(is strict.Issue, d *diag.Diagnostic) {
	switch is.Problem {
	case strict.UnknownKey:
		d.Message = fmt.Sprintf("unknown field %q in %s", is.Key, is.Map.What)
		meant := is.Suggestion
		for _, k := range is.Known() {
			if strings.EqualFold(k, is.Key) {
				meant = k
			}
		}
		if meant != "" {
			d.Message += fmt.Sprintf(" (did you mean %q? keys are matched exactly)", meant)
		}
	case strict.DuplicateKey:
		d.Message = fmt.Sprintf("key %q in %s repeats the one at %d:%d", is.Key, is.Map.What, is.First.Line, is.First.Column)
	case strict.WrongKind:
		d.Message = fmt.Sprintf("%s in %s must be %s", is.Key, is.Map.What, map[strict.Kind]string{strict.Sequence: "a list", strict.Mapping: "an object"}[is.Want])
	case strict.KeyNotScalar, strict.NotMapping:
		d.Message = fmt.Sprintf("%s must be a JSON object", is.Map.What)
	default:
		d.Message = fmt.Sprintf("%s: key %q", is.Map.What, is.Key)
	}
}
