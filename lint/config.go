package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/internal/suggest"
	"gopkg.in/yaml.v3"
)

// ConfigFile is the name of the configuration file FindConfig looks for.
const ConfigFile = ".ka2lint.yaml"

// Config turns rules off and changes their severity, for the whole corpus
// and per path glob. The zero Config, like a nil *Config, changes nothing.
type Config struct {
	// Path is where the configuration was read from, for messages.
	Path string
	// Base is the corpus root relative to the folder that holds the
	// configuration file, slash-separated ("." when it is the same folder).
	// Globs are matched against Base joined with a file's corpus path.
	Base string
	// Rules maps a rule ID to its severity, or SeverityOff.
	Rules map[string]diag.Severity
	// Overrides apply in order; for a file that matches several, the last
	// one that sets a rule wins.
	Overrides []Override
	// Renamed are warnings (CodeRenamedRule), one for each rule the file
	// names by its old kebab-case ID: the rule is configured all the same,
	// until the next release. The caller shows them; Run does not report
	// them.
	Renamed diag.List
}

// Override sets rule severities for the files that match one of its globs.
type Override struct {
	// Files are globs relative to the folder of the configuration file. "*"
	// and "?" match within one path segment, "**" matches any number of
	// segments, and a glob without a "/" matches a file name in any
	// folder, as in .gitignore.
	Files []string
	Rules map[string]diag.Severity
}

// severity returns the severity of rule r for the file at corpus path p, or
// SeverityOff.
func (c *Config) severity(r *Rule, p string) diag.Severity {
	sev := r.Severity
	if c == nil {
		return sev
	}
	if s, ok := c.Rules[r.ID]; ok {
		sev = s
	}
	if len(c.Overrides) == 0 {
		return sev
	}
	full := p
	if c.Base != "" && c.Base != "." {
		full = path.Join(c.Base, p)
	}
	for _, o := range c.Overrides {
		if s, ok := o.Rules[r.ID]; ok && o.matches(full) {
			sev = s
		}
	}
	return sev
}

func (o Override) matches(p string) bool {
	for _, g := range o.Files {
		if matchGlob(g, p) {
			return true
		}
	}
	return false
}

// matchGlob matches a slash path against a glob with "**" segments.
func matchGlob(glob, name string) bool {
	if !strings.Contains(glob, "/") {
		glob = "**/" + glob
	}
	return matchSegments(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchSegments(glob, name []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			if len(glob) == 1 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegments(glob[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], name[0]); !ok {
			return false
		}
		glob, name = glob[1:], name[1:]
	}
	return len(name) == 0
}

// validGlob reports whether every segment of glob is a valid path.Match
// pattern.
func validGlob(glob string) bool {
	if glob == "" || strings.HasPrefix(glob, "/") {
		return false
	}
	for _, seg := range strings.Split(glob, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return false
		}
	}
	return true
}

// The keys of a configuration file, at each level.
var (
	configMap   = &strict.Map{What: "configuration", Keys: []strict.Key{{Name: "rules"}, {Name: "overrides", Kind: strict.Sequence}}}
	overrideMap = &strict.Map{What: "an override", Keys: []strict.Key{{Name: "files"}, {Name: "rules"}}}
	ruleMap     = &strict.Map{What: "rules", AnyKey: true}
)

// configWords words the structural problems of a configuration file.
// The codes of the problems of a configuration file: the words case
// files use for the same problems.
const (
	CodeConfigSyntax       diag.Code = "syntax"        // not YAML, or not one document
	CodeConfigUnknownKey   diag.Code = "unknown_key"   // a key the file does not have (a typo)
	CodeConfigDuplicateKey diag.Code = "duplicate_key" // a key written twice in one mapping
	CodeConfigBadValue     diag.Code = "bad_value"     // a value of the wrong shape, a severity or glob that is none
	CodeUnknownRule        diag.Code = "unknown_rule"  // a rule ID no rule has
)

func configWords(is strict.Issue, d *diag.Diagnostic) {
	d.Code = CodeConfigBadValue
	switch is.Problem {
	case strict.NotMapping:
		switch is.Map {
		case configMap:
			d.Message, d.Hint = "configuration is not a mapping of keys to values", diag.Fix("write rules: and overrides: keys")
		case overrideMap:
			d.Message, d.Hint = "an override must be a mapping", diag.Fix("write files: and rules: keys")
		default:
			d.Message, d.Hint = "rules must map rule IDs to severities", diag.Fix("write lines such as 'trailing_whitespace: off'")
		}
	case strict.KeyNotScalar:
		d.Message, d.Hint = "a key in "+is.Map.What+" is not a plain word", diag.Fix("write keys as plain words")
	case strict.UnknownKey:
		d.Code = CodeConfigUnknownKey
		d.Message = "unknown key " + quote(is.Key)
		d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("the keys are "+strings.Join(is.Known(), " and ")))
		if is.Map == overrideMap {
			d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("an override has files and rules"))
		}
	case strict.DuplicateKey:
		d.Code = CodeConfigDuplicateKey
		d.Message, d.Hint = fmt.Sprintf("key %s is already set on line %d", quote(is.Key), is.First.Line), diag.Fix("keep one of them")
	case strict.WrongKind:
		d.Message, d.Hint = is.Key+" must be a list", diag.Fix("write a list of entries, each with files: and rules:")
	}
}

// ParseConfig reads a configuration file; name is used in errors. Unknown
// keys, unknown rule IDs, severities other than error, warning, info and
// off, and malformed globs are errors, so that a typo never silently
// leaves a rule on. The error is a diag.List of every problem found.
func ParseConfig(name string, data []byte) (*Config, error) {
	c := &Config{Path: name, Base: ".", Rules: map[string]diag.Severity{}}
	root, problem := strict.ParseYAML(name, data, strict.YAMLWords{Code: CodeConfigSyntax, Syntax: "not valid YAML: ", Hint: diag.Fix("fix the YAML syntax")})
	if problem != nil {
		return nil, problem
	}
	if len(bytes.TrimSpace(data)) == 0 || root == nil || strict.IsNull(root) {
		return c, nil
	}
	d := &strict.Decoder{Path: name, Words: configWords}
	top := d.Mapping(root, configMap)
	if n := top.Value("rules"); n != nil {
		c.Rules = parseRuleMap(d, n, &c.Renamed)
	}
	if n := top.Value("overrides"); n != nil {
		for _, item := range n.Content {
			if o, ok := parseOverride(d, item, &c.Renamed); ok {
				c.Overrides = append(c.Overrides, o)
			}
		}
	}
	if err := d.Diags.Err(); err != nil {
		return nil, err
	}
	c.Renamed.Sort()
	return c, nil
}

// parseRuleMap reads a rules: mapping, adding to renamed a warning for
// each rule named by its old ID.
func parseRuleMap(d *strict.Decoder, n *yaml.Node, renamed *diag.List) map[string]diag.Severity {
	out := map[string]diag.Severity{}
	for _, e := range d.Mapping(n, ruleMap).All() {
		k, v := e.Key, e.Value
		id := k.Value
		if r, ok := ruleByOldID(id); ok {
			*renamed = append(*renamed, &diag.Diagnostic{Pos: d.Pos(k), Code: CodeRenamedRule, Severity: diag.SeverityWarning,
				Message: "rule " + quote(id) + " is now called " + r.ID, Hint: renamedHint(r)})
			id = r.ID
		} else if _, ok := RuleByID(id); !ok {
			hint := diag.Fix("use a rule ID as ka2 lint prints it in brackets, e.g. instruction_text")
			if s := suggest.Closest(k.Value, ruleIDs()); s != "" {
				hint = diag.Hint{Kind: diag.HintDidYouMean, Text: "did you mean " + s + "?", Suggestion: s}
			}
			d.Report(k, CodeUnknownRule, hint, "unknown rule "+quote(k.Value))
			continue
		}
		sev, err := diag.ParseSeverity(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			d.Report(v, CodeConfigBadValue, diag.Fix("write error, warning, info or off"), fmt.Sprintf("%s: severity %s is not one of error, warning, info, off", k.Value, quote(v.Value)))
			continue
		}
		out[id] = sev
	}
	return out
}

func parseOverride(d *strict.Decoder, n *yaml.Node, renamed *diag.List) (Override, bool) {
	var o Override
	before := len(d.Diags)
	f := d.Mapping(n, overrideMap)
	if f == nil {
		return o, false
	}
	if v := f.Value("files"); v != nil {
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			items = v.Content
		}
		for _, it := range items {
			if it.Kind != yaml.ScalarNode || !validGlob(it.Value) {
				d.Report(it, CodeConfigBadValue, diag.Fix(`write globs relative to the configuration file, such as "archive/**" or "*.md"`),
					fmt.Sprintf("files: %s is not a valid glob", quote(it.Value)))
				continue
			}
			o.Files = append(o.Files, it.Value)
		}
	}
	if v := f.Value("rules"); v != nil {
		o.Rules = parseRuleMap(d, v, renamed)
	}
	if len(o.Files) == 0 && len(d.Diags) == before {
		at := n
		if k := f.Key("files"); k != nil {
			at = k
		}
		d.Report(at, CodeConfigBadValue, diag.Fix(`add files: ["GLOB", …]`), "override names no files")
	}
	return o, len(d.Diags) == before
}

// FindConfig looks for ConfigFile in dir, a slash-separated path in fsys,
// then in each parent folder up to the root of fsys, and parses the first
// one it finds. It returns nil and no error when there is none. The
// Config's Base is dir relative to the folder where the file was found.
func FindConfig(fsys fs.FS, dir string) (*Config, error) {
	dir = path.Clean(dir)
	for d := dir; ; d = path.Dir(d) {
		name := path.Join(d, ConfigFile)
		data, _, err := inputfile.ReadFS(fsys, name, inputfile.MaxSize)
		if err == nil {
			c, err := ParseConfig(name, data)
			if err != nil {
				return nil, err
			}
			c.Base = relSlash(d, dir)
			return c, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err // it names the file, and what reading it did
		}
		if d == "." || d == "/" {
			return nil, nil
		}
	}
}

// relSlash returns dir relative to its ancestor anc.
func relSlash(anc, dir string) string {
	if anc == dir {
		return "."
	}
	if anc == "." {
		return dir
	}
	return strings.TrimPrefix(dir, anc+"/")
}

// FindConfigOS is FindConfig on the operating system's file system: it
// looks for ConfigFile in dir and each parent folder up to the file system
// root. The Config's Path is written relative to dir when dir is relative.
// A file for which believe returns false (given the path as it would be
// reported) is passed over as if it were not there: the caller decides,
// and warns, whose files it believes; nil believes every file.
func FindConfigOS(dir string, believe func(path string) bool) (*Config, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", ConfigFile, err)
	}
	for d := abs; ; {
		data, err := inputfile.ReadFile(filepath.Join(d, ConfigFile), inputfile.MaxSize)
		if err == nil && believe != nil && !believe(configPath(dir, abs, d)) {
			err = fs.ErrNotExist
		}
		if err == nil {
			c, err := ParseConfig(filepath.ToSlash(configPath(dir, abs, d)), data)
			if err != nil {
				return nil, err
			}
			base, _ := filepath.Rel(d, abs)
			c.Base = filepath.ToSlash(base)
			return c, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err // it names the file, and what reading it did
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, nil
		}
		d = parent
	}
}

// configPath is the path of the ConfigFile in folder d, an ancestor of abs
// (dir made absolute), relative to dir when dir is relative.
func configPath(dir, abs, d string) string {
	if filepath.IsAbs(dir) {
		return filepath.Join(d, ConfigFile)
	}
	up, _ := filepath.Rel(abs, d)
	return filepath.Join(dir, up, ConfigFile)
}
