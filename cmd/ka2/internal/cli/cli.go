// Package cli wires ka2's commands to the library packages. Each command
// lives in its own file as NewCmdX(f, runF) with an options struct; run
// functions read and write only through the Factory's streams.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/diag"
)

// Exit codes, from the one table in errkind. They are documented in
// docs/exit-codes.md and never change meaning.
const (
	ExitOK          = int(errkind.ExitOK)          // success
	ExitProblems    = int(errkind.ExitProblems)    // a check ran and found problems
	ExitInput       = int(errkind.ExitInput)       // usage or input error
	ExitBudget      = int(errkind.ExitBudget)      // over budget
	ExitNoEvidence  = int(errkind.ExitNoEvidence)  // no applicable evidence, with --require-evidence
	ExitContextType = int(errkind.ExitContextType) // the provenance policy refused an item or a transform
	ExitStage       = int(errkind.ExitStage)       // a pipeline stage failed, timed out or broke its output schema
	ExitDrain       = int(errkind.ExitDrain)       // serve stopped with requests in flight after the drain time-out
	ExitInterrupted = int(errkind.ExitInterrupted) // SIGINT or SIGTERM stopped the command before it finished
)

// Main runs ka2 with the process's arguments and streams and returns the
// exit code. The command runs under a context that SIGINT or SIGTERM
// cancels: long operations stop promptly and leave no temporary file, and
// the command exits ExitInterrupted (serve drains and exits 0 instead). A
// second signal ends the process at once, as it would without ka2's
// handler.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the next signal gets the default action again
	}()
	f := System()
	f.In = CancelReader(ctx, f.In)
	return Run(ctx, f, os.Args[1:])
}

// Run executes one ka2 command line under ctx and returns its exit code.
// Every error is printed once, here.
func Run(ctx context.Context, f *Factory, args []string) int {
	cmd := NewCmdRoot(f)
	if format, ok := scanErrorFormat(args); ok {
		f.ErrorFormat = format
	}
	cmd.SetArgs(args)
	cmd.SetIn(f.In)
	cmd.SetOut(f.Out)
	cmd.SetErr(f.ErrOut)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		err = fmt.Errorf("interrupted: %w", err)
	}
	kind := errkind.Classify(err)
	if !errors.Is(err, errReported) {
		printError(f, cmd, args, err, kind)
	}
	return int(kind.Exit())
}

// NewCmdRoot builds the ka2 command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "ka2",
		Short: "Select effective-date evidence and build budgeted context contracts",
		Long: `ka2 decides, for one question, exactly which policy text a knowledge
assistant's generator receives: the sources that apply to the question's
subject and date, in a fixed order, with the cited lines and their addresses,
packed with the instruction, an example and the question into a typed JSON
contract that is counted against a budget and never silently cut.

Settings come from the flags, then the project file ka2.yaml (found from
the current folder upward, or named by --config or KA2_CONFIG; ka2 config
shows what applies and why), then the defaults. Without a corpus from
either, commands use the embedded sample corpus.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	enumVar(root.PersistentFlags(), &f.ErrorFormat, "error-format", "text", textJSON, "how errors are printed on stderr")
	root.PersistentFlags().StringVar(&f.ConfigFile, "config", "", "project file (default: $KA2_CONFIG, else ka2.yaml found from the current folder upward)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := renamedNotices(cmd.Flags(), f.ErrOut); err != nil {
			return err
		}
		if err := applyProject(cmd, f); err != nil {
			return err
		}
		warnNoCorpus(cmd, f, args)
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	setVersionFlag(root)
	root.AddCommand(
		NewCmdBuild(f, nil),
		NewCmdSelect(f, nil),
		NewCmdShow(f, nil),
		NewCmdVerify(f, nil),
		NewCmdBudget(f, nil),
		NewCmdPipeline(f),
		NewCmdRegress(f, nil),
		NewCmdReview(f, nil),
		NewCmdReport(f, nil),
		NewCmdImpact(f, nil),
		NewCmdTimeline(f, nil),
		NewCmdLint(f, nil),
		skipProject(NewCmdLSP(f, nil)),
		NewCmdServe(f, nil),
		NewCmdAudit(f, nil),
		NewCmdConfig(f, nil),
		NewCmdInit(f, nil),
		NewCmdSubjects(f, nil),
		skipProject(NewCmdVersion(f, nil)),
		skipProject(NewCmdHealthcheck(f, nil)),
		NewCmdGrade(f, nil),
		NewCmdRender(f, nil),
		NewCmdEval(f, nil),
	)
	registerCompletions(f, root)
	argsAreUsage(root)
	return root
}

// argsAreUsage makes the argument check of every command in the tree a
// usage error, so that a missing or extra argument is printed like a bad
// flag: with the command's usage line and the Try: hint.
func argsAreUsage(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageError{fmt.Errorf("%w (usage: %s)", err, strings.TrimSuffix(c.UseLine(), " [flags]"))}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		argsAreUsage(sub)
	}
}

// usageError marks a mistake in the command line itself.
type usageError struct{ err error }

func (e usageError) Error() string           { return e.err.Error() }
func (e usageError) Unwrap() error           { return e.err }
func (e usageError) ErrorKind() errkind.Kind { return errkind.Usage }

// errReported is returned by commands that already printed their outcome
// (for example verify's problem list) and only need an exit code.
var errReported = errors.New("reported")

// exitError attaches the kind of failure, and so the exit code, to an
// error whose kind only the command knows (a check that found problems, a
// failed stage).
type exitError struct {
	kind errkind.Kind
	err  error
}

func (e exitError) Error() string           { return e.err.Error() }
func (e exitError) Unwrap() error           { return e.err }
func (e exitError) ErrorKind() errkind.Kind { return e.kind }

func printError(f *Factory, cmd *cobra.Command, args []string, err error, kind errkind.Kind) {
	if f.ErrorFormat == "json" {
		// The message keeps the library's words: the JSON body is the one
		// golden error goldens hold.
		b, _ := errkind.Body{Error: errkind.NewDetail(kind, err)}.Encode(true) // plain structs always encode
		f.ErrOut.Write(b)
		return
	}
	name := flagName
	if c, _, ferr := cmd.Find(args); ferr == nil {
		name = settingName(c)
	}
	fmt.Fprintf(f.ErrOut, "ka2: %s\n", message(err, name))
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(f.ErrOut, "Try: %s --help\n", commandPath(cmd, args))
	}
}

// message words err for the command line: the settings a library's hint
// names become flags (worded by name, unless the command that returned err
// words them itself), and a budget error's fit names the flag that makes
// the contract fit.
func message(err error, name func(setting string) string) string {
	msg := budget.WordFit(err.Error(), err, func(fit budget.Fit) string {
		if fit.Setting == string(contract.SettingShort) {
			return fmt.Sprintf("or pass --short: quoting the cite ranges, it takes %d of %d", fit.Total, fit.Limit)
		}
		return ""
	})
	var we wordedError
	if errors.As(err, &we) {
		name = we.name
	}
	return diag.Reword(msg, err, name)
}

// wordedError is err with the settings its hints name worded by name: as
// the command knows where each value came from (a request file's field,
// say), rather than as the flag.
type wordedError struct {
	err  error
	name func(setting string) string
}

func (e wordedError) Error() string { return e.err.Error() }
func (e wordedError) Unwrap() error { return e.err }

// flagName is the flag that sets a setting: a setting a library names in
// a hint has a flag of the same name where a command takes it.
func flagName(setting string) string { return "--" + setting }

// settingName words a setting for a user of c: the project file's key,
// at its path:line:col, when the file set it; its flag when c has one;
// else without a flag, which c would refuse.
func settingName(c *cobra.Command) func(setting string) string {
	return func(setting string) string {
		if pos, key, ok := fromProjectFile(c.Flags(), setting); ok {
			return fmt.Sprintf("%s (%s)", key, pos)
		}
		if c.Flags().Lookup(setting) != nil {
			return flagName(setting)
		}
		return diag.SettingWords(setting)
	}
}

// commandPath names the subcommand the arguments chose, for the Try: line.
func commandPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil {
		return root.Name()
	}
	return c.CommandPath()
}

// writeJSON writes v as JSON without HTML escaping, followed by a newline.
func writeJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// runE is the RunE of a command whose options embed cmdContext: it gives
// the options the command's context and, through take (nil for none), its
// arguments; checks them with validate (nil for none); then runs them with
// runF, a test's capture, or with run.
func runE[O any](opts *O, c *cmdContext, take func(args []string), validate func() error, runF, run func(*O) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c.Ctx = cmd.Context()
		if take != nil {
			take(args)
		}
		if validate != nil {
			if err := validate(); err != nil {
				return err
			}
		}
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
}
