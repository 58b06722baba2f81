package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/plural"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/serve"
)

// AuditOptions are the inputs of `ka2 audit`.
type AuditOptions struct {
	f *Factory
	corpusFlags
	budgetFlags
	Log             string
	Lang            string
	Short           bool
	RequireEvidence bool
	Policy          string
	Revision        string
	EachRevision    bool
	Format          string
	cmdContext
}

// NewCmdAudit makes `ka2 audit`.
func NewCmdAudit(f *Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{f: f}
	cmd := &cobra.Command{
		Use:   "audit LOG",
		Short: "Rebuild every decision of a ka2 serve decision log and report those that differ",
		Long: `Audit reads a decision log that ka2 serve --decision-log wrote (LOG, or -
for standard input), rebuilds each decision's answer from the corpus and
compares it with the SHA-256 the log holds, byte for byte. Give it the
server's build flags (--contract, --counter, --capacity, --reserve,
--wrapper, --policy, --lang, --short, --require-evidence).

The corpus is --corpus as it is now; with --revision REV, the folder as git
has it at REV; with --each-revision, each decision is rebuilt from the git
commit it names (its corpus.revision), which the server records when the
corpus folder is a clean git checkout.

Every decision whose answer differs is listed with its reason:
corpus_changed (the corpus is not the one it was made from),
unknown_revision (it names no revision, or one the repository does not
have), not_reproducible (the same corpus gives another answer: the flags
are not the server's, or ka2 changed); a line that is not a decision is
malformed. Decisions that cannot be rebuilt are listed as unchecked:
not_built (an overloaded, timed-out or abandoned request),
request_not_logged (--decision-log-requests digest), endpoint (one the
audit does not rebuild); decisions the server dropped are counted. Exit
1 if any decision differs.`,
		Example: `  ka2 serve --corpus policies --decision-log decisions.log
  ka2 audit decisions.log --corpus policies
  ka2 audit decisions.log --corpus policies --each-revision`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Log = args[0] }, opts.validate, runF, runAudit),
	}
	fs := cmd.Flags()
	opts.corpusFlags.register(fs)
	opts.budgetFlags.register(fs)
	fs.StringVar(&opts.Policy, "policy", "", "provenance policy YAML file the server used (default: the embedded policy)")
	fs.StringVar(&opts.Lang, "lang", "en", "the server's --lang")
	fs.BoolVar(&opts.Short, "short", false, "the server's --short")
	fs.BoolVar(&opts.RequireEvidence, "require-evidence", false, "the server's --require-evidence")
	fs.StringVar(&opts.Revision, "revision", "", "rebuild from the --corpus folder as git has it at this revision")
	fs.BoolVar(&opts.EachRevision, "each-revision", false, "rebuild each decision from the git commit it records")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

func (o *AuditOptions) validate() error {
	if o.Revision != "" && o.EachRevision {
		return usageError{errors.New("--revision and --each-revision: give one")}
	}
	if (o.Revision != "" || o.EachRevision) && (o.Corpus == "" || o.Corpus == corpus.SampleName) {
		return usageError{errors.New("--revision and --each-revision read the --corpus folder from git: name the folder with --corpus")}
	}
	if o.Revision != "" {
		return checkRevision("--revision", o.Revision)
	}
	return nil
}

func runAudit(o *AuditOptions) error {
	ctx := o.ctx()
	policy, err := (&typedFlags{Policy: o.Policy}).policy()
	if err != nil {
		return err
	}
	var in io.Reader = o.f.In
	if o.Log != "-" {
		file, err := os.Open(o.Log)
		if err != nil {
			return fmt.Errorf("read decision log: %w", err)
		}
		defer file.Close()
		in = file
	}
	cfg := serve.AuditConfig{Settings: contract.Settings{Lang: o.Lang, Short: o.Short, RequireEvidence: o.RequireEvidence}}
	switch {
	case o.EachRevision:
		builders := map[string]*contract.Builder{}
		cfg.Target = func(ctx context.Context, d *serve.Decision) (*contract.Builder, error) {
			rev := d.Corpus.Revision
			if rev == "" {
				return nil, fmt.Errorf("%w: the decision records no revision (the corpus was not a clean git checkout)", serve.ErrUnknownRevision)
			}
			if b, ok := builders[rev]; ok {
				return b, nil
			}
			b, err := o.builderAt(ctx, "--each-revision", rev, policy)
			if err != nil {
				return nil, err
			}
			builders[rev] = b
			return b, nil
		}
	default:
		var b *contract.Builder
		if o.Revision != "" {
			b, err = o.builderAt(ctx, "--revision", o.Revision, policy)
			if errors.Is(err, serve.ErrUnknownRevision) {
				return usageError{err}
			}
		} else {
			b, err = o.builder(ctx, &o.corpusFlags)
		}
		if err != nil {
			return err
		}
		b.Policy = policy
		cfg.Target = func(context.Context, *serve.Decision) (*contract.Builder, error) { return b, nil }
	}
	rep, err := serve.Audit(ctx, in, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(o.Log), err)
	}
	if o.Format == "json" {
		if err := writeJSON(o.f.Out, rep, true); err != nil {
			return err
		}
	} else {
		name := displayName(o.Log)
		for _, f := range rep.Differ {
			fmt.Fprintf(o.f.Out, "%s:%d: %s\n", name, f.Line, findingText(f))
		}
		for _, f := range rep.Unchecked {
			fmt.Fprintf(o.f.Out, "%s:%d: unchecked: %s\n", name, f.Line, findingText(f))
		}
		fmt.Fprintf(o.f.Out, "%s: %s: %d reproduced, %d differ, %d unchecked, %d dropped by the server\n",
			name, plural.Count(rep.Decisions, "decision", "decisions"), rep.Reproduced, len(rep.Differ), len(rep.Unchecked), rep.Dropped)
	}
	if !rep.OK() {
		return exitError{errkind.CheckFailed, errReported}
	}
	return nil
}

// findingText words one finding on a line.
func findingText(f serve.AuditFinding) string {
	s := f.Reason + ": " + f.Message
	if f.ID != "" {
		s = f.ID + " " + f.Endpoint + ": " + s
	}
	if f.Logged != "" {
		s += fmt.Sprintf(" (logged %s, rebuilt %s)", f.Logged, f.Rebuilt)
	}
	return s
}

// builderAt makes the builder of the --corpus folder as git has it at
// rev. A revision git does not know wraps serve.ErrUnknownRevision.
func (o *AuditOptions) builderAt(ctx context.Context, flag, rev string, policy *provenance.Policy) (*contract.Builder, error) {
	dir := filepath.Clean(o.Corpus)
	if _, err := gitCommit(ctx, o.f.git(), dir, flag, rev); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("%w: %v", serve.ErrUnknownRevision, errors.Unwrap(err))
	}
	fsys, _, err := gitTreeFS(ctx, o.f.git(), dir, flag, rev)
	if err != nil {
		return nil, err
	}
	var files fs.FS = fsys
	if filter := o.f.corpusFilter(); filter != nil {
		files = filter(o.Corpus, fsys)
	}
	cfg := o.budgetFlags.config(&o.corpusFlags)
	cfg.Corpus = corpus.FromFS(filepath.ToSlash(o.Corpus), files)
	b, err := cfg.BuilderContext(ctx)
	if err != nil {
		return nil, o.budgetFlags.usage(err)
	}
	b.Policy = policy
	return b, nil
}
