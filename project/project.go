// Package project decides what a ka2 project's settings are: it finds the
// project file ka2.yaml from a folder upward (passing over, as git does, a
// file owned by neither the user nor root: see Trust), reads it strictly (every
// problem positioned, an unknown key with a did-you-mean), resolves its
// paths against the file's folder, and gathers the exclusions (the
// exclude globs and the .ka2ignore beside the file) a corpus load
// applies. The command line and the language server read ka2.yaml
// through it, so they agree on what a project says.
package project

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/strict"
)

// FileName is the name of a project file.
const FileName = "ka2.yaml"

// Codes of the problems of a project file.
const (
	CodeUnreadable diag.Code = "project_unreadable"
	CodeSyntax     diag.Code = "project_syntax"
	CodeUnknownKey diag.Code = "project_unknown_key"
	CodeBadValue   diag.Code = "project_bad_value"
)

// The keys of a project file, in the order `ka2 config` lists them.
const (
	KeyCorpus   = "corpus"
	KeyCases    = "cases"
	KeyContract = "contract"
	KeyContent  = "content"
	KeyPolicy   = "policy"
	KeyCounter  = "counter"
	KeyCapacity = "capacity"
	KeyReserve  = "reserve"
	KeyLang     = "lang"
	KeyExclude  = "exclude"
)

var projectMap = &strict.Map{What: "project file", Keys: []strict.Key{
	{Name: KeyCorpus, Kind: strict.Scalar},
	{Name: KeyCases, Kind: strict.Scalar},
	{Name: KeyContract, Kind: strict.Scalar},
	{Name: KeyContent, Kind: strict.Scalar},
	{Name: KeyPolicy, Kind: strict.Scalar},
	{Name: KeyCounter, Kind: strict.Scalar},
	{Name: KeyCapacity, Kind: strict.Scalar},
	{Name: KeyReserve, Kind: strict.Scalar},
	{Name: KeyLang, Kind: strict.Scalar},
	{Name: KeyExclude, Kind: strict.Sequence},
}}

// Config is what a project file says. Paths are resolved: a relative path
// in the file is joined with Dir. A key the file does not write is its
// zero value (nil for the numbers).
type Config struct {
	// Path is the file, as it was found or given; Dir is its folder.
	Path, Dir string

	// Corpus, Cases, Contract, Content and Policy are folders and files;
	// Content is the instruction and example file used instead of the one
	// the contract definition names.
	Corpus, Cases, Contract, Content, Policy string
	// Counter and Lang are a budget counter's name and a language.
	Counter, Lang string
	// Capacity and Reserve are budget limits.
	Capacity, Reserve *int
	// Exclude are .gitignore patterns relative to Dir.
	Exclude []string
	// Ignore are the patterns of the .ka2ignore file beside the project
	// file, relative to Dir (read by Load, not written in the file).
	Ignore []string

	// Pos holds where each key written in the file is.
	Pos map[string]diag.Pos
	// Skipped holds the .ka2ignore beside the file when Load passed it
	// over for its owner (see Trust).
	Skipped []Skipped
}

// Find returns the project file in dir or the nearest folder above it
// that has one, or "" when none does. The path is dir joined with as
// many ".." as it took (ka2.yaml, ../ka2.yaml), so messages stay short.
// Only a regular file (or a link to one) counts. A file t does not
// believe is passed over, as if it were not there, and returned in
// skipped; a nil t believes every file.
func Find(dir string, t *Trust) (path string, skipped []Skipped, err error) {
	cur := filepath.Clean(dir)
	for {
		p := filepath.Join(cur, FileName)
		info, err := os.Stat(p)
		switch {
		case err == nil && info.Mode().IsRegular():
			s, ok := t.Believes(p)
			if ok {
				return p, skipped, nil
			}
			skipped = append(skipped, s)
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", skipped, fmt.Errorf("find %s: %w", FileName, err)
		}
		abs, err := filepath.Abs(cur)
		if err != nil {
			return "", skipped, fmt.Errorf("find %s: %w", FileName, err)
		}
		if filepath.Dir(abs) == abs {
			return "", skipped, nil // the top: no project file
		}
		cur = filepath.Join(cur, "..")
	}
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// Load reads the project file at path and the .ka2ignore beside it. A
// .ka2ignore t does not believe is left out and recorded in Skipped; a
// nil t believes it (the caller named the project file).
func Load(path string, t *Trust) (*Config, error) {
	data, err := inputfile.ReadFile(path, inputfile.MaxSize)
	if err != nil {
		return nil, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(path)}, Code: CodeUnreadable, Message: "cannot read the project file: " + inputfile.Reason(err), Hint: diag.Fix("check the path, or remove the file")}
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	ignore := filepath.Join(c.Dir, corpus.IgnoreFile)
	if s, ok := t.Believes(ignore); !ok {
		c.Skipped = append(c.Skipped, s)
		return c, nil
	}
	data, err = inputfile.ReadFile(ignore, inputfile.MaxSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(ignore)}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err), Hint: diag.Fix("make it a readable file, or remove it")}
	default:
		for line := range strings.SplitSeq(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
				c.Ignore = append(c.Ignore, line)
			}
		}
	}
	return c, nil
}

var langPattern = regexp.MustCompile(`^[a-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

// Parse reads a project file's text; path names it in problems and its
// folder resolves the paths. Every problem is reported, as a diag.List.
func Parse(path string, data []byte) (*Config, error) {
	name := filepath.ToSlash(path)
	c := &Config{Path: path, Dir: filepath.Dir(path), Pos: map[string]diag.Pos{}}
	root, problem := strict.ParseYAML(name, data, strict.YAMLWords{Code: CodeSyntax, Syntax: "not valid YAML: ", Hint: diag.Fix("fix the YAML syntax")})
	if problem != nil {
		return nil, diag.List{problem}
	}
	if len(bytes.TrimSpace(data)) == 0 || root == nil || strict.IsNull(root) {
		return c, nil // an empty project file: every default
	}
	d := &strict.Decoder{Path: name, Words: words}
	top := d.Mapping(root, projectMap)
	for _, e := range entries(top) {
		c.Pos[e.Name] = d.Pos(e.Key)
		v := strict.Deref(e.Value)
		if strict.IsNull(v) {
			d.Report(v, CodeBadValue, diag.Fix("give it a value, or remove the key"), e.Name+" has no value")
			continue
		}
		switch e.Name {
		case KeyCorpus, KeyCases, KeyContract, KeyContent, KeyPolicy:
			if v.Value == "" {
				d.Report(v, CodeBadValue, diag.Fix("write a path relative to this file"), e.Name+" is empty")
				continue
			}
			p := filepath.FromSlash(v.Value)
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Dir, p)
			}
			*c.pathField(e.Name) = p
		case KeyCounter:
			if !slices.Contains(budget.Names(), v.Value) {
				d.Report(v, CodeBadValue, diag.Fix("use one of "+strings.Join(budget.Names(), ", ")), fmt.Sprintf("unknown counter %q", v.Value))
				continue
			}
			c.Counter = v.Value
		case KeyLang:
			if !langPattern.MatchString(v.Value) {
				d.Report(v, CodeBadValue, diag.Fix("write a language tag such as en or zh"), fmt.Sprintf("lang %q is not a language tag", v.Value))
				continue
			}
			c.Lang = v.Value
		case KeyCapacity, KeyReserve:
			n, err := strconv.Atoi(v.Value)
			if err != nil || v.Tag != "!!int" {
				d.Report(v, CodeBadValue, diag.Fix("write a whole number"), fmt.Sprintf("%s %q is not a whole number", e.Name, v.Value))
				continue
			}
			if e.Name == KeyCapacity {
				c.Capacity = &n
			} else {
				c.Reserve = &n
			}
		case KeyExclude:
			for _, item := range v.Content {
				item = strict.Deref(item)
				if item.Kind != yaml.ScalarNode || item.Value == "" {
					d.Report(item, CodeBadValue, diag.Fix("write each pattern as a string, such as 'drafts/' or '**/README.md'"), "an exclude pattern must be a non-empty string")
					continue
				}
				c.Exclude = append(c.Exclude, item.Value)
			}
		}
	}
	if err := d.Diags.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

func entries(f *strict.Fields) []strict.Entry {
	if f == nil {
		return nil
	}
	return f.Entries
}

func (c *Config) pathField(key string) *string {
	switch key {
	case KeyCorpus:
		return &c.Corpus
	case KeyCases:
		return &c.Cases
	case KeyContract:
		return &c.Contract
	case KeyContent:
		return &c.Content
	}
	return &c.Policy
}

// words words the structural problems of a project file.
func words(is strict.Issue, d *diag.Diagnostic) {
	switch is.Problem {
	case strict.NotMapping:
		d.Code, d.Message, d.Hint = CodeSyntax, "the project file is not a mapping of keys to values", diag.Fix("write 'key: value' lines, such as 'corpus: policies'")
	case strict.KeyNotScalar:
		d.Code, d.Message, d.Hint = CodeSyntax, "a key of the project file is not a plain word", diag.Fix("write 'key: value' lines")
	case strict.UnknownKey:
		d.Code, d.Message = CodeUnknownKey, fmt.Sprintf("unknown key %q", is.Key)
		d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("the keys are "+strings.Join(is.Known(), ", ")))
	case strict.DuplicateKey:
		d.Code, d.Message, d.Hint = CodeSyntax, fmt.Sprintf("key %q is already set on line %d", is.Key, is.First.Line), diag.Fix("keep one of them")
	case strict.WrongKind:
		d.Code, d.Message, d.Hint = CodeBadValue, fmt.Sprintf("%s must be %s", is.Key, is.Want), diag.Fix(kindFix(is.Want))
	default:
		d.Code, d.Message = CodeSyntax, "the project file is malformed"
	}
}

func kindFix(k strict.Kind) string {
	if k == strict.Sequence {
		return "write a list, such as [drafts/, '**/README.md']"
	}
	return "write a single value"
}

// Patterns returns the exclusions of the project, the .ka2ignore beside
// the file first and the exclude globs after (so an exclude glob wins a
// conflict), relative to Dir.
func (c *Config) Patterns() []string {
	if c == nil {
		return nil
	}
	return append(slices.Clip(c.Ignore), c.Exclude...)
}

// Filter narrows a corpus folder of the project to the files its
// exclusions leave (see corpus.Exclude): dir is the folder as a command
// names it, relative to the working folder or absolute. A folder outside
// the project gets fsys as it is.
func (c *Config) Filter(dir string, fsys fs.FS) fs.FS {
	ps := c.Patterns()
	if len(ps) == 0 {
		return fsys
	}
	rel, err := filepath.Rel(mustAbs(c.Dir), mustAbs(dir))
	if err != nil || !filepath.IsLocal(rel) {
		return fsys
	}
	return corpus.Exclude(fsys, filepath.ToSlash(rel), ps)
}
