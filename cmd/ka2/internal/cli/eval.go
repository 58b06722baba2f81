package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/eval"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/inputfile"
)

// EvalOptions are the inputs of `ka2 eval`.
type EvalOptions struct {
	f           *Factory
	Paths       []string
	Endpoint    string
	Exec        string
	ExecArgs    []string
	Timeout     time.Duration
	Model       string
	APIKeyEnv   string
	MaxTokens   int
	Conditions  string
	Repeat      int
	Jobs        int
	Distractors int
	Hostile     string
	MinPass     string
	Format      string
	Report      string
	Quiet       bool
	cmdContext

	// options are the settings validate read from the flags.
	options eval.Options
}

// NewCmdEval makes `ka2 eval`.
func NewCmdEval(f *Factory, runF func(*EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{f: f}
	cmd := &cobra.Command{
		Use:   "eval CASES... (--endpoint URL --model NAME | --exec PROGRAM [-- ARGS...])",
		Short: "Measure a generator under controlled conditions",
		Long: `Eval builds the contract of every case in the case files (ka2 regress's
format; expect.answer lists numbers or phrases the answer must contain),
varies one condition at a time, sends each variant to the generator, grades
the answer as ka2 grade does, and reports the pass rate per condition and per
case, with each failure's findings. It exits 0 when every condition meets its
threshold (--min-pass), else 1.

Conditions (--conditions, default all):
  base             the contract as built
  position:start   the applicable evidence first among --distractors records
  position:middle  of the corpus's other subjects, in the middle,
  position:end     or last ("position" is all three)
  no_example       the worked example removed
  hostile          a hostile record added (--hostile FILE, default an
                   embedded one that tries to change the amount and cancel
                   an order)
  duplicate        each applicable record repeated
  missing          the applicable evidence removed: the answer must refuse
A variant's template carries "+condition", so it is never taken for what ka2
build prints. Each variant is assembled and counted as ka2 build counts a
contract: one over the case's budget is reported and not sent. A variant
that does not differ as its condition says (no record of another subject
applies on the case's dates, one distractor for position:middle, no
evidence to remove or repeat) is degenerate: reported, not sent, not a
pass. A condition with no variant sent is UNTESTED and fails. A case that
expects a build error (expect.error), or whose build fails, is skipped and
listed. The JSON report keeps each sent variant's contract and its SHA-256,
so any answer can be graded again with ka2 grade.

The generator is an OpenAI-compatible Chat Completions server (--endpoint:
llama.cpp's server, vLLM, Ollama, hosted APIs), sent the body ka2 render
makes; the API key is read from the environment variable --api-key-env
names. Its max_tokens is the case's reserve when the case counts in a
token encoding (cl100k_base, o200k_base), else the contract definition's
o200k_base reserve, or --max-tokens; the report says which applied. A reply
without content (content null, as a reply that only calls tools has) is a
failed run. A 429, a 5xx or a failed connection is retried up to 4 times,
waiting 1s, 2s, 4s, 8s or the server's Retry-After (at most 30s).

Or it is a local program (--exec PROGRAM, its arguments after --): it reads
{"contract": …, "request": …} as one line of JSON on stdin and prints the
answer text on stdout. It runs with ka2's environment as a pipeline stage's
program does: in its own process group, ended with everything it started,
stopped past --timeout or 4 MiB on stdout. A non-zero exit, a time-out or
no answer is a failed run, reported with the last line of its stderr.`,
		Example: `  ka2 eval cases --endpoint http://127.0.0.1:8080/v1/chat/completions --model local
  ka2 eval cases --endpoint https://api.openai.com/v1/chat/completions --model gpt-4o --api-key-env OPENAI_API_KEY \
    --conditions base,hostile,missing --repeat 3 --min-pass 0.9,missing=1 --format junit --report eval.xml
  ka2 eval cases --exec python3 -- generator.py --temperature 0`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				opts.Paths, opts.ExecArgs = args[:at], args[at:]
				if len(opts.Paths) == 0 {
					return usageError{errors.New("name the case files before --; the arguments after it are --exec's")}
				}
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return runEval(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Endpoint, "endpoint", "", "Chat Completions URL of the generator, e.g. http://127.0.0.1:8080/v1/chat/completions")
	fs.StringVar(&opts.Exec, "exec", "", "program that answers: it reads the contract and request as JSON on stdin and prints the answer (its arguments after --)")
	fs.DurationVar(&opts.Timeout, "timeout", eval.DefaultTimeout, "time limit of one answer: an --exec program's run or an --endpoint request")
	fs.StringVar(&opts.Model, "model", "", "the model field of each request")
	fs.StringVar(&opts.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (sent as a bearer token)")
	fs.IntVar(&opts.MaxTokens, "max-tokens", 0, "max_tokens of each request, also in an --exec program's request (default: the case's reserve when it counts in cl100k_base or o200k_base, else the contract definition's o200k_base reserve, 512)")
	fs.StringVar(&opts.Conditions, "conditions", "base,position,no_example,hostile,duplicate,missing", "conditions to run, comma-separated")
	fs.IntVar(&opts.Repeat, "repeat", 1, "run each case under each condition N times, 1..100")
	fs.IntVar(&opts.Jobs, "jobs", 1, "answers asked for at once, 1..64")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress line on standard error")
	fs.IntVar(&opts.Distractors, "distractors", 6, "records of other subjects the position conditions add, 1..100")
	fs.StringVar(&opts.Hostile, "hostile", "", "file holding the hostile record's text (default: an embedded one)")
	fs.StringVar(&opts.MinPass, "min-pass", "0.9", "pass rate each condition must reach, 0..1; per condition as 0.9,hostile=1,missing=0.8")
	enumVar(fs, &opts.Format, "format", "text", []string{"text", "json", "junit"}, "report format")
	fs.StringVar(&opts.Report, "report", "", "write the report in --format to this file (- for standard output); the text report then goes to standard output")
	return cmd
}

// validate checks the flags: which generator, then the settings the
// eval package checks (worded here as flags). It keeps the settings
// read, for runEval.
func (o *EvalOptions) validate() error {
	if err := o.validateGenerator(); err != nil {
		return err
	}
	o.options = eval.Options{Repeat: o.Repeat, Jobs: o.Jobs, Distractors: o.Distractors, MaxTokens: o.MaxTokens}
	if err := o.options.Validate(); err != nil {
		return evalUsage(err)
	}
	if err := o.validateProgram(); err != nil {
		return err
	}
	var err error
	if o.options.Conditions, err = eval.ParseConditions(o.Conditions); err != nil {
		return usageError{fmt.Errorf("--conditions: %w", err)}
	}
	if o.options.MinPass, err = eval.ParseMinPass(o.MinPass); err != nil {
		return evalUsage(err)
	}
	o.f.warn(append(eval.Renamed(eval.SettingConditions, o.Conditions), eval.Renamed(eval.SettingMinPass, o.MinPass)...), evalFlag)
	return nil
}

// validateGenerator checks that the flags name one generator, with the
// flags that go with it.
func (o *EvalOptions) validateGenerator() error {
	switch {
	case o.Endpoint == "" && o.Exec == "":
		return usageError{errors.New("name the generator: --endpoint URL (a Chat Completions server) or --exec PROGRAM (a local program)")}
	case o.Endpoint != "" && o.Exec != "":
		return usageError{errors.New("--endpoint and --exec both name the generator; give one")}
	case o.Exec == "" && len(o.ExecArgs) > 0:
		return usageError{fmt.Errorf("arguments after -- (%s) are --exec's, but there is no --exec", strings.Join(o.ExecArgs, " "))}
	case o.Exec != "" && (o.Model != "" || o.APIKeyEnv != ""):
		return usageError{errors.New("--model and --api-key-env are for --endpoint, not --exec")}
	case o.Timeout <= 0:
		return usageError{fmt.Errorf("invalid value \"%s\" for --timeout: want a positive duration such as 30s", o.Timeout)}
	}
	return nil
}

// validateProgram checks that --exec names a program that can run, or
// --endpoint an http or https URL.
func (o *EvalOptions) validateProgram() error {
	if o.Exec != "" {
		if _, err := exec.LookPath(o.Exec); err != nil {
			// Say why (not found, not executable), without LookPath's
			// repetition of the name.
			cause := errors.Unwrap(err)
			var pe *fs.PathError
			if errors.As(cause, &pe) {
				cause = pe.Err
			}
			return usageError{fmt.Errorf("--exec: cannot run %s: %v; a path with a slash is relative to the current folder, a bare name is looked up on PATH", o.Exec, cause)}
		}
		return nil
	}
	u, err := url.Parse(o.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Errorf("invalid value %q for --endpoint: want an http or https URL", o.Endpoint)}
	}
	return nil
}

// evalUsage words an eval.SettingError as the flag to fix.
// evalFlag names the flag of an eval setting.
func evalFlag(setting string) string { return "--" + strings.ReplaceAll(setting, "_", "-") }

func evalUsage(err error) error {
	var se *eval.SettingError
	if !errors.As(err, &se) {
		return err
	}
	flag := evalFlag(string(se.Setting))
	if se.Err != nil {
		return usageError{fmt.Errorf("%s: %w", flag, se.Err)}
	}
	return usageError{fmt.Errorf("invalid value %q for %s: want %s", se.Value, flag, se.Want)}
}

// generator is the program or server the flags name.
func (o *EvalOptions) generator() (eval.Generator, error) {
	if o.Exec != "" {
		return &eval.Exec{Argv: append([]string{o.Exec}, o.ExecArgs...), Env: o.f.environ(), Timeout: o.Timeout}, nil
	}
	ep := &eval.Endpoint{URL: o.Endpoint, Model: o.Model, Client: &http.Client{Timeout: o.Timeout}}
	if o.APIKeyEnv != "" {
		if ep.APIKey = o.f.getenv(o.APIKeyEnv); ep.APIKey == "" {
			return nil, usageError{fmt.Errorf("--api-key-env: the environment variable %s is not set or empty", o.APIKeyEnv)}
		}
	}
	return ep, nil
}

func runEval(o *EvalOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	spec := eval.Spec{Paths: o.Paths, Load: golden.LoadOptions{OpenCorpus: o.f.openCorpus}, Options: o.options}
	if o.Hostile != "" {
		data, err := inputfile.ReadFile(o.Hostile, inputfile.MaxSize)
		if err != nil {
			return fmt.Errorf("--hostile: %w", err)
		}
		if spec.Hostile, err = eval.HostileText(data); err != nil {
			return fmt.Errorf("%s: %w", o.Hostile, err)
		}
	}
	var err error
	if spec.Generator, err = o.generator(); err != nil {
		return err
	}
	if o.f.ErrTTY && !o.Quiet {
		spec.Progress = func(done, total int) {
			fmt.Fprintf(o.f.ErrOut, "\reval: %d/%d", done, total)
			if done == total {
				fmt.Fprint(o.f.ErrOut, "\r\033[K")
			}
		}
	}
	rep, err := spec.Run(o.ctx())
	if err != nil {
		return evalUsage(err)
	}
	if err := o.writeReport(rep); err != nil {
		return err
	}
	if err := rep.Failure(); err != nil {
		return exitError{kind: errkind.CheckFailed, err: err}
	}
	return nil
}

// writeReport prints the report in --format, or with --report writes it
// there and prints text; --report - is standard output.
func (o *EvalOptions) writeReport(rep *eval.Report) error {
	if o.Report == "" || o.Report == stdoutName {
		return writeEval(o.f.Out, rep, o.Format)
	}
	var buf bytes.Buffer
	if err := writeEval(&buf, rep, o.Format); err != nil {
		return err
	}
	if err := writeOutput(o.ctx(), o.f.Out, "--report", o.Report, buf.Bytes()); err != nil {
		return err
	}
	return rep.WriteText(o.f.Out)
}

func writeEval(w io.Writer, rep *eval.Report, format string) error {
	switch format {
	case "json":
		return writeJSON(w, rep, true)
	case "junit":
		return rep.WriteJUnit(w)
	}
	return rep.WriteText(w)
}
