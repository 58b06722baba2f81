package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/project"
	"github.com/ka2/ka2/render"
	"github.com/ka2/ka2/selector"
)

// corpusFlags selects the corpus.
type corpusFlags struct {
	Corpus string
	// proj is the project file, whose exclusions apply (set before the
	// run; nil without one).
	proj *project.Config
}

func (c *corpusFlags) register(fs *pflag.FlagSet) {
	fs.Var(&corpusValue{c}, "corpus", "folder of policy files (default: the project's, else the embedded sample corpus)")
}

// source is the corpus the flags name (see openCorpus).
func (c *corpusFlags) source() corpus.Location { return openCorpus(c.Corpus, c.proj) }

// location names the corpus for traces: the folder as given, or the sample.
func (c *corpusFlags) location() string { return c.source().Name }

// load reads the corpus (see corpus.Location.Load).
func (c *corpusFlags) load(ctx context.Context) (*corpus.Corpus, error) {
	return c.source().Load(ctx)
}

// openCorpus is the one place that turns a corpus named on the command
// line, in the project file or in a case file into the files a command
// reads: "" (nothing named: the library has no default corpus) or
// corpus.SampleName is the embedded sample, anything else a folder,
// narrowed by the exclusions of proj (nil: no project file).
func openCorpus(dir string, proj *project.Config) corpus.Location {
	if dir == "" || dir == corpus.SampleName {
		return corpus.Embedded()
	}
	return corpus.Folder(dir).Narrow(func(fsys fs.FS) fs.FS { return proj.Filter(dir, fsys) })
}

// definitionVar registers --definition, the contract definition, and its
// old spelling --contract (one release; see renamedFlag).
func definitionVar(fs *pflag.FlagSet, p *string, usage string) {
	fs.StringVar(p, "definition", "", usage)
	renamedFlag(fs, "contract", "definition", "--definition (the contract definition; a built contract is the argument)")
}

// annotationRenamed marks a hidden flag kept under its old name for one
// release; its value says what replaces it.
const annotationRenamed = "ka2/renamed"

// renamedFlag marks old as a hidden spelling kept for one release, with
// instead the words for what replaces it (see renamedNotices). With to,
// the name of a flag already registered, old is registered as a second
// name for its value; with to "", old must already be registered (it
// stands for an argument, which the command reads itself).
func renamedFlag(fs *pflag.FlagSet, old, to, instead string) {
	if to != "" {
		fl := fs.Lookup(to)
		fs.Var(fl.Value, old, fl.Usage)
	}
	o := fs.Lookup(old)
	o.Hidden = true
	o.Annotations = map[string][]string{annotationRenamed: {to, instead}}
}

// renamedNotices prints one deprecation notice on w for each old flag
// spelling given, marks the new flag as given (so that the project file
// does not override it), and refuses both spellings at once.
func renamedNotices(fs *pflag.FlagSet, w io.Writer) error {
	var err error
	fs.Visit(func(fl *pflag.Flag) {
		r := fl.Annotations[annotationRenamed]
		if len(r) != 2 || err != nil {
			return
		}
		if to := fs.Lookup(r[0]); to != nil {
			if to.Changed {
				err = usageError{fmt.Errorf("--%s and --%s are the same input under its old and new name: give only --%s", fl.Name, to.Name, to.Name)}
				return
			}
			to.Changed = true
		}
		fmt.Fprintf(w, "ka2: --%s is deprecated and goes in the next release: use %s\n", fl.Name, r[1])
	})
	return err
}

// budgetFlags choose the contract definition, the counter and the limits.
// Unset limits come from the contract definition's defaults for the counter.
type budgetFlags struct {
	Contract string
	Content  string
	Counter  string
	Capacity int
	Reserve  int
	Wrapper  int

	set   func(name string) bool // reports whether a flag was given
	flags *pflag.FlagSet         // the command's flags: which it has, which ka2.yaml set

	// provider is the --provider whose framing replaces the wrapper ("" for
	// none), and counted the counter the limits were resolved for.
	provider string
	counted  budget.Counter
}

func (b *budgetFlags) register(fs *pflag.FlagSet) {
	definitionVar(fs, &b.Contract, "contract definition file (default: the embedded ka2-context-contract-v1.json)")
	fs.StringVar(&b.Content, "content", "", "instruction and worked-example file, in place of the one the contract names")
	enumVar(fs, &b.Counter, "counter", "", budget.Names(), "what the budget counts (default: the contract's, codepoint)")
	fs.IntVar(&b.Capacity, "capacity", 0, "W, the capacity, 1..100000000 (default: the contract's for the counter; 1600 code points)")
	fs.IntVar(&b.Reserve, "reserve", 0, "R, room reserved for the output, 0..capacity-1 (default: the contract's; 200 code points)")
	fs.IntVar(&b.Wrapper, "wrapper", 0, "message-wrapper overhead added to the count, 0..capacity-1 (default: the contract's; 0 for codepoint, 7 tokens otherwise)")
	b.set = func(name string) bool { return fs.Changed(name) }
	b.flags = fs
}

// config turns the flags into the library's build configuration; flags
// not given stay unset, so the definition's defaults apply.
func (b *budgetFlags) config(c *corpusFlags) contract.Config {
	cfg := contract.Config{Corpus: c.source(), Contract: b.Contract, Content: b.Content, Counter: b.Counter, WrapperFor: b.wrapperFor()}
	if b.set("capacity") {
		cfg.Capacity = &b.Capacity
	}
	if b.set("reserve") {
		cfg.Reserve = &b.Reserve
	}
	if b.set("wrapper") {
		cfg.Wrapper = &b.Wrapper
	}
	return cfg
}

// wrapperFor is the --provider's framing, which replaces the wrapper in
// the limits checked, or nil without a provider. It notes the counter, so
// that a provider given a counter it cannot count with is told so first.
func (b *budgetFlags) wrapperFor() func(budget.Counter) int {
	if b.provider == "" {
		return nil
	}
	p, err := render.Lookup(b.provider)
	w, ok := p.(interface{ Wrapper(budget.Counter) int })
	if err != nil || !ok {
		return nil
	}
	return func(c budget.Counter) int {
		b.counted = c
		return w.Wrapper(c)
	}
}

// builder loads everything a build needs (see contract.Config.Builder).
// A bad counter name or limits are usage errors.
func (b *budgetFlags) builder(ctx context.Context, c *corpusFlags) (*contract.Builder, error) {
	bld, err := b.config(c).BuilderContext(ctx)
	if err != nil {
		return nil, b.usage(err)
	}
	return bld, nil
}

// usage words a counter or limits problem of the configuration as a usage
// error naming the flags; other errors are returned as they are.
func (b *budgetFlags) usage(err error) error {
	var ce *contract.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	switch ce.Setting {
	case contract.SettingCounter:
		return usageError{fmt.Errorf("--counter: %w", ce.Err)}
	case contract.SettingLimits:
		if b.provider != "" && b.counted != nil && b.counted.Name() == "codepoint" {
			return usageError{fmt.Errorf("--provider %s counts tokens: pass --counter o200k_base or --counter cl100k_base", b.provider)}
		}
		var list budget.RangeErrors
		if !errors.As(ce.Err, &list) {
			return usageError{ce.Err}
		}
		msgs := make([]string, len(list))
		for i, re := range list {
			msgs[i] = b.rangeError(re).Error()
		}
		return usageError{errors.New(strings.Join(msgs, "; "))}
	}
	return err
}

// rangeError words a limit out of range with what set it: a flag, the
// project file's key (at its path:line:col), a provider's framing, or the
// contract's default; a fix names only flags the command has.
func (b *budgetFlags) rangeError(re *budget.RangeError) error {
	flag := "--" + re.Limit
	want := fmt.Sprintf("want %d..%d", re.Min, re.Max)
	if re.Capacity > 0 {
		switch pos, key, ok := fromProjectFile(b.flags, budget.LimitCapacity); {
		case ok:
			want += fmt.Sprintf(" (smaller than %s %d, at %s)", key, re.Capacity, pos)
		case b.set(budget.LimitCapacity):
			want += fmt.Sprintf(" (smaller than --capacity %d)", re.Capacity)
		default:
			want += fmt.Sprintf(" (smaller than the capacity, the contract's default %d)", re.Capacity)
		}
	}
	if re.Limit == budget.LimitWrapper && b.provider != "" {
		return fmt.Errorf("--provider %s frames the messages with %d tokens, which does not fit: %s; raise --capacity", b.provider, re.Got, want)
	}
	if pos, key, ok := fromProjectFile(b.flags, re.Limit); ok {
		return fmt.Errorf("%s: %s %d does not fit: %s; change %s in %s, or pass %s", pos, key, re.Got, want, key, project.FileName, flag)
	}
	if !b.set(re.Limit) {
		fix := "raise --capacity"
		if b.flags == nil || b.flags.Lookup(re.Limit) != nil {
			fix = "set " + flag + ", or " + fix
		}
		return fmt.Errorf("the contract's default %s %d does not fit: %s; %s", flag, re.Got, want, fix)
	}
	return fmt.Errorf("invalid value \"%d\" for %s: %s", re.Got, flag, want)
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

// The usage errors of a question's missing subject or date, as the query
// flags and a request file's settings (settingUsage) report them.
var (
	errNoSubject = usageError{errors.New("--subject is required, e.g. --subject lodging")}
	errNoDate    = usageError{errors.New("--date is required, e.g. --date 2026-09-14")}
)

// query checks the flags and turns them into a selector query.
func (q *queryFlags) query() (selector.Query, error) {
	if len(q.Subjects) == 0 {
		return selector.Query{}, errNoSubject
	}
	if len(q.Dates) == 0 {
		return selector.Query{}, errNoDate
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
