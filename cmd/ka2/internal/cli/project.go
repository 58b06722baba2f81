package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/project"
)

// envConfig names the project file when --config does not.
const envConfig = "KA2_CONFIG"

// envTrustedDirs lists the folders whose settings files are used whoever
// owns them (see project.Trust).
const envTrustedDirs = "KA2_TRUSTED_DIRS"

// trust is the owner check of the settings files this run finds upward:
// ka2.yaml, the .ka2ignore beside it and .ka2lint.yaml.
func (f *Factory) trust() (*project.Trust, error) {
	uid := os.Getuid
	if f.UID != nil {
		uid = f.UID
	}
	allowed, err := project.ParseAllowed(f.getenv(envTrustedDirs))
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w; list absolute folders separated by %q, or *", envTrustedDirs, err, string(os.PathListSeparator))}
	}
	return &project.Trust{UID: uid(), Allowed: allowed}, nil
}

// warnSkipped tells, once per file, that a settings file found upward was
// passed over for its owner, and how to use it after all.
func (f *Factory) warnSkipped(s project.Skipped) {
	f.warn(diag.List{s.Warning()}, func(setting string) string {
		if setting == project.SettingTrustedDirs {
			return envTrustedDirs
		}
		return flagName(setting)
	})
}

// lintConfigBelieved is the owner check of lint.FindConfigOS, warning
// about each file it passes over.
func (f *Factory) lintConfigBelieved() (func(path string) bool, error) {
	t, err := f.trust()
	if err != nil {
		return nil, err
	}
	return func(path string) bool {
		s, ok := t.Believes(path)
		if !ok {
			f.warnSkipped(s)
		}
		return ok
	}, nil
}

// projectState is the project file a run uses, found once.
type projectState struct {
	loaded bool
	cfg    *project.Config
	err    error
	// from says how the file was chosen: "--config", "KA2_CONFIG" or
	// "found" (from the working folder upward); "" without a file.
	from string
	// filled holds the flags the file set, with where it set them.
	filled map[string]diag.Pos
	// skipped are the project files and .ka2ignore passed over for
	// their owner.
	skipped []project.Skipped
}

// project returns the project file of this run: --config, else
// $KA2_CONFIG, else ka2.yaml found from f.Dir (the working folder) upward,
// else nil. A file named by --config or KA2_CONFIG must exist.
func (f *Factory) project() (*project.Config, error) {
	p := &f.proj
	if p.loaded {
		return p.cfg, p.err
	}
	p.loaded = true
	path := f.ConfigFile
	p.from = "--config"
	if path == "" {
		path, p.from = f.getenv(envConfig), envConfig
	}
	var trust *project.Trust // a file named is believed
	if path == "" {
		dir := f.Dir
		if dir == "" {
			dir = "."
		}
		if trust, p.err = f.trust(); p.err != nil {
			return nil, p.err
		}
		path, p.skipped, p.err = project.Find(dir, trust)
		for _, s := range p.skipped {
			f.warnSkipped(s)
		}
		p.from = "found"
		if p.err != nil || path == "" {
			p.from = ""
			return nil, p.err
		}
	}
	p.cfg, p.err = project.Load(path, trust)
	if p.cfg != nil {
		for _, s := range p.cfg.Skipped {
			f.warnSkipped(s)
			p.skipped = append(p.skipped, s)
		}
	}
	if p.err != nil && p.from != "found" {
		p.err = usageError{fmt.Errorf("%s: %w", p.from, p.err)}
	}
	return p.cfg, p.err
}

// fromProject reports whether the project file, not the command line, set
// the flag name.
func (f *Factory) fromProject(name string) bool {
	_, ok := f.proj.filled[name]
	return ok
}

// corpusFilter is the project's exclusions for the corpus folders of this
// run, or nil without a project file, for files openCorpus does not open
// (a folder as git has it, lint's).
func (f *Factory) corpusFilter() func(dir string, fsys fs.FS) fs.FS {
	if f.proj.cfg == nil || len(f.proj.cfg.Patterns()) == 0 {
		return nil
	}
	return f.proj.cfg.Filter
}

// openCorpus is the corpus dir names in this run, with the project's
// exclusions (see openCorpus).
func (f *Factory) openCorpus(dir string) corpus.Location { return openCorpus(dir, f.proj.cfg) }

// projectFlags maps the flags the project file can set to its keys, and
// reads what the file says for each ("" when it says nothing). A flag
// given on the command line wins; --lang is set only where its default is
// a language (build's en), not where it means every language (select) or
// "found from the contract" (verify).
var projectFlags = []struct {
	flag, key string
	value     func(*project.Config) string
}{
	{"corpus", project.KeyCorpus, func(c *project.Config) string { return c.Corpus }},
	{"cases", project.KeyCases, func(c *project.Config) string { return c.Cases }},
	{"definition", project.KeyContract, func(c *project.Config) string { return c.Contract }},
	{"content", project.KeyContent, func(c *project.Config) string { return c.Content }},
	{"policy", project.KeyPolicy, func(c *project.Config) string { return c.Policy }},
	{"counter", project.KeyCounter, func(c *project.Config) string { return c.Counter }},
	{"capacity", project.KeyCapacity, func(c *project.Config) string { return optionalInt(c.Capacity) }},
	{"reserve", project.KeyReserve, func(c *project.Config) string { return optionalInt(c.Reserve) }},
	{"lang", project.KeyLang, func(c *project.Config) string { return c.Lang }},
}

// optionalInt is n as a flag value, or "" when the file leaves it out.
func optionalInt(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

// applyProject sets the flags of cmd the command line left unset from the
// project file, and hands the corpus flags the project's exclusions.
// Commands that never read settings (version, healthcheck, init,
// completion) skip the file, so a broken one cannot stop them.
func applyProject(cmd *cobra.Command, f *Factory) error {
	if cmd.Annotations[annotationNoProject] != "" {
		return nil
	}
	cfg, err := f.project()
	if err != nil {
		return err
	}
	if cfg == nil {
		return nil
	}
	f.proj.filled = map[string]diag.Pos{}
	fs := cmd.Flags()
	for _, m := range projectFlags {
		fl := fs.Lookup(m.flag)
		v := m.value(cfg)
		if fl == nil || fl.Changed || v == "" || (m.flag == "lang" && fl.DefValue == "") {
			continue
		}
		if err := fs.Set(m.flag, v); err != nil {
			return usageError{fmt.Errorf("%s: %s: %w", cfg.Pos[m.key], m.key, err)}
		}
		f.proj.filled[m.flag] = cfg.Pos[m.key]
		// Set marks the flag as given: say where it was, so that a
		// problem with its value names the file's key, not a flag
		// nobody typed (see fromProjectFile).
		if fl.Annotations == nil {
			fl.Annotations = map[string][]string{}
		}
		fl.Annotations[annotationFromProject] = []string{cfg.Pos[m.key].String(), m.key}
	}
	if fl := fs.Lookup("corpus"); fl != nil {
		if cv, ok := fl.Value.(*corpusValue); ok {
			cv.c.proj = f.proj.cfg
		}
	}
	return nil
}

// warnNoCorpus says on standard error when a project file applies but
// names no corpus and the command falls back to the embedded sample: a
// team's questions would otherwise meet the sample's subjects ("unknown
// subject meals; the corpus's subjects are lodging, …") with nothing to
// say why. Commands whose arguments name corpus folders (lint) are left
// alone when given some.
func warnNoCorpus(cmd *cobra.Command, f *Factory, args []string) {
	cfg := f.proj.cfg
	fl := cmd.Flags().Lookup("corpus")
	if cfg == nil || cfg.Corpus != "" || fl == nil || fl.Changed || (cmd.Name() == "lint" && len(args) > 0) || cmd.Name() == "impact" {
		return
	}
	fmt.Fprintf(f.ErrOut, "ka2: warning: %s names no corpus, so this command reads the embedded sample corpus; add corpus: FOLDER to it, or pass --corpus\n",
		filepath.ToSlash(cfg.Path))
}

// annotationFromProject marks a flag the project file set, with where
// and under which key.
const annotationFromProject = "ka2/from-project"

// fromProjectFile returns where the project file set the flag name, as
// path:line:col, and its key there, when the file (not the command line)
// set it.
func fromProjectFile(fs *pflag.FlagSet, name string) (pos, key string, ok bool) {
	if fs == nil {
		return "", "", false
	}
	fl := fs.Lookup(name)
	if fl == nil {
		return "", "", false
	}
	a := fl.Annotations[annotationFromProject]
	if len(a) != 2 {
		return "", "", false
	}
	return a[0], a[1], true
}

// annotationNoProject marks a command that reads no project file.
const annotationNoProject = "ka2/no-project"

// skipProject marks cmd and returns it.
func skipProject(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationNoProject] = "yes"
	return cmd
}

// corpusValue is the --corpus flag of the commands that take one folder:
// a string that also knows the corpusFlags it belongs to, so that the
// project file's exclusions reach the load.
type corpusValue struct{ c *corpusFlags }

func (v *corpusValue) Set(s string) error { v.c.Corpus = s; return nil }
func (v *corpusValue) String() string     { return v.c.Corpus }
func (v *corpusValue) Type() string       { return "string" }

var _ pflag.Value = (*corpusValue)(nil)
