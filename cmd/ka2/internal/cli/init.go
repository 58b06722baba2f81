package cli

import (
	"bytes"
	"context"
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

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/inputfile"
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
keeps policies/README.md out of the corpus), ka2-context-content.yaml (the
instruction and a worked example, en and zh, that cites meals-2025 of the
project's own corpus), and .github/workflows/ka2.yml, which runs ka2's
GitHub Action on every pull request.

ka2.yaml names the content file and sets a budget for a real model: the
o200k_base token counter, a capacity of 8192 tokens and a reserve of 1024
for the answer; its comments say how to set your model's figures.

From inside DIR, ka2 lint, ka2 build and ka2 regress then need no
--corpus or case folder. Init refuses to overwrite a file that exists
(--force overwrites); each file is written whole or not at all. When the
example cannot build there (policies in DIR clash with it), init puts DIR
back as it was and says why.`,
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

// The case file init writes, whose goldens it makes: only it, so that
// the goldens of case files already in the folder are left alone.
const initCases = "cases/meals.yaml"

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
	// Whether the example works depends on what the folder holds already
	// (policies that clash with it), which only a build shows: so init
	// writes, builds, and on any failure puts the folder back as it was,
	// rather than leave half a project that a second run refuses.
	var undo initUndo
	if err := undo.save(o.Dir, append(append([]string(nil), order...), initGoldens...)); err != nil {
		return err
	}
	if err := o.write(files, order, &undo); err != nil {
		if uerr := undo.restore(); uerr != nil {
			return fmt.Errorf("%w; putting the folder back as it was failed: %v", err, uerr)
		}
		return fmt.Errorf("%w; ka2 init left the folder as it was", err)
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

// write writes the template's files, then the goldens its cases build,
// recording in undo each folder it makes.
func (o *InitOptions) write(files map[string][]byte, order []string, undo *initUndo) error {
	for _, rel := range order {
		p := filepath.Join(o.Dir, filepath.FromSlash(rel))
		if err := undo.mkdirAll(filepath.Dir(p)); err != nil {
			return err
		}
		if err := atomicfile.Write(o.ctx(), p, files[rel], 0o644); err != nil {
			return fmt.Errorf("%w", err)
		}
	}
	// The goldens are what the cases build now, written by regress's own
	// update, so they are exact.
	proj, err := project.Load(filepath.Join(o.Dir, project.FileName), nil) // init wrote it
	if err != nil {
		return err
	}
	open := func(dir string) corpus.Location { return openCorpus(dir, proj) }
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
	return nil
}

// initUndo is what ka2 init needs to put a folder back as it was: every
// file it may write, what those that were there (with --force) held, and
// the folders it made.
type initUndo struct {
	files   []string
	before  map[string][]byte
	perms   map[string]fs.FileMode
	created []string // outermost first
}

// save records the files at rels below dir as they are now.
func (u *initUndo) save(dir string, rels []string) error {
	u.before, u.perms = map[string][]byte{}, map[string]fs.FileMode{}
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		u.files = append(u.files, p)
		data, err := inputfile.ReadFile(p, inputfile.MaxSize)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("%s: %s", filepath.ToSlash(p), inputfile.Reason(err))
		default:
			info, err := os.Stat(p)
			if err != nil {
				return fmt.Errorf("%w", err)
			}
			u.before[p], u.perms[p] = data, info.Mode().Perm()
		}
	}
	return nil
}

// mkdirAll is os.MkdirAll, recording the folders it makes.
func (u *initUndo) mkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return fmt.Errorf("%w", err)
		}
		u.created = append(u.created, missing[i])
	}
	return nil
}

// restore puts back every file as save found it and removes the folders
// mkdirAll made. It runs after Ctrl-C too, so it takes no context.
func (u *initUndo) restore() error {
	var errs []error
	for _, p := range u.files {
		if data, ok := u.before[p]; ok {
			errs = append(errs, atomicfile.Write(context.Background(), p, data, u.perms[p]))
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for i := len(u.created) - 1; i >= 0; i-- {
		errs = append(errs, removeEmptyTree(u.created[i])) // golden.Run makes the goldens' folders below them
	}
	return errors.Join(errs...)
}

// removeEmptyTree removes dir and the folders below it if none of them
// holds a file; a file that is there says why it stays.
func removeEmptyTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			return fmt.Errorf("%s stays: it holds %s, which ka2 init did not write", filepath.ToSlash(dir), e.Name())
		}
		if err := removeEmptyTree(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
