package contract

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/selector"
)

// Config is what a Builder is made from, named the way a person names it on
// the command line (`ka2 build`) or in a regression case file: files by path,
// and budget choices of which any may be left unset to take the contract
// definition's default. Both front ends go through Config, so a case file
// and a command line that say the same thing build the same bytes.
type Config struct {
	// Corpus is the policy files (see corpus.Folder and corpus.Embedded).
	// It must be set: the zero Location is a ConfigError that wraps
	// corpus.ErrNoCorpus.
	Corpus corpus.Location
	// Contract is the definition file; its content file is looked up beside
	// it. "" means the embedded ka2-context-contract-v1 definition.
	Contract string
	// Content, when set, is the content file (instruction, worked example
	// and refusal phrases per language) used instead of the one the
	// definition names: a project's own example, citing its own corpus.
	Content string
	// Counter names the budget counter; "" means the definition's default.
	Counter string
	// Capacity, Reserve and Wrapper replace the definition's limits for the
	// counter when they are not nil.
	Capacity, Reserve, Wrapper *int
	// WrapperFor, when set, is the framing a model API adds around the
	// input, counted with the resolved counter (render.Provider's
	// Wrapper): it replaces Wrapper, so that the limits checked are the
	// ones the build uses.
	WrapperFor func(budget.Counter) int
}

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
// corpus.Location.Load): once ctx is done it returns ctx.Err().
func (c Config) BuilderContext(ctx context.Context) (*Builder, error) {
	def, err := c.Definition()
	if err != nil {
		return nil, err
	}
	counter, limits, err := c.Budget(def)
	if err != nil {
		return nil, err
	}
	corp, err := c.Corpus.Load(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, &ConfigError{SettingCorpus, err}
	}
	return &Builder{Definition: def, Index: selector.NewIndex(corp), Counter: counter, Limits: limits, CorpusName: c.Corpus.Name}, nil
}

// Location names the corpus as traces record it: Corpus.Name.
func (c Config) Location() string { return c.Corpus.Name }

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
	if c.WrapperFor != nil {
		limits.Wrapper = c.WrapperFor(counter)
	}
	if err := limits.Validate(); err != nil {
		return nil, budget.Limits{}, &ConfigError{SettingLimits, err}
	}
	return counter, limits, nil
}

// LoadDefinition reads a contract definition file and the content file it
// names, which is looked up beside it. An empty path gives Default().
// Problems in either file are a ConfigError of SettingContract holding
// them as ParseDefinition reports them, named by the files' paths.
func LoadDefinition(file string) (*Definition, error) {
	return LoadDefinitionContent(file, "")
}

// Definition loads the definition c names, with c.Content in place of its
// content file when set (see LoadDefinitionContent).
func (c Config) Definition() (*Definition, error) {
	return LoadDefinitionContent(c.Contract, c.Content)
}

// LoadDefinitionContent is LoadDefinition, reading the instruction and
// example texts from contentFile instead of the file the definition names
// when contentFile is not "". file "" is the embedded definition. The
// Definition's ContentFile is then contentFile as given.
func LoadDefinitionContent(file, contentFile string) (*Definition, error) {
	if file == "" && contentFile == "" {
		return Default(), nil
	}
	fail := func(err error) (*Definition, error) { return nil, &ConfigError{SettingContract, err} }
	defJSON, defName := ka2.ContractJSON, ka2.ContractFile
	if file != "" {
		var err error
		if defJSON, err = inputfile.ReadFile(file, inputfile.MaxSize); err != nil {
			return fail(fmt.Errorf("read contract: %w", err))
		}
		defName = filepath.ToSlash(file)
	}
	p := newDefinitionParser(defName)
	p.definition(defJSON)
	if contentFile != "" {
		data, err := inputfile.ReadFile(contentFile, inputfile.MaxSize)
		if err != nil {
			return fail(fmt.Errorf("read contract content: %w", err))
		}
		p.contentFile(filepath.ToSlash(contentFile), data)
		d, err := p.result()
		if err != nil {
			return fail(err)
		}
		d.ContentFile = filepath.ToSlash(contentFile)
		return d, nil
	}
	name := p.d.ContentFile
	if name == "" {
		// Not written, or written empty: no file is named. A value that is
		// not a string is reported already.
		if v := p.top.Value("content"); p.top != nil && (v == nil || strict.IsNull(v) || v.Tag == "!!str") {
			at := v
			if at == nil {
				at = p.top.Node
			}
			p.def.Report(at, CodeDefinitionMissingKey, diag.Fix(`name the content file beside it, such as "content": "`+ka2.ContentFile+`"`),
				definitionPrefix+`no content file named in "content"`)
		}
		_, err := p.result()
		return fail(err)
	}
	contentPath := filepath.Join(filepath.Dir(file), filepath.FromSlash(name))
	content, err := inputfile.ReadFile(contentPath, inputfile.MaxSize)
	if err != nil {
		return fail(fmt.Errorf("read contract content: %w", err))
	}
	p.contentFile(filepath.ToSlash(contentPath), content)
	d, err := p.result()
	if err != nil {
		return fail(err)
	}
	return d, nil
}
