package cli

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/project"
)

// template is the project `ka2 init` writes. all: keeps the files whose
// names start with "." (.ka2ignore, .github).
//
//go:embed all:template
var template embed.FS

// InitOptions are the inputs of `ka2 init`.
type InitOptions struct {
	f     *Factory
	Dir   string
	Force bool
	cmdContext
}

// NewCmdInit makes `ka2 init`. runF replaces the run step in tests.
func NewCmdInit(f *Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{f: f}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a working ka2 project: settings, example policies, cases and a CI workflow",
		Long: `Init writes a project into DIR (default: the current folder): ka2.yaml,
policies/ with three example policies (two versions of a meal allowance
with a boundary on 2026-07-01, and a remote-work rule), cases/ with a case
file on both sides of that boundary and its goldens, .ka2ignore (which
keeps policies/README.md out of the corpus), and .github/workflows/ka2.yml,
which runs ka2's GitHub Action on every pull request.

From inside DIR, ka2 lint, ka2 build and ka2 regress then need no
--corpus or case folder. Init refuses to overwrite a file that exists
(--force overwrites); each file is written whole or not at all.`,
		Example: `  ka2 init my-policies && cd my-policies
  ka2 lint
  ka2 build --subject meals --date 2026-07-01 --question "What is the daily meal allowance?"
  ka2 regress`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
		}, nil, runF, runInit),
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite files that exist")
	return skipProject(cmd)
}

// unreleasedPin is what the workflow init writes pins when this ka2 is not
// a release: a placeholder the Action refuses to install, rather than a
// release that may not be the one in use.
const unreleasedPin = "vX.Y.Z"

// initFiles returns the template's files, slash paths to contents, and
// their paths in order; the workflow pins v when it is a release.
func initFiles(v VersionInfo) (map[string][]byte, []string, error) {
	version, ok := v.Release()
	if !ok {
		version = unreleasedPin
	}
	files := map[string][]byte{}
	var order []string
	err := fs.WalkDir(template, "template", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := template.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "template/")
		files[rel] = bytes.ReplaceAll(data, []byte("{{VERSION}}"), []byte(version))
		order = append(order, rel)
		return nil
	})
	return files, order, err
}

// The case file init writes, whose goldens it makes.
const initCases = "cases"

// initGoldens lists the goldens the template's cases get, relative to DIR.
var initGoldens = []string{
	"cases/testdata/golden/meals/last-day-of-2025-rule.golden",
	"cases/testdata/golden/meals/first-day-of-2026-rule.golden",
}

func runInit(o *InitOptions) error {
	files, order, err := initFiles(o.f.version())
	if err != nil {
		return err
	}
	// Refuse before writing anything, naming every file in the way.
	var exist []string
	for _, rel := range append(append([]string(nil), order...), initGoldens...) {
		p := filepath.Join(o.Dir, filepath.FromSlash(rel))
		info, err := os.Lstat(p)
		switch {
		case err == nil && info.IsDir():
			return usageError{fmt.Errorf("%s is a folder where ka2 init writes a file; move it away", filepath.ToSlash(p))}
		case err == nil:
			exist = append(exist, filepath.ToSlash(p))
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%w", err)
		}
	}
	if len(exist) > 0 && !o.Force {
		return usageError{fmt.Errorf("%s already exist%s; ka2 init overwrites nothing: choose an empty folder, or pass --force to overwrite", strings.Join(exist, ", "), map[bool]string{true: "s", false: ""}[len(exist) == 1])}
	}
	for _, rel := range order {
		p := filepath.Join(o.Dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("%w", err)
		}
		if err := atomicfile.Write(o.ctx(), p, files[rel], 0o644); err != nil {
			return fmt.Errorf("%w", err)
		}
	}
	// The goldens are what the cases build now, written by regress's own
	// update, so they are exact.
	proj, err := project.Load(filepath.Join(o.Dir, project.FileName))
	if err != nil {
		return err
	}
	open := func(dir string) contract.Corpus { return openCorpus(dir, proj) }
	suite, err := golden.Load(o.ctx(), []string{filepath.Join(o.Dir, initCases)}, golden.LoadOptions{OpenCorpus: open})
	if err != nil {
		return fmt.Errorf("the example cases: %w", err)
	}
	rep, err := golden.Run(o.ctx(), suite, golden.Options{Update: true, Force: true})
	if err != nil {
		return fmt.Errorf("the example goldens: %w", err)
	}
	if !rep.OK() {
		var buf bytes.Buffer
		rep.WriteText(&buf, flagName)
		return fmt.Errorf("the example cases fail:\n%s", buf.String())
	}
	for _, rel := range append(order, initGoldens...) {
		fmt.Fprintf(o.f.Out, "wrote %s\n", path.Join(filepath.ToSlash(o.Dir), rel))
	}
	next := "ka2 lint && ka2 regress"
	if o.Dir != "." {
		next = "cd " + shellQuote(filepath.ToSlash(o.Dir)) + " && " + next
	}
	fmt.Fprintf(o.f.Out, "next: %s\n", next)
	if v, ok := o.f.version().Release(); !ok {
		fmt.Fprintf(o.f.ErrOut, "note: this ka2 is %s, not a release: .github/workflows/ka2.yml pins %s; set it (two places) to the release you install\n", v, unreleasedPin)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
