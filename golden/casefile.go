package golden

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ka2/ka2/internal/diag"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/selector"
)

// File is one parsed case file.
type File struct {
	// Path is the file's path as it was read, slash-separated.
	Path  string
	Cases []*Case
}

// Case is one question whose build output is pinned by a golden file.
type Case struct {
	// File is the case file's path, slash-separated; Line is where the case
	// starts in it.
	File string
	Line int
	Name string

	Question        string
	Subjects        []string
	Dates           []corpus.Date
	Lang            string
	Short           bool
	RequireEvidence bool
	// Items and Promote are the case's extra typed items and their
	// promotions, read by the decoder of request documents
	// (contract.ParseRequestNode), so a case takes them exactly as
	// `ka2 build --request` does.
	Items   []contract.RequestItem
	Promote []contract.Promotion
	// Config is the corpus, contract and budget the case builds with, with
	// paths resolved against the case file's folder. An empty Corpus is the
	// embedded sample.
	Config contract.Config
	Expect Expect

	// Golden is the path of the case's golden file (see Path).
	Golden string

	key    string // shard key: the file's path below its root, NUL, the name
	golden inTree // Golden inside its case tree
	// goldenShown is golden.shown(), worked out once by Load.
	goldenShown string
	pos         map[string]position // where each setting that applies to the case was written
	builder     *contract.Builder   // set by Load
	// paths is where the builder's contracts hold text (textPathsOf),
	// worked out once per definition when Load sets builder: per case
	// it was 4% of the allocations and 2.6% of the CPU of a run
	// (ka2perf regress -n 20000).
	paths *textPaths
}

// Expect holds a case's quick expectations. They are checked on every run,
// and `--update` never makes a failed one pass.
type Expect struct {
	// CheckSources says whether Sources is an expectation; `sources: []`
	// expects that no source applies.
	CheckSources bool
	// Sources are the selected source IDs, exactly and in contract order.
	Sources []string
	// Error is the kind of error the build must fail with; "" expects
	// nothing in particular.
	Error ErrorKind
	// Answer lists numbers or phrases a generator's answer must contain.
	// regress ignores it; ka2 eval checks it.
	Answer []string
}

// ErrorKind names how a build failed, as `ka2 build --error-format json`
// prints it in "kind". The empty kind is a successful build (a contract).
type ErrorKind string

// The error kinds a golden can hold and `expect: error:` can name.
// KindContextType is a request item or promotion the provenance policy
// refused (exit 5).
const (
	KindBudgetExceeded ErrorKind = "budget_exceeded"
	KindNoEvidence     ErrorKind = "no_evidence"
	KindBadInput       ErrorKind = "bad_input"
	KindContextType    ErrorKind = "context_type"
)

var errorKinds = []ErrorKind{KindBudgetExceeded, KindNoEvidence, KindBadInput, KindContextType}

// SampleCorpus is how a case file names the embedded sample corpus
// explicitly; leaving `corpus` out means the same.
const SampleCorpus = corpus.SampleName

// DefaultLang is the language of a case that sets none, as for `ka2 build`.
const DefaultLang = "en"

// The keys of a case file, at each level.
var (
	settingKeys = []string{"corpus", "contract", "content", "subject", "subjects", "lang", "counter", "capacity", "reserve", "wrapper", "short", "require_evidence"}
	topMap      = &strict.Map{What: "the case file", Keys: keys("defaults", "cases")}
	defaultsMap = &strict.Map{What: "defaults", Keys: keys(settingKeys...)}
	// items and promote are a case's own, as a request document's are:
	// promote numbers the case's items.
	caseMap   = &strict.Map{What: "a case", Keys: keys(append([]string{"name", "question", "dates", "expect", "items", "promote"}, settingKeys...)...)}
	expectMap = &strict.Map{What: "expect", Keys: keys("sources", "error", "answer")}
)

// keys declares names as keys that take any value: a case file's values
// are checked, and their problems worded, one by one.
func keys(names ...string) []strict.Key {
	out := make([]strict.Key, len(names))
	for i, n := range names {
		out[i] = strict.Key{Name: n}
	}
	return out
}

// caseName is what a case name may be: it becomes a file name, so it is
// kept to characters that are safe on every system.
var caseName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// digits is a whole number in decimal, of any size.
var digits = regexp.MustCompile(`^[-+]?[0-9]+$`)

// maxNameLen keeps golden file names well within file-system limits.
const maxNameLen = 120

// Path returns where the golden file of case name in case file file
// lives: beside the case file, in testdata/golden/STEM/NAME.golden, where
// STEM is the case file's name without ".yaml" — the layout goldie uses for
// Go tests, so the same habits (and -update) apply.
func Path(file, name string) string {
	file = filepath.ToSlash(file)
	dir, base := path.Split(file)
	stem := strings.TrimSuffix(base, ".yaml")
	return path.Join(dir, "testdata", "golden", stem, name+".golden")
}

// PendingSuffix is appended to a golden's path for a pending golden, the
// output a run saw but did not accept (`ka2 regress --pending`).
const PendingSuffix = ".new"

// Request is the build request of the case, with its items as
// candidates (see contract.RequestFile.Candidates).
func (c *Case) Request() contract.Request {
	req := contract.Request{
		Query:           selector.Query{Subjects: slices.Clone(c.Subjects), Dates: slices.Clone(c.Dates), Lang: c.Lang},
		Question:        c.Question,
		Short:           c.Short,
		RequireEvidence: c.RequireEvidence,
		Promote:         slices.Clone(c.Promote),
	}
	if len(c.Items) > 0 {
		req.Items = (&contract.RequestFile{Items: c.Items}).Candidates()
	}
	return req
}

// String names the case as "file:line name".
func (c *Case) String() string { return fmt.Sprintf("%s:%d %s", c.File, c.Line, c.Name) }

type position struct{ line, col int }

// ParseFile reads one case file. file is the path it was read from: it is
// used in errors, for the golden paths, and to resolve the corpus and
// contract paths, which are relative to the case file's folder. ParseFile
// reads no other file; Load also loads each case's corpus and contract.
//
// On any problem it returns an diag.List of every problem found, and no
// cases: a file with one broken case is broken as a whole.
func ParseFile(file string, data []byte) (*File, error) {
	p := &fileParser{path: filepath.ToSlash(file)}
	f := p.parse(data)
	if err := p.errs.Mark(ErrBadCases); err != nil {
		return nil, err
	}
	return f, nil
}

type fileParser struct {
	path string
	errs diag.List
}

func (p *fileParser) errorf(n *yaml.Node, code diag.Code, hint, format string, args ...any) {
	e := &diag.Diagnostic{Pos: diag.Pos{Path: p.path}, Code: code, Message: fmt.Sprintf(format, args...), Hint: diag.Fix(hint)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

func (p *fileParser) parse(data []byte) *File {
	root, problem := strict.ParseYAML(p.path, data, strict.YAMLWords{Code: CodeSyntax,
		Hint: diag.Fix("fix the YAML syntax; indent with spaces, and quote text that contains ': ' or starts with a special character")})
	switch {
	case problem != nil:
		p.errs = append(p.errs, problem)
		return nil
	case root == nil:
		p.errs = append(p.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p.path}, Code: CodeSyntax, Message: "the case file is empty", Hint: diag.Fix("list cases under cases:, each with name, question, subject and dates")})
		return nil
	}
	top := p.mapping(root, topMap)
	if top == nil {
		return nil
	}
	f := &File{Path: p.path}
	var defaults map[string]*yaml.Node
	if n := top["defaults"]; n != nil {
		defaults = p.mapping(n, defaultsMap)
		if defaults["subject"] != nil && defaults["subjects"] != nil {
			p.errorf(defaults["subjects"], CodeBadValue, "give subject or subjects, not both", "defaults has both subject and subjects")
		}
	}
	list := strict.Deref(top["cases"])
	switch {
	case list == nil || strict.IsNull(list):
		p.errorf(root, CodeMissingKey, "add cases: with at least one case (name, question, subject, dates)", "no cases")
		return nil
	case list.Kind != yaml.SequenceNode:
		p.errorf(list, CodeBadValue, "write cases as a list of mappings, each starting with '- name:'", "cases is not a list")
		return nil
	case len(list.Content) == 0:
		p.errorf(list, CodeMissingKey, "add at least one case, or delete the file", "cases is empty")
		return nil
	}
	seen := map[string]*yaml.Node{}
	for _, item := range list.Content {
		c := p.parseCase(strict.Deref(item), defaults)
		if c == nil {
			continue
		}
		lower := strings.ToLower(c.Name)
		if first := seen[lower]; first != nil {
			p.errorf(item, CodeDuplicateCase, "give every case in a file its own name (names are compared ignoring case, as some file systems do)",
				"case name %q is already used on line %d", c.Name, first.Line)
			continue
		}
		seen[lower] = item
		f.Cases = append(f.Cases, c)
	}
	return f
}

// absent reports a value that is missing, null or the empty string.
func absent(n *yaml.Node) bool {
	n = strict.Deref(n)
	return n == nil || strict.IsNull(n) || (n.Kind == yaml.ScalarNode && n.Value == "")
}

// caseWords words the structural problems of a case file.
func caseWords(is strict.Issue, d *diag.Diagnostic) {
	what := is.Map.What
	switch is.Problem {
	case strict.NotMapping:
		d.Code, d.Message, d.Hint = CodeBadValue, what+" is not a mapping", diag.Fix("write key: value pairs, one per line")
	case strict.KeyNotScalar:
		d.Code, d.Message, d.Hint = CodeBadValue, "a key in "+what+" is not a plain word", diag.Fix("keys are plain words such as name or dates")
	case strict.UnknownKey:
		d.Code, d.Message = CodeUnknownKey, fmt.Sprintf("unknown key %q in %s", is.Key, what)
		d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("the keys here are "+strings.Join(is.Known(), ", ")))
	case strict.DuplicateKey:
		d.Code, d.Message, d.Hint = CodeDuplicateKey, fmt.Sprintf("%s is already set on line %d", is.Key, is.First.Line), diag.Fix("write each key once")
	}
}

// mapping reads a mapping's keys through the strict decoder, refusing
// unknown, reserved and repeated ones, and returns the values by key.
func (p *fileParser) mapping(n *yaml.Node, m *strict.Map) map[string]*yaml.Node {
	d := &strict.Decoder{Path: p.path, Words: caseWords}
	f := d.Mapping(n, m)
	p.errs = append(p.errs, d.Diags...)
	if f == nil {
		return nil
	}
	values := map[string]*yaml.Node{}
	for _, e := range f.All() {
		values[e.Name] = e.Value
	}
	return values
}

// lookup finds a setting in the case, then in the defaults.
func lookup(key string, own, defaults map[string]*yaml.Node) *yaml.Node {
	if n := own[key]; n != nil {
		return n
	}
	return defaults[key]
}

func (p *fileParser) parseCase(item *yaml.Node, defaults map[string]*yaml.Node) *Case {
	before := len(p.errs)
	own := p.mapping(item, caseMap)
	if own == nil {
		return nil
	}
	c := &Case{File: p.path, Line: item.Line, pos: map[string]position{}}
	name, ok := p.str(own["name"], "name")
	switch {
	case !ok:
		if absent(own["name"]) {
			p.errorf(item, CodeMissingKey, "give the case a name: it names its golden file", "case has no name")
		}
	case !caseName.MatchString(name) || len(name) > maxNameLen:
		p.errorf(own["name"], CodeBadValue, "use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 120 characters (it becomes a file name)",
			"case name %q cannot name a golden file", name)
	default:
		c.Name = name
	}
	label := "case"
	if c.Name != "" {
		label = "case " + c.Name
	}
	if c.Question, ok = p.str(own["question"], "question"); (!ok && absent(own["question"])) || (ok && strings.TrimSpace(c.Question) == "") {
		p.errorf(item, CodeMissingKey, "write the question as the user would ask it", "%s has no question", label)
	}
	// subjects is a request document's name for a list of subjects; a
	// case takes either, as a request does, the case's own over the
	// defaults'.
	key, n := "subject", lookup("subject", own, defaults)
	if own["subjects"] != nil || (own["subject"] == nil && defaults["subjects"] != nil) {
		key, n = "subjects", lookup("subjects", own, defaults)
	}
	switch {
	case own["subject"] != nil && own["subjects"] != nil:
		p.errorf(own["subjects"], CodeBadValue, "give subject or subjects, not both", "%s has both subject and subjects", label)
	case n == nil:
		p.errorf(item, CodeMissingKey, "set subject in the case or under defaults, e.g. subject: lodging", "%s has no subject", label)
	default:
		c.Subjects = p.strList(n, key, true)
	}
	c.Dates = p.dates(own["dates"], item, label)
	c.Lang = DefaultLang
	if n := lookup("lang", own, defaults); n != nil {
		if s, ok := p.setting(n, "lang"); ok {
			c.Lang = s
		}
	}
	c.Short = p.boolean(lookup("short", own, defaults), "short")
	c.RequireEvidence = p.boolean(lookup("require_evidence", own, defaults), "require_evidence")
	p.config(c, own, defaults)
	p.items(c, own)
	if n := own["expect"]; n != nil {
		p.expect(c, n)
	}
	if len(p.errs) > before {
		return nil
	}
	c.Golden = Path(p.path, c.Name)
	c.key = p.path + "\x00" + c.Name
	// Load names the tree the file was found in; alone, a case file's
	// tree is its own folder.
	dir, base := path.Split(p.path)
	c.golden = inTree{root: filepath.FromSlash(cmp.Or(dir, ".")), rel: Path(base, c.Name)}
	return c
}

// config reads the corpus, contract and budget settings.
func (p *fileParser) config(c *Case, own, defaults map[string]*yaml.Node) {
	dir := path.Dir(p.path)
	resolve := func(v string) string {
		v = filepath.ToSlash(v)
		if path.IsAbs(v) || filepath.IsAbs(v) {
			return v
		}
		return path.Join(dir, v)
	}
	mark := func(key string, n *yaml.Node) { c.pos[key] = position{n.Line, n.Column} }
	if n := lookup("corpus", own, defaults); n != nil {
		mark("corpus", n)
		if v, ok := p.setting(n, "corpus"); ok && v != SampleCorpus {
			c.Config.Corpus = corpus.Folder(filepath.FromSlash(resolve(v)))
		}
	}
	if n := lookup("contract", own, defaults); n != nil {
		mark("contract", n)
		if v, ok := p.setting(n, "contract"); ok {
			c.Config.Contract = resolve(v)
		}
	}
	if n := lookup("content", own, defaults); n != nil {
		mark("content", n)
		if v, ok := p.setting(n, "content"); ok {
			c.Config.Content = resolve(v)
		}
	}
	if n := lookup("counter", own, defaults); n != nil {
		mark("counter", n)
		if v, ok := p.setting(n, "counter"); ok {
			if _, err := budget.Lookup(v); err != nil {
				p.errorf(n, CodeBadValue, "", "counter: %v", err)
			}
			c.Config.Counter = v
		}
	}
	// Each limit is range-checked here, where its position is known;
	// reserve and wrapper against the capacity once the contract's
	// default capacity is known too (Suite.resolve, at the key's
	// position).
	limits := []struct {
		key      string
		min, max int
		dst      **int
	}{
		{budget.LimitCapacity, 1, budget.MaxCapacity, &c.Config.Capacity},
		{budget.LimitReserve, 0, budget.MaxCapacity - 1, &c.Config.Reserve},
		{budget.LimitWrapper, 0, budget.MaxCapacity - 1, &c.Config.Wrapper},
	}
	for _, l := range limits {
		if n := lookup(l.key, own, defaults); n != nil {
			mark(l.key, n)
			if v, ok := p.integer(n, l.key, l.min, l.max); ok {
				*l.dst = &v
			}
		}
	}
}

// items reads the case's items and promote with the one decoder of request
// documents, at their positions in the case file.
func (p *fileParser) items(c *Case, own map[string]*yaml.Node) {
	req := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range []string{"items", "promote"} {
		if v := own[k]; v != nil {
			req.Content = append(req.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: v.Line, Column: v.Column}, v)
		}
	}
	if len(req.Content) == 0 {
		return
	}
	f, err := contract.ParseRequestNode(p.path, req)
	if err == nil {
		c.Items, c.Promote = f.Items, f.Promote
		return
	}
	list, ok := errors.AsType[diag.Errors[*contract.RequestError]](err)
	if !ok {
		list = diag.Errors[*contract.RequestError]{{Path: p.path, Msg: err.Error()}}
		if e, ok := errors.AsType[*contract.RequestError](err); ok {
			list[0] = e
		}
	}
	for _, e := range list {
		msg := e.Msg
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
		p.errs = append(p.errs, &diag.Diagnostic{Pos: diag.Pos{Path: e.Path, Line: e.Line, Col: e.Col}, Code: CodeBadValue, Message: msg, Hint: diag.Fix(e.Hint)})
	}
}

func (p *fileParser) expect(c *Case, n *yaml.Node) {
	m := p.mapping(n, expectMap)
	if m == nil {
		return
	}
	if s := m["sources"]; s != nil {
		c.Expect.CheckSources = true
		c.Expect.Sources = p.strList(s, "expect.sources", false)
	}
	if a := m["answer"]; a != nil {
		c.Expect.Answer = p.strList(a, "expect.answer", false)
	}
	if e := m["error"]; e != nil {
		v, ok := p.str(e, "expect.error")
		switch {
		case !ok:
		case !slices.Contains(errorKinds, ErrorKind(v)):
			p.errorf(e, CodeBadValue, "use one of "+kindList(), "expect.error %q is not an error kind", v)
		default:
			c.Expect.Error = ErrorKind(v)
		}
	}
}

func kindList() string {
	s := make([]string, len(errorKinds))
	for i, k := range errorKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// str reads a non-empty scalar. A missing or null value is reported by the
// caller, which knows whether the key is required.
func (p *fileParser) str(n *yaml.Node, key string) (string, bool) {
	n = strict.Deref(n)
	if n == nil || strict.IsNull(n) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, CodeBadValue, "write a single value", "%s is not a single value", key)
		return "", false
	}
	return n.Value, n.Value != ""
}

// setting reads a non-empty single value of a setting that has a default:
// an empty one is refused rather than taken to mean the default.
func (p *fileParser) setting(n *yaml.Node, key string) (string, bool) {
	v, ok := p.str(n, key)
	if !ok && absent(n) {
		p.errorf(n, CodeBadValue, "remove the key to use the default", "%s is empty", key)
	}
	return v, ok
}

// strList reads a list of non-empty strings; with scalarOK a single value
// is a list of one.
func (p *fileParser) strList(n *yaml.Node, key string, scalarOK bool) []string {
	n = strict.Deref(n)
	items := []*yaml.Node{n}
	switch {
	case n.Kind == yaml.SequenceNode:
		items = n.Content
	case !scalarOK:
		p.errorf(n, CodeBadValue, fmt.Sprintf("write a list, e.g. %s: [travel-v2]", key), "%s is not a list", key)
		return nil
	}
	out := []string{}
	for _, it := range items {
		it = strict.Deref(it)
		if it.Kind != yaml.ScalarNode || strict.IsNull(it) || strings.TrimSpace(it.Value) == "" {
			p.errorf(it, CodeBadValue, "write each entry as a plain value", "%s has an empty or nested entry", key)
			continue
		}
		out = append(out, it.Value)
	}
	if len(out) == 0 && scalarOK {
		p.errorf(n, CodeMissingKey, "name at least one", "%s is empty", key)
	}
	return out
}

func (p *fileParser) dates(n, item *yaml.Node, label string) []corpus.Date {
	n = strict.Deref(n)
	if n == nil || strict.IsNull(n) {
		p.errorf(item, CodeMissingKey, "list the dates asked about, e.g. dates: [2026-09-14]", "%s has no dates", label)
		return nil
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errorf(n, CodeBadValue, "write a list with at least one date, e.g. dates: [2026-09-14]", "dates is not a list of dates")
		return nil
	}
	var out []corpus.Date
	for _, it := range n.Content {
		it = strict.Deref(it)
		if it.Kind != yaml.ScalarNode {
			p.errorf(it, CodeBadValue, "write each date as YYYY-MM-DD", "a date is not a single value")
			continue
		}
		d, err := corpus.ParseDate(it.Value)
		if err != nil {
			p.errorf(it, CodeBadValue, "", "date %v", err)
			continue
		}
		out = append(out, d)
	}
	return out
}

// integer reads a whole number in lo..hi.
func (p *fileParser) integer(n *yaml.Node, key string, lo, hi int) (int, bool) {
	n = strict.Deref(n)
	// yaml.v3 tags digits too long for an int64 as a float; they are a
	// whole number out of range, not a fraction.
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && !(n.Tag == "!!float" && digits.MatchString(n.Value))) {
		p.errorf(n, CodeBadValue, "write a whole number", "%s %q is not a whole number", key, n.Value)
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		p.errorf(n, CodeBadValue, "write a whole number in decimal digits", "%s %q is not a whole number", key, n.Value)
		return 0, false
	}
	if err != nil || v < lo || v > hi {
		p.errorf(n, CodeBadValue, "", "%s %s is out of range %d..%d", key, n.Value, lo, hi)
		return 0, false
	}
	return v, true
}

func (p *fileParser) boolean(n *yaml.Node, key string) bool {
	n = strict.Deref(n)
	if n == nil {
		return false
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		p.errorf(n, CodeBadValue, "write true or false", "%s %q is not true or false", key, n.Value)
	}
	return b
}
