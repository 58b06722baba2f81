package lint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/parallel"
)

// Options say what Run lints and how. The zero Options lints every file
// with every rule at its default severity, except future_source, which needs
// Today.
type Options struct {
	// Today is the date future_source compares valid_from with: normally
	// the current date, which the caller resolves (the library never reads
	// the clock). The zero Date turns future_source off.
	Today corpus.Date

	// Config turns rules off and changes their severity; nil uses every
	// rule's default.
	Config *Config

	// ChangedOnly limits the report to the files listed in Changed. Every
	// other file is still read and parsed, so the rules that compare files
	// check the changed files against the whole corpus: an overlap between a
	// changed file and an unchanged one is found, and is reported at the
	// changed file.
	ChangedOnly bool

	// Changed lists the files to report on when ChangedOnly is set:
	// slash-separated paths relative to the corpus root. Paths that name no
	// policy file in the corpus (a deleted file, a README) are ignored; an
	// empty list gives an empty report.
	Changed []string

	// Base is the corpus as it was at the revision changes are compared
	// with (rooted like the linted corpus), for version_not_bumped; nil
	// turns that rule off.
	Base fs.FS
}

// ErrNoPolicyFiles reports a corpus root that holds no policy files.
var ErrNoPolicyFiles = errors.New("no policy files (*.md) found: point the linter at the folder that holds the policy files")

// Run lints every *.md file below the root of fsys and returns the findings.
// Files and folders whose names start with "." are skipped, as corpus.Load
// skips them. Pass an fs.FS from os.Root.FS so that a symbolic link that
// leaves the corpus is reported instead of read.
//
// Run reports every problem in every file. It returns an error only when it
// could not lint at all: the root cannot be read, it holds no policy
// files (ErrNoPolicyFiles), or ctx ended first (ctx.Err(): no file is read
// after that).
func Run(ctx context.Context, fsys fs.FS, opts Options) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	paths, walkFindings, err := walk(fsys)
	if err != nil {
		return Report{}, err
	}
	if len(paths) == 0 && len(walkFindings) == 0 {
		return Report{}, ErrNoPolicyFiles
	}
	inScope := opts.scope()
	files := make([]*file, len(paths))
	parallel.Do(ctx, len(paths), 0, func(i int) {
		f := &file{path: paths[i], inScope: inScope(paths[i]), opts: &opts}
		f.load(fsys)
		files[i] = f
	})
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	p := newPass(files, &opts)
	for _, r := range allRules {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		if r.corpus != nil {
			r.corpus(r, p)
		}
	}
	return p.report(walkFindings, files, inScope), nil
}

// scope says which files findings are reported about: every file, or with
// ChangedOnly those listed in Changed.
func (o *Options) scope() func(path string) bool {
	if !o.ChangedOnly {
		return func(string) bool { return true }
	}
	scope := make(map[string]bool, len(o.Changed))
	for _, p := range o.Changed {
		scope[path.Clean(strings.TrimPrefix(p, "./"))] = true
	}
	return func(p string) bool { return scope[p] }
}

// report gathers the findings of the walk, of each of files and of the
// corpus rules that Run keeps (see keep), sorted and without repeats,
// with the counts of files, sources and subjects.
func (p *pass) report(walkFindings []Finding, files []*file, inScope func(string) bool) Report {
	rep := Report{}
	keep := func(f Finding) {
		if sev, ok := p.keep(f, inScope); ok {
			f.Severity = sev
			rep.Findings = append(rep.Findings, f)
		}
	}
	for _, f := range walkFindings {
		keep(f)
	}
	ids := map[string]bool{}
	for _, fl := range files {
		if fl.inScope {
			rep.Files++
			if fl.src != nil {
				ids[fl.src.ID] = true
			}
		}
		for _, f := range fl.findings {
			keep(f)
		}
	}
	for _, f := range p.findings {
		keep(f)
	}
	rep.Sources = len(ids)
	slices.SortFunc(rep.Findings, compareFindings)
	rep.Findings = slices.CompactFunc(rep.Findings, func(a, b Finding) bool {
		return compareFindings(a, b) == 0 && slices.Equal(a.Related, b.Related)
	})
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	for _, g := range p.subjectGroups() {
		if len(rep.Subjects) == 0 || rep.Subjects[len(rep.Subjects)-1] != g.subject {
			rep.Subjects = append(rep.Subjects, g.subject)
		}
	}
	return rep
}

// keep says whether finding f is reported, and at which severity: about
// a file in scope, not turned off by the configuration or a disable
// comment in its file, nor in a file it relates to (a finding about two
// files is as much the other file's).
func (p *pass) keep(f Finding, inScope func(string) bool) (diag.Severity, bool) {
	r, ok := RuleByID(f.Rule())
	if !ok {
		panic("lint: finding of unknown rule " + f.Rule()) // a bug in this package
	}
	if !inScope(f.Path) {
		return 0, false
	}
	if fl := p.byPath[f.Path]; fl != nil && fl.disabled[f.Rule()] {
		return 0, false
	}
	sev := p.opts.Config.severity(r, f.Path)
	if sev == diag.SeverityOff {
		return 0, false
	}
	for _, rel := range f.Related {
		if fl := p.byPath[rel.Path]; fl != nil && fl.disabled[f.Rule()] || p.opts.Config.severity(r, rel.Path) == diag.SeverityOff {
			return 0, false
		}
	}
	return sev, true
}

// walk lists the policy files as corpus.Load reads them, and reports the
// entries it cannot read as findings. It fails only when the root itself
// cannot be read.
func walk(fsys fs.FS) ([]string, []Finding, error) {
	paths, errs := corpus.Files(fsys)
	var findings []Finding
	for _, e := range errs {
		if e.Path == "." || e.Path == "" {
			return nil, nil, fmt.Errorf("lint: cannot read the corpus: %s", e.Message)
		}
		findings = append(findings, Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: e.Path}, Code: diag.Code(ruleUnreadable.ID), Message: e.Message, Hint: e.Hint}})
	}
	return paths, findings, nil
}

// file is one policy file as the linter sees it: parsed when it could be,
// and always with its raw lines when it is valid UTF-8.
type file struct {
	path    string
	inScope bool // findings about this file are reported
	opts    *Options

	raw   []string // lines without terminators, BOM dropped; nil when unreadable or not UTF-8
	bom   bool     // starts with a UTF-8 byte order mark
	crlf  int      // first file line that ends in CRLF; 0 for none
	fmEnd int      // file line of the '---' that closes the front matter; 0 when none

	src        *corpus.Source  // nil when the file did not parse
	declaredID string          // source_id found in a file that did not parse
	disabled   map[string]bool // rules turned off by ka2lint:disable comments

	findings []Finding
}

// add records a finding about f.
func (f *file) add(r *Rule, line, col int, msg, hint string, related ...Location) {
	f.addHint(r, line, col, msg, diag.Fix(hint), related...)
}

// addHint records a finding about f with a structured hint.
func (f *file) addHint(r *Rule, line, col int, msg string, hint diag.Hint, related ...Location) {
	f.findings = append(f.findings, Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: f.path, Line: line, Col: col}, Code: diag.Code(r.ID), Severity: r.Severity, Message: msg, Hint: hint}, Related: related})
}

// load reads and parses the file, and runs the one-file rules when the file
// is in scope.
func (f *file) load(fsys fs.FS) {
	data, err := corpus.ReadListed(fsys, f.path) // listed by walk
	if err != nil {
		d := corpus.Unreadable(f.path, err)
		f.add(ruleUnreadable, 0, 0, d.Message, d.Hint.Text)
		return
	}
	f.scanRaw(data)

	src, err := corpus.Parse(f.path, data)
	if err != nil {
		list := diag.As(err)
		if len(list) == 0 {
			list = diag.List{{Pos: diag.Pos{Path: f.path}, Message: err.Error()}}
		}
		for _, e := range list {
			r := ruleForCode[e.Code]
			if r == nil {
				r = ruleParseError
			}
			f.add(r, e.Line, e.Col, e.Message, e.Hint.String())
			switch {
			case r == ruleUnknownKey:
				f.findings[len(f.findings)-1].Fixes = f.keyFix(e.Line, e.Hint.String())
			case e.Hint.Kind == diag.HintDidYouMean && e.Hint.Suggestion != "":
				f.findings[len(f.findings)-1].Fixes = f.valueFix(e.Line, e.Col, e.Hint.Suggestion)
			}
		}
		f.declaredID = f.scanSourceID()
	} else {
		f.src = src
	}
	f.scanDirectives()

	if !f.inScope {
		return
	}
	for _, r := range allRules {
		if r.file != nil {
			r.file(r, f)
		}
	}
}

// scanRaw splits valid UTF-8 into lines, noting a BOM, the first CRLF and
// the end of the front matter the way corpus.Parse finds it.
func (f *file) scanRaw(data []byte) {
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		data = data[3:]
		f.bom = true
	}
	if !utf8.Valid(data) {
		return
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		f.raw = []string{}
		return
	}
	f.raw = strings.Split(s, "\n")
	for i, l := range f.raw {
		if strings.HasSuffix(l, "\r") {
			f.raw[i] = l[:len(l)-1]
			if f.crlf == 0 {
				f.crlf = i + 1
			}
		}
	}
	if len(f.raw) == 0 || strings.TrimRight(f.raw[0], " \t") != "---" {
		return
	}
	for i := 1; i < len(f.raw); i++ {
		if strings.TrimRight(f.raw[i], " \t") == "---" {
			f.fmEnd = i + 1
			return
		}
	}
}

// frontMatter returns the raw front matter lines and the file line of the
// first one.
func (f *file) frontMatter() (lines []string, first int) {
	if f.fmEnd == 0 {
		return nil, 0
	}
	return f.raw[1 : f.fmEnd-1], 2
}

// scanSourceID finds the source_id a file that did not parse declares, so
// that other files naming it in supersedes are not told it does not exist.
func (f *file) scanSourceID() string {
	if id := f.rawValue("source_id"); corpus.ValidSourceID(id) {
		return id
	}
	return ""
}

// rawValue finds the value of a top-level "key: value" line in the front
// matter, for files that did not parse. It is "" when there is none.
func (f *file) rawValue(key string) string {
	lines, _ := f.frontMatter()
	for _, l := range lines {
		rest, ok := strings.CutPrefix(l, key+":")
		if !ok {
			continue
		}
		if i := strings.Index(rest, " #"); i >= 0 {
			rest = rest[:i]
		}
		return strings.Trim(strings.TrimSpace(rest), `"'`)
	}
	return ""
}

// body returns the body lines and the file line of the first: from the
// parsed source, or, for a file whose front matter did not parse but is
// delimited, from its raw lines, so that the body rules still check it.
func (f *file) body() (lines []string, first int, ok bool) {
	if f.src != nil {
		lines := make([]string, 0, f.src.NumLines())
		for _, l := range f.src.Lines() {
			lines = append(lines, l)
		}
		return lines, f.src.BodyLine, true
	}
	if f.fmEnd == 0 {
		return nil, 0, false
	}
	return f.raw[f.fmEnd:], f.fmEnd + 1, true
}

// unit returns the front matter's unit, parsed or scanned.
func (f *file) unit() string {
	if f.src != nil {
		return strings.TrimSpace(f.src.Unit)
	}
	return f.rawValue("unit")
}

// locate finds value written in the front matter at or after the line of
// key, for pointing at one item of a list. It falls back to the key.
func (f *file) locate(key, value string) corpus.Pos {
	if f.src == nil {
		return corpus.Pos{}
	}
	pos, _ := f.src.Keys.Get(key)
	lines, first := f.frontMatter()
	for i := max(pos.Line-first, 0); i < len(lines); i++ {
		if i > pos.Line-first && isKeyLine(lines[i]) {
			break
		}
		if col := tokenIndex(lines[i], value); col >= 0 {
			return corpus.Pos{Line: first + i, Col: utf8.RuneCountInString(lines[i][:col]) + 1}
		}
	}
	return pos
}

// isKeyLine reports whether a front matter line starts a new top-level key.
func isKeyLine(l string) bool {
	return l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '-' && l[0] != '#'
}

// tokenIndex returns the byte index of value in line where it is not part
// of a longer source_id, or -1.
func tokenIndex(line, value string) int {
	for off := 0; ; {
		i := strings.Index(line[off:], value)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(value)
		if (i == 0 || !isIDByte(line[i-1])) && (j == len(line) || !isIDByte(line[j])) {
			return i
		}
		off = i + 1
	}
}

func isIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// pos returns the position of a front matter key, or of the first key that
// is set among fallbacks, or line 1.
func (f *file) pos(keys ...string) corpus.Pos {
	if f.src != nil {
		for _, k := range keys {
			if p, ok := f.src.Keys.Get(k); ok {
				return p
			}
		}
	}
	return corpus.Pos{Line: 1, Col: 1}
}

// keyFix is the edit a did-you-mean hint of unknown_key asks for: the key
// written at line replaced by the suggestion.
// valueFix replaces the value written at line and col (a plain or quoted
// scalar, up to a ',', ']' or comment) with sug, keeping its quotes.
func (f *file) valueFix(line, col int, sug string) []Fix {
	if line < 1 || line > len(f.raw) || col < 1 {
		return nil
	}
	l := []rune(f.raw[line-1])
	if col > len(l) {
		return nil
	}
	rest := string(l[col-1:])
	var old string
	switch q := rest[0]; q {
	case '"', '\'':
		end := strings.IndexByte(rest[1:], q)
		if end < 0 {
			return nil
		}
		old, sug = rest[:end+2], string(q)+sug+string(q)
	default:
		end := strings.IndexAny(rest, ",]#")
		if end < 0 {
			end = len(rest)
		}
		old = strings.TrimRight(rest[:end], " \t")
	}
	if old == "" {
		return nil
	}
	return []Fix{{Title: "write " + old + " as " + sug, Path: f.path, Line: line, Col: col, Old: old, New: sug}}
}

func (f *file) keyFix(line int, hint string) []Fix {
	sug, ok := strings.CutPrefix(hint, "did you mean ")
	if !ok || line < 1 || line > len(f.raw) {
		return nil
	}
	sug = strings.TrimSuffix(sug, "?")
	key, _, ok := strings.Cut(f.raw[line-1], ":")
	if !ok || key == "" || strings.TrimSpace(key) != key {
		return nil
	}
	return []Fix{{Title: "change " + key + " to " + sug, Path: f.path, Line: line, Col: 1, Old: key, New: sug}}
}
