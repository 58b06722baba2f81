package cli

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// sampleLocation names the embedded corpus in traces and messages.
const sampleLocation = "embedded:sample"

// corpusFlags selects the corpus.
type corpusFlags struct {
	Corpus string
}

func (c *corpusFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.Corpus, "corpus", "", "folder of policy files (default: the embedded sample corpus)")
}

// location names the corpus for traces: the folder as given, or the sample.
func (c *corpusFlags) location() string {
	if c.Corpus == "" {
		return sampleLocation
	}
	return filepath.ToSlash(c.Corpus)
}

// load reads the corpus. Links are resolved inside the folder only, and
// problems name files as the user would type them: the folder they gave,
// joined with the path inside it.
func (c *corpusFlags) load() (*corpus.Corpus, error) {
	if c.Corpus == "" {
		return corpus.Load(corpus.Sample())
	}
	root, err := os.OpenRoot(c.Corpus)
	if err != nil {
		return nil, fmt.Errorf("open corpus: %w; check the --corpus folder", err)
	}
	defer root.Close()
	corp, err := corpus.Load(root.FS())
	var list corpus.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			e.Path = path.Join(filepath.ToSlash(c.Corpus), e.Path)
		}
	}
	return corp, err
}

// budgetFlags choose the contract definition, the counter and the limits.
// Unset limits come from the contract definition's defaults for the counter.
type budgetFlags struct {
	Contract string
	Counter  string
	Capacity int
	Reserve  int
	Wrapper  int

	set func(name string) bool // reports whether a flag was given
}

func (b *budgetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&b.Contract, "contract", "", "contract definition file (default: the embedded ka2-context-contract-v1.json)")
	fs.StringVar(&b.Counter, "counter", "", "what the budget counts: codepoint, cl100k_base or o200k_base (default: the contract's, codepoint)")
	fs.IntVar(&b.Capacity, "capacity", 0, "W, the capacity (default: the contract's for the counter; 1400 code points)")
	fs.IntVar(&b.Reserve, "reserve", 0, "R, room reserved for the output (default: the contract's; 200 code points)")
	fs.IntVar(&b.Wrapper, "wrapper", 0, "message-wrapper overhead added to the count (default: the contract's; 0 for codepoint, 7 tokens otherwise)")
	b.set = func(name string) bool { return fs.Changed(name) }
}

// definition reads the contract definition and the content file named in it,
// which is looked up beside the definition file.
func (b *budgetFlags) definition() (*contract.Definition, error) {
	if b.Contract == "" {
		return contract.Default(), nil
	}
	defJSON, err := os.ReadFile(b.Contract)
	if err != nil {
		return nil, fmt.Errorf("read contract: %w", err)
	}
	name, err := contract.ContentFileOf(defJSON)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Contract, err)
	}
	contentPath := filepath.Join(filepath.Dir(b.Contract), filepath.FromSlash(name))
	content, err := os.ReadFile(contentPath)
	if err != nil {
		return nil, fmt.Errorf("read contract content: %w", err)
	}
	d, err := contract.ParseDefinition(defJSON, content)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Contract, err)
	}
	return d, nil
}

// builder loads everything a build needs.
func (b *budgetFlags) builder(c *corpusFlags) (*contract.Builder, error) {
	def, err := b.definition()
	if err != nil {
		return nil, err
	}
	name := b.Counter
	if name == "" {
		name = def.Budget.DefaultCounter
	}
	counter, err := budget.Lookup(name)
	if err != nil {
		return nil, usageError{fmt.Errorf("--counter: %w", err)}
	}
	limits, err := def.Limits(name)
	if err != nil {
		return nil, err
	}
	if b.set("capacity") {
		limits.Capacity = b.Capacity
	}
	if b.set("reserve") {
		limits.Reserve = b.Reserve
	}
	if b.set("wrapper") {
		limits.Wrapper = b.Wrapper
	}
	if err := limits.Validate(); err != nil {
		return nil, usageError{err}
	}
	corp, err := c.load()
	if err != nil {
		return nil, err
	}
	return &contract.Builder{Definition: def, Index: selector.NewIndex(corp), Counter: counter, Limits: limits}, nil
}

// queryFlags are the question's subject, dates and language.
type queryFlags struct {
	Subjects []string
	Dates    []string
	Lang     string
}

func (q *queryFlags) register(fs *pflag.FlagSet, defaultLang, langHelp string) {
	fs.StringArrayVar(&q.Subjects, "subject", nil, "the question's subject, e.g. lodging (repeat for several)")
	fs.StringArrayVar(&q.Dates, "date", nil, "the date asked about, YYYY-MM-DD (repeat to compare dates)")
	fs.StringVar(&q.Lang, "lang", defaultLang, langHelp)
}

// query checks the flags and turns them into a selector query.
func (q *queryFlags) query() (selector.Query, error) {
	if len(q.Subjects) == 0 {
		return selector.Query{}, usageError{errors.New("--subject is required, e.g. --subject lodging")}
	}
	if len(q.Dates) == 0 {
		return selector.Query{}, usageError{errors.New("--date is required, e.g. --date 2026-09-14")}
	}
	out := selector.Query{Subjects: q.Subjects, Lang: q.Lang}
	for _, s := range q.Dates {
		d, err := corpus.ParseDate(s)
		if err != nil {
			return selector.Query{}, usageError{fmt.Errorf("--date %w", err)}
		}
		out.Dates = append(out.Dates, d)
	}
	return out, nil
}

// checkFormat refuses an output format the command does not have.
func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageError{fmt.Errorf("--format %q: use one of %v", format, allowed)}
}
