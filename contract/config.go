package contract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/yamlerr"
	"github.com/ka2/ka2/selector"
)

// SampleCorpus names the embedded sample corpus wherever a corpus location
// is written down: in a Config, in traces, in messages and in regression
// case files. The sample is only ever used when it is named.
const SampleCorpus = "embedded:sample"

// ErrNoCorpus is a Config that names no corpus: the zero Config.Corpus
// never silently means the embedded sample.
var ErrNoCorpus = errors.New("no corpus given")

// Config is what a Builder is made from, named the way a person names it on
// the command line (`ka2 build`) or in a regression case file: files by path,
// and budget choices of which any may be left unset to take the contract
// definition's default. Both front ends go through Config, so a case file
// and a command line that say the same thing build the same bytes.
type Config struct {
	// Corpus is where the policy files are: a folder, opened afresh on
	// every load (so a server follows a link swapped in under it), or
	// SampleCorpus for the embedded sample. It must be set: "" is a
	// ConfigError that wraps ErrNoCorpus.
	Corpus string
	// Contract is the definition file; its content file is looked up beside
	// it. "" means the embedded ka2-context-contract-v1 definition.
	Contract string
	// Counter names the budget counter; "" means the definition's default.
	Counter string
	// Capacity, Reserve and Wrapper replace the definition's limits for the
	// counter when they are not nil.
	Capacity, Reserve, Wrapper *int
	// Filter, when not nil, narrows the files the corpus folder is read
	// from (see CorpusFilter).
	Filter CorpusFilter
}

// CorpusFilter narrows what a load reads of the corpus folder dir (as
// given, not cleaned): it returns fsys, or fsys through corpus.Exclude
// with a project's exclusions. The folder's own .ka2ignore files apply
// either way. It is not called for the embedded sample.
type CorpusFilter func(dir string, fsys fs.FS) fs.FS

// Setting names the part of a Config that a ConfigError is about.
type Setting string

// The settings a ConfigError can name.
const (
	SettingCorpus   Setting = "corpus"   // the corpus cannot be read or has problems
	SettingContract Setting = "contract" // the definition or its content file
	SettingCounter  Setting = "counter"  // not a counter name
	SettingBudget   Setting = "budget"   // the definition sets no limits for the counter
	SettingLimits   Setting = "limits"   // capacity, reserve or wrapper out of range
)

// ConfigError is a Config that cannot make a Builder. Its message is the
// underlying error's, unchanged; Setting says which part to fix.
type ConfigError struct {
	Setting Setting
	Err     error
}

// Error returns the underlying message.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error, so that errors.Is and errors.As see
// for example a corpus.ErrorList or budget.ErrUnknownCounter.
func (e *ConfigError) Unwrap() error { return e.Err }

// Builder loads the definition, resolves the budget and loads and indexes
// the corpus, in that order, stopping at the first problem.
func (c Config) Builder() (*Builder, error) {
	return c.BuilderContext(context.Background())
}

// BuilderContext is Builder, with the corpus loaded under ctx (see
// LoadCorpusContext): once ctx is done it returns ctx.Err().
func (c Config) BuilderContext(ctx context.Context) (*Builder, error) {
	def, err := LoadDefinition(c.Contract)
	if err != nil {
		return nil, err
	}
	counter, limits, err := c.Budget(def)
	if err != nil {
		return nil, err
	}
	corp, err := LoadCorpusFiltered(ctx, c.Corpus, c.Filter)
	if err != nil {
		return nil, err
	}
	return &Builder{Definition: def, Index: selector.NewIndex(corp), Counter: counter, Limits: limits}, nil
}

// Location names the corpus as traces record it: the folder, slash
// separated, or SampleCorpus.
func (c Config) Location() string { return filepath.ToSlash(c.Corpus) }

// Budget resolves the counter and its limits: the named counter or the
// definition's default, the definition's limits for it, then the overrides.
func (c Config) Budget(def *Definition) (budget.Counter, budget.Limits, error) {
	name := c.Counter
	if name == "" {
		name = def.Budget.DefaultCounter
	}
	counter, err := budget.Lookup(name)
	if err != nil {
		return nil, budget.Limits{}, &ConfigError{SettingCounter, err}
	}
	limits, err := def.Limits(name)
	if err != nil {
		return nil, budget.Limits{}, &ConfigError{SettingBudget, err}
	}
	if c.Capacity != nil {
		limits.Capacity = *c.Capacity
	}
	if c.Reserve != nil {
		limits.Reserve = *c.Reserve
	}
	if c.Wrapper != nil {
		limits.Wrapper = *c.Wrapper
	}
	if err := limits.Validate(); err != nil {
		return nil, budget.Limits{}, &ConfigError{SettingLimits, err}
	}
	return counter, limits, nil
}

// LoadDefinition reads a contract definition file and the content file it
// names, which is looked up beside it. An empty path gives Default().
func LoadDefinition(file string) (*Definition, error) {
	if file == "" {
		return Default(), nil
	}
	fail := func(err error) (*Definition, error) { return nil, &ConfigError{SettingContract, err} }
	defJSON, err := inputfile.ReadFile(file, inputfile.MaxSize)
	if err != nil {
		return fail(fmt.Errorf("read contract: %w", err))
	}
	name, err := ContentFileOf(defJSON)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", file, err))
	}
	contentPath := filepath.Join(filepath.Dir(file), filepath.FromSlash(name))
	content, err := inputfile.ReadFile(contentPath, inputfile.MaxSize)
	if err != nil {
		return fail(fmt.Errorf("read contract content: %w", err))
	}
	d, err := ParseDefinition(defJSON, content)
	var ye *yamlerr.Error
	if errors.As(err, &ye) {
		// The position is in the content file: name that file.
		return fail(errors.New(diag.Format(diag.Pos{Path: filepath.ToSlash(contentPath), Line: ye.Line, Col: ye.Col}, "contract content: "+ye.Msg, ye.Hint)))
	}
	if err != nil {
		return fail(fmt.Errorf("%s: %w", file, err))
	}
	return d, nil
}

// LoadCorpus reads the corpus in folder dir, or the embedded sample when dir
// is SampleCorpus; "" is an error (ErrNoCorpus). Links are resolved inside
// the folder only, and problems name files as a person would type them: dir
// joined with the path inside it.
func LoadCorpus(dir string) (*corpus.Corpus, error) {
	return LoadCorpusWith(dir, corpus.Load)
}

// LoadCorpusContext is LoadCorpus, stopping early once ctx is done (see
// corpus.LoadContext); it then returns ctx.Err() and no corpus.
func LoadCorpusContext(ctx context.Context, dir string) (*corpus.Corpus, error) {
	return LoadCorpusWith(dir, func(fsys fs.FS) (*corpus.Corpus, error) { return corpus.LoadContext(ctx, fsys) })
}

// LoadCorpusFiltered is LoadCorpusContext, reading the folder through
// filter when it is not nil.
func LoadCorpusFiltered(ctx context.Context, dir string, filter CorpusFilter) (*corpus.Corpus, error) {
	return LoadCorpusWith(dir, func(fsys fs.FS) (*corpus.Corpus, error) {
		if filter != nil {
			fsys = filter(dir, fsys)
		}
		return corpus.LoadContext(ctx, fsys)
	})
}

// LoadCorpusWith is LoadCorpus, reading the files with load: a server
// passes a load that reuses what it read before. It is the one place that
// opens a corpus folder and names the files of its problems.
func LoadCorpusWith(dir string, load func(fs.FS) (*corpus.Corpus, error)) (*corpus.Corpus, error) {
	switch dir {
	case "":
		return nil, &ConfigError{SettingCorpus, &diag.Diagnostic{Message: ErrNoCorpus.Error(), Err: ErrNoCorpus,
			Hint: diag.Set("name a corpus folder in {corpus}, or " + SampleCorpus + " for the embedded sample")}}
	case SampleCorpus:
		return load(corpus.Sample())
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &ConfigError{SettingCorpus, &diag.Diagnostic{Message: "open corpus: " + err.Error(), Err: err,
			Hint: diag.Set("check the folder {corpus} names")}}
	}
	defer root.Close()
	corp, err := load(root.FS())
	if err != nil {
		return nil, corpusError(dir, err)
	}
	return corp, nil
}

// corpusError names the files of a corpus problem as a person would type
// them, dir joined with the path inside it; a cancellation stays as it is.
func corpusError(dir string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var list diag.List
	if errors.As(err, &list) {
		for _, e := range list {
			e.Path = path.Join(filepath.ToSlash(dir), e.Path)
		}
	}
	return &ConfigError{SettingCorpus, err}
}
