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
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/eval"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/errkind"
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

	// gen replaces the generator in tests.
	gen eval.Generator
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

// parseMinPass reads "0.9" or "0.9,hostile=1,missing=0.8".
func parseMinPass(s string) (float64, map[eval.Condition]float64, error) {
	def := 0.9
	per := map[eval.Condition]float64{}
	rate := func(v string) (float64, error) {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("invalid value %q for --min-pass: want a rate from 0 to 1", v)
		}
		return r, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			r, err := rate(name)
			if err != nil {
				return 0, nil, err
			}
			def = r
			continue
		}
		cs, err := eval.ParseConditions(name)
		if err != nil {
			return 0, nil, fmt.Errorf("--min-pass: %w", err)
		}
		r, err := rate(v)
		if err != nil {
			return 0, nil, err
		}
		for _, c := range cs {
			per[c] = r
		}
	}
	return def, per, nil
}

func (o *EvalOptions) validate() error {
	switch {
	case o.gen == nil && o.Endpoint == "" && o.Exec == "":
		return usageError{errors.New("name the generator: --endpoint URL (a Chat Completions server) or --exec PROGRAM (a local program)")}
	case o.Endpoint != "" && o.Exec != "":
		return usageError{errors.New("--endpoint and --exec both name the generator; give one")}
	case o.Exec == "" && len(o.ExecArgs) > 0:
		return usageError{fmt.Errorf("arguments after -- (%s) are --exec's, but there is no --exec", strings.Join(o.ExecArgs, " "))}
	case o.Exec != "" && (o.Model != "" || o.APIKeyEnv != ""):
		return usageError{errors.New("--model and --api-key-env are for --endpoint, not --exec")}
	case o.Timeout <= 0:
		return usageError{fmt.Errorf("invalid value \"%s\" for --timeout: want a positive duration such as 30s", o.Timeout)}
	case o.Repeat < 1 || o.Repeat > 100:
		return usageError{fmt.Errorf("invalid value \"%d\" for --repeat: want 1..100", o.Repeat)}
	case o.Jobs < 1 || o.Jobs > 64:
		return usageError{fmt.Errorf("invalid value \"%d\" for --jobs: want 1..64", o.Jobs)}
	case o.Distractors < 1 || o.Distractors > 100:
		return usageError{fmt.Errorf("invalid value \"%d\" for --distractors: want 1..100", o.Distractors)}
	case o.MaxTokens < 0:
		return usageError{fmt.Errorf("invalid value \"%d\" for --max-tokens: want 1 or more", o.MaxTokens)}
	}
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
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError{fmt.Errorf("invalid value %q for --endpoint: want an http or https URL", o.Endpoint)}
		}
	}
	return nil
}

func runEval(o *EvalOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	conds, err := eval.ParseConditions(o.Conditions)
	if err != nil {
		return usageError{fmt.Errorf("--conditions: %w", err)}
	}
	def, per, err := parseMinPass(o.MinPass)
	if err != nil {
		return usageError{err}
	}
	var hostile string
	if o.Hostile != "" {
		data, err := inputfile.ReadFile(o.Hostile, inputfile.MaxSize)
		if err != nil {
			return fmt.Errorf("--hostile: %w", err)
		}
		hostile = strings.TrimRight(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
		if strings.TrimSpace(hostile) == "" {
			return fmt.Errorf("%s: the hostile record is empty", o.Hostile)
		}
	}
	gen := o.gen
	if gen == nil && o.Exec != "" {
		gen = &eval.Exec{Argv: append([]string{o.Exec}, o.ExecArgs...), Env: o.f.environ(), Timeout: o.Timeout}
	}
	if gen == nil {
		ep := &eval.Endpoint{URL: o.Endpoint, Model: o.Model, Client: &http.Client{Timeout: o.Timeout}}
		if o.APIKeyEnv != "" {
			if ep.APIKey = o.f.getenv(o.APIKeyEnv); ep.APIKey == "" {
				return usageError{fmt.Errorf("--api-key-env: the environment variable %s is not set or empty", o.APIKeyEnv)}
			}
		}
		gen = ep
	}
	cases, err := eval.Load(o.ctx(), o.Paths, golden.LoadOptions{OpenCorpus: o.f.openCorpus})
	if err != nil {
		return err
	}
	// Every condition gets its threshold here, so a --min-pass of 0 is
	// not taken for the library's unset default.
	for _, c := range conds {
		if _, ok := per[c]; !ok {
			per[c] = def
		}
	}
	opts := eval.Options{Conditions: conds, Repeat: o.Repeat, Jobs: o.Jobs, Distractors: o.Distractors,
		Hostile: hostile, MaxTokens: o.MaxTokens, MinPass: per}
	if o.f.ErrTTY && !o.Quiet {
		opts.Progress = func(done, total int) {
			fmt.Fprintf(o.f.ErrOut, "\reval: %d/%d", done, total)
			if done == total {
				fmt.Fprint(o.f.ErrOut, "\r\033[K")
			}
		}
	}
	rep, err := eval.Evaluate(o.ctx(), cases, gen, opts)
	if err != nil {
		return err
	}
	if o.Report != "" && o.Report != stdoutName {
		var buf bytes.Buffer
		if err := writeEval(&buf, rep, o.Format); err != nil {
			return err
		}
		if err := writeOutput(o.ctx(), o.f.Out, "--report", o.Report, buf.Bytes()); err != nil {
			return err
		}
		err = rep.WriteText(o.f.Out)
	} else {
		err = writeEval(o.f.Out, rep, o.Format)
	}
	if err != nil {
		return err
	}
	if !rep.OK {
		var below, untested []string
		for _, c := range rep.Conditions {
			switch {
			case c.Runs == 0:
				untested = append(untested, c.Name)
			case !c.OK:
				below = append(below, fmt.Sprintf("%s %.2f < %.2f", c.Name, c.Rate, c.Need))
			}
		}
		var why []string
		if len(below) > 0 {
			why = append(why, "below the pass threshold: "+strings.Join(below, ", "))
		}
		if len(untested) > 0 {
			why = append(why, "no variant was sent, so nothing was tested: "+strings.Join(untested, ", "))
		}
		return exitError{kind: errkind.CheckFailed, err: errors.New(strings.Join(why, "; "))}
	}
	return nil
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
