package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/golden"
)

// ImpactOptions are the inputs of `ka2 impact`.
type ImpactOptions struct {
	f       *Factory
	Cases   []string
	Corpus  string
	Base    string
	BaseRef string
	Format  string
	Jobs    int
	cmdContext
}

// NewCmdImpact makes `ka2 impact`. runF replaces the run step in tests.
func NewCmdImpact(f *Factory, runF func(*ImpactOptions) error) *cobra.Command {
	opts := &ImpactOptions{f: f}
	cmd := &cobra.Command{
		Use:   "impact --cases DIR --corpus NEW (--base OLD | --base-ref GIT_REF)",
		Short: "List the cases whose contract an edit to the corpus changes",
		Long: `Impact builds every case in the case files under --cases twice: against the
corpus before an edit (--base OLD, a folder, or --base-ref REF, the --corpus
folder as git has it at REF) and after it (--corpus NEW). It lists each case
whose output changes, with a one-line summary and the changed corpus files
that caused it (changed files among the sources selected either way).

The corpus the case files name is ignored; their other settings apply.

Exit status: 0 when no case changes, 1 when some do (so it can gate a pull
request), 2 on broken case files or corpora.`,
		Example: `  ka2 impact --cases cases --corpus policies --base-ref origin/main
  ka2 impact --cases cases --corpus policies-edited --base policies --format json`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, opts.validate, runF, runImpact),
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&opts.Cases, "cases", nil, "case files or folders of case files (repeat for several)")
	fs.StringVar(&opts.Corpus, "corpus", "", "the corpus folder after the edit")
	fs.StringVar(&opts.Base, "base", "", "the corpus folder before the edit")
	fs.StringVar(&opts.BaseRef, "base-ref", "", "git revision holding the corpus before the edit, e.g. origin/main")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	fs.IntVar(&opts.Jobs, "jobs", 0, "cases built at once (default: all cores)")
	return cmd
}

func (o *ImpactOptions) validate() error {
	switch {
	case len(o.Cases) == 0:
		return usageError{errors.New("--cases is required: the case files or folders to rebuild")}
	case o.Corpus == "":
		return usageError{errors.New("name the corpus folder after the edit: pass --corpus, or set corpus: in ka2.yaml")}
	case (o.Base == "") == (o.BaseRef == ""):
		return usageError{errors.New("give the corpus before the edit as --base FOLDER or --base-ref GIT_REF (one of them)")}
	case o.Jobs < 0:
		return usageError{fmt.Errorf("--jobs %d: must not be negative (0 means all cores)", o.Jobs)}
	case o.BaseRef != "":
		if err := checkRevision("--base-ref", o.BaseRef); err != nil {
			return err
		}
	}
	return nil
}

func runImpact(o *ImpactOptions) error {
	ctx := o.ctx()
	next, err := o.f.openCorpus(o.Corpus).Load(ctx)
	if err != nil {
		return fmt.Errorf("--corpus: %w", err)
	}
	var base *corpus.Corpus
	if o.BaseRef != "" {
		base, err = o.corpusAt(ctx, o.BaseRef)
	} else {
		base, err = o.f.openCorpus(o.Base).Load(ctx)
		if err != nil {
			err = fmt.Errorf("--base: %w", err)
		}
	}
	if err != nil {
		return err
	}
	suite, err := golden.Load(ctx, o.Cases, golden.LoadOptions{Corpus: next})
	if err != nil {
		return err
	}
	rep, err := golden.Impact(ctx, suite, base, next, o.Jobs)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		err = writeJSON(o.f.Out, rep, true)
	} else {
		err = rep.WriteText(o.f.Out)
	}
	if err != nil {
		return err
	}
	if len(rep.Changed) > 0 {
		return exitError{errkind.CheckFailed, errReported}
	}
	return nil
}

// corpusAt loads the --corpus folder as git has it at ref, without
// touching the work tree.
func (o *ImpactOptions) corpusAt(ctx context.Context, ref string) (*corpus.Corpus, error) {
	fsys, pfx, err := gitTreeFS(ctx, o.f.git(), filepath.Clean(o.Corpus), "--base-ref", ref)
	if err != nil {
		return nil, err
	}
	var files fs.FS = fsys
	if filter := o.f.corpusFilter(); filter != nil {
		files = filter(o.Corpus, fsys) // the folder's exclusions, as the project has them now
	}
	corp, err := corpus.LoadContext(ctx, files)
	if err != nil {
		return nil, fmt.Errorf("--base-ref %s: corpus %s at that revision: %w", ref, pfx, err)
	}
	return corp, nil
}
