package lint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    *Config
		wantErr string
	}{
		{name: "empty", yaml: "", want: &Config{Path: "c.yaml", Base: ".", Rules: map[string]diag.Severity{}}},
		{name: "comment only", yaml: "# nothing yet\n", want: &Config{Path: "c.yaml", Base: ".", Rules: map[string]diag.Severity{}}},
		{
			name: "rules and overrides",
			yaml: "rules:\n  trailing_whitespace: off\n  coverage_gap: error\noverrides:\n  - files: [\"archive/**\", \"*.draft.md\"]\n    rules:\n      coverage_gap: off\n  - files: legacy/*.md\n    rules: {crlf: warning}\n",
			want: &Config{Path: "c.yaml", Base: ".",
				Rules: map[string]diag.Severity{"trailing_whitespace": diag.SeverityOff, "coverage_gap": diag.SeverityError},
				Overrides: []Override{
					{Files: []string{"archive/**", "*.draft.md"}, Rules: map[string]diag.Severity{"coverage_gap": diag.SeverityOff}},
					{Files: []string{"legacy/*.md"}, Rules: map[string]diag.Severity{"crlf": diag.SeverityWarning}},
				}},
		},
		{
			// The previous release's kebab-case IDs configure their rule,
			// each with a warning at the key that names the new ID.
			name: "old rule IDs",
			yaml: "rules:\n  trailing-whitespace: off\n  overlap: info\noverrides:\n  - files: [\"*.md\"]\n    rules: {coverage-gap: error}\n",
			want: &Config{Path: "c.yaml", Base: ".",
				Rules:     map[string]diag.Severity{"trailing_whitespace": diag.SeverityOff, "overlap": diag.SeverityInfo},
				Overrides: []Override{{Files: []string{"*.md"}, Rules: map[string]diag.Severity{"coverage_gap": diag.SeverityError}}},
				Renamed: diag.List{
					{Pos: diag.Pos{Path: "c.yaml", Line: 2, Col: 3}, Code: CodeRenamedRule, Severity: diag.SeverityWarning,
						Message: `rule "trailing-whitespace" is now called trailing_whitespace`,
						Hint:    diag.Hint{Kind: diag.HintDidYouMean, Text: "write trailing_whitespace; the old ID is accepted until the next release", Suggestion: "trailing_whitespace"}},
					{Pos: diag.Pos{Path: "c.yaml", Line: 6, Col: 13}, Code: CodeRenamedRule, Severity: diag.SeverityWarning,
						Message: `rule "coverage-gap" is now called coverage_gap`,
						Hint:    diag.Hint{Kind: diag.HintDidYouMean, Text: "write coverage_gap; the old ID is accepted until the next release", Suggestion: "coverage_gap"}},
				}},
		},
		{name: "an old-style ID of no rule", yaml: "rules:\n  over-lap: off\n", wantErr: `c.yaml:2:3: unknown rule "over-lap"; did you mean overlap?`},
		{name: "unknown rule", yaml: "rules:\n  overlaps: off\n", wantErr: `c.yaml:2:3: unknown rule "overlaps"; did you mean overlap?`},
		{name: "bad severity", yaml: "rules:\n  overlap: warn\n", wantErr: `c.yaml:2:12: overlap: severity "warn" is not one of error, warning, info, off; write error, warning, info or off`},
		{name: "unknown top-level key", yaml: "rule:\n  overlap: off\n", wantErr: `c.yaml:1:1: unknown key "rule"; did you mean rules?`},
		{name: "override without files", yaml: "overrides:\n  - rules: {overlap: off}\n", wantErr: `c.yaml:2:5: override names no files; add files: ["GLOB", …]`},
		{name: "bad glob", yaml: "overrides:\n  - files: [\"a/[b\"]\n    rules: {overlap: off}\n", wantErr: `c.yaml:2:13: files: "a/[b" is not a valid glob; write globs relative to the configuration file, such as "archive/**" or "*.md"`},
		{name: "not YAML", yaml: "rules: [\n", wantErr: "c.yaml:1: not valid YAML: did not find expected node content; fix the YAML syntax"},
		{name: "a document end line", yaml: "rules:\n  overlap: off\n...\nrules:\n  overlap: error\n", wantErr: "c.yaml:3:1: a YAML document end line '...' ends the reading here, so what follows it would be ignored; remove the '...' line"},
		{name: "a tag", yaml: "rules:\n  overlap: !!str off\n", wantErr: "c.yaml:2:12: YAML tag !!str is not allowed; remove the tag and write the value as plain text"},
		{name: "a key twice", yaml: "rules: {overlap: off}\nrules: {overlap: error}\n", wantErr: `c.yaml:2:1: key "rules" is already set on line 1; keep one of them`},
		{name: "every problem, not the first", yaml: "rule: {}\nrules:\n  overlaps: off\n  overlap: warn\noverrides:\n  - files: [\"a/[b\"]\n  - filse: x\n",
			wantErr: "c.yaml:1:1: unknown key \"rule\"; did you mean rules?\n" +
				"c.yaml:3:3: unknown rule \"overlaps\"; did you mean overlap?\n" +
				"c.yaml:4:12: overlap: severity \"warn\" is not one of error, warning, info, off; write error, warning, info or off\n" +
				"c.yaml:6:13: files: \"a/[b\" is not a valid glob; write globs relative to the configuration file, such as \"archive/**\" or \"*.md\"\n" +
				"c.yaml:7:5: unknown key \"filse\"; did you mean files?"},
		{name: "overrides not a list", yaml: "overrides: {files: x}\n", wantErr: "c.yaml:1:12: overrides must be a list; write a list of entries, each with files: and rules:"},
		{name: "a key that is a list", yaml: "[a]: b\n", wantErr: "c.yaml:1:1: a key in configuration is not a plain word; write keys as plain words"},
		{name: "not a mapping", yaml: "- a\n", wantErr: "c.yaml:1:1: configuration is not a mapping of keys to values; write rules: and overrides: keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig("c.yaml", []byte(tt.yaml))
			if tt.wantErr != "" {
				var ce *diag.Diagnostic
				if !errors.As(err, &ce) {
					t.Fatalf("ParseConfig() error = %v, want a *diag.Diagnostic", err)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("ParseConfig() error\n got %s\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseConfig() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseConfig() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"archive/**", "archive/2024/a.md", true},
		{"archive/**", "archive/a.md", true},
		{"archive/**", "current/a.md", false},
		{"**/draft-*.md", "a/b/draft-1.md", true},
		{"**/draft-*.md", "draft-1.md", true},
		{"*.md", "deep/in/x.md", true},
		{"en/*.md", "en/x.md", true},
		{"en/*.md", "en/sub/x.md", false},
		{"policies/en/travel-v1.md", "policies/en/travel-v1.md", true},
		{"a/**/b/*.md", "a/x/y/b/c.md", true},
		{"a/**/b/*.md", "a/b/c.md", true},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.glob, tt.name); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.glob, tt.name, got, tt.want)
		}
	}
}

func TestConfigInRun(t *testing.T) {
	fsys := fstest.MapFS{
		"en/a.md":         {Data: []byte(validFile("a", "s", "2026-01-01", "") + "trailing \n")},
		"archive/old.md":  {Data: []byte(validFile("old", "t", "2024-01-01", "2024-06-01") + "trailing \n")},
		"archive/old2.md": {Data: []byte(validFile("old2", "t", "2024-09-01", "2025-01-01"))},
		"en/b.md": {Data: []byte("---\n# ka2lint:disable trailing_whitespace, coverage_gap -- reviewed\n" +
			validFile("b", "u", "2026-01-01", "")[4:] + "trailing \n")},
	}
	cfg, err := ParseConfig(".ka2lint.yaml", []byte(`
rules:
  trailing_whitespace: warning
overrides:
  - files: ["policies/archive/**"]
    rules:
      coverage_gap: off
      trailing_whitespace: error
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Base = "policies"
	rep, err := Run(context.Background(), fsys, Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"archive/old.md:11:9: error: trailing whitespace; delete it; body lines are quoted exactly, whitespace included [trailing_whitespace]",
		"en/a.md:10:9: warning: trailing whitespace; delete it; body lines are quoted exactly, whitespace included [trailing_whitespace]",
	}
	if diff := cmp.Diff(want, findingStrings(rep)); diff != "" {
		t.Errorf("Run(context.Background(), config) mismatch (-want +got):\n%s", diff)
	}

	// Without the configuration the gap and the default severities show.
	rep, err = Run(context.Background(), fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range rep.Findings {
		rules = append(rules, f.Path+" "+f.Rule()+" "+f.Severity.String())
	}
	wantRules := []string{
		"archive/old.md trailing_whitespace info",
		"archive/old2.md coverage_gap warning",
		"en/a.md trailing_whitespace info",
	}
	if diff := cmp.Diff(wantRules, rules); diff != "" {
		t.Errorf("Run(context.Background(), no config) mismatch (-want +got):\n%s", diff)
	}
}

func TestFindConfig(t *testing.T) {
	fsys := fstest.MapFS{
		"repo/.ka2lint.yaml":              {Data: []byte("rules: {bom: off}\n")},
		"repo/policies/travel/a.md":       {Data: []byte("x")},
		"other/policies/a.md":             {Data: []byte("x")},
		"broken/.ka2lint.yaml":            {Data: []byte("rules: {nope: off}\n")},
		"broken/policies/a.md":            {Data: []byte("x")},
		"repo/policies/own/.ka2lint.yaml": {Data: []byte("rules: {crlf: off}\n")},
		"odd/.ka2lint.yaml/readme.md":     {Data: []byte("a folder where the file would be")},
		"odd/policies/a.md":               {Data: []byte("x")},
	}
	tests := []struct {
		dir      string
		wantPath string
		wantBase string
		wantErr  string
	}{
		{dir: "repo/policies/travel", wantPath: "repo/.ka2lint.yaml", wantBase: "policies/travel"},
		{dir: "repo", wantPath: "repo/.ka2lint.yaml", wantBase: "."},
		{dir: "repo/policies/own", wantPath: "repo/policies/own/.ka2lint.yaml", wantBase: "."},
		{dir: "other/policies"},
		{dir: "broken/policies", wantErr: `broken/.ka2lint.yaml:1:9: unknown rule "nope"; use a rule ID as ka2 lint prints it in brackets, e.g. instruction_text`},
		// The file's name once: the read error names it already.
		{dir: "odd/policies", wantErr: "read odd/.ka2lint.yaml: it is a folder, not a regular file; ka2 reads only regular files"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			c, err := FindConfig(fsys, tt.dir)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("FindConfig() = %+v, %v; want the error %q", c, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantPath == "" {
				if c != nil {
					t.Errorf("FindConfig() = %+v, want nil", c)
				}
				return
			}
			if c == nil || c.Path != tt.wantPath || c.Base != tt.wantBase {
				t.Errorf("FindConfig() = %+v, want Path %s, Base %s", c, tt.wantPath, tt.wantBase)
			}
		})
	}
}

func TestFindConfigOS(t *testing.T) {
	root := t.TempDir()
	corpusDir := filepath.Join(root, "policies", "travel")
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ConfigFile), []byte("rules: {bom: off}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := FindConfigOS(corpusDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil || c.Base != "policies/travel" || c.Rules["bom"] != diag.SeverityOff {
		t.Fatalf("FindConfigOS() = %+v", c)
	}
	if want := filepath.ToSlash(filepath.Join(root, ConfigFile)); c.Path != want {
		t.Errorf("Path = %s, want %s", c.Path, want)
	}

	t.Chdir(corpusDir)
	c, err = FindConfigOS(".", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil || c.Path != "../../"+ConfigFile {
		t.Errorf("FindConfigOS(.) = %+v, want Path ../../%s", c, ConfigFile)
	}

	// A folder where the file would be stops the search, and the error
	// names it once.
	odd := filepath.Join(root, "policies", ConfigFile)
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err = FindConfigOS(corpusDir, nil)
	if want := "read " + odd + ": it is a folder, not a regular file; ka2 reads only regular files"; err == nil || err.Error() != want {
		t.Errorf("FindConfigOS() = %+v, %v; want the error %q", c, err, want)
	}
}

// TestFindConfigOSBelieve: a file the caller does not believe is passed
// over as if it were not there, and the search goes on upward; believe is
// asked with the path as it would be reported.
func TestFindConfigOSBelieve(t *testing.T) {
	root := t.TempDir()
	inner := filepath.Join(root, "shared")
	corpusDir := filepath.Join(inner, "policies")
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{root, inner} {
		if err := os.WriteFile(filepath.Join(d, ConfigFile), []byte("rules: {bom: off}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var asked []string
	c, err := FindConfigOS(corpusDir, func(p string) bool {
		asked = append(asked, p)
		return p != filepath.Join(inner, ConfigFile)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.ToSlash(filepath.Join(root, ConfigFile)); c == nil || c.Path != want || c.Base != "shared/policies" {
		t.Errorf("FindConfigOS() = %+v, want Path %s, Base shared/policies", c, want)
	}
	if diff := cmp.Diff([]string{filepath.Join(inner, ConfigFile), filepath.Join(root, ConfigFile)}, asked); diff != "" {
		t.Errorf("believe asked mismatch (-want +got):\n%s", diff)
	}
	if c, err := FindConfigOS(corpusDir, func(string) bool { return false }); err != nil || (c != nil && strings.HasPrefix(c.Path, filepath.ToSlash(root))) {
		t.Errorf("FindConfigOS() believing nothing = %+v, %v, want none of the test's files", c, err)
	}
}

// TestConfigCodes: every problem of a configuration file has a code, the
// same word the other strictly read files use for the same problem.
func TestConfigCodes(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		want []diag.Code
	}{
		{"rules: [\n", []diag.Code{CodeConfigSyntax}},
		{"rules:\n  overlap: off\n...\nrules: {}\n", []diag.Code{CodeConfigSyntax}},
		{"rules:\n  overlap: !!str off\n", []diag.Code{CodeConfigSyntax}},
		{"rule: {}\n", []diag.Code{CodeConfigUnknownKey}},
		{"overrides:\n  - filse: x\n    files: y\n", []diag.Code{CodeConfigUnknownKey}},
		{"rules: {overlap: off}\nrules: {overlap: error}\n", []diag.Code{CodeConfigDuplicateKey}},
		{"rules:\n  overlaps: off\n", []diag.Code{CodeUnknownRule}},
		{"rules:\n  overlap: warn\n", []diag.Code{CodeConfigBadValue}},
		{"rules:\n  overlap: [off]\n", []diag.Code{CodeConfigBadValue}},
		{"overrides:\n  - rules: {overlap: off}\n", []diag.Code{CodeConfigBadValue}},
		{"overrides:\n  - files: [\"a/[b\"]\n", []diag.Code{CodeConfigBadValue}},
		{"overrides: {files: x}\n", []diag.Code{CodeConfigBadValue}},
		{"[a]: b\n", []diag.Code{CodeConfigBadValue}},
		{"- a\n", []diag.Code{CodeConfigBadValue}},
		{"rules: 3\n", []diag.Code{CodeConfigBadValue}},
		{"rule: {}\nrules:\n  overlaps: off\n  overlap: warn\n", []diag.Code{CodeConfigUnknownKey, CodeUnknownRule, CodeConfigBadValue}},
	} {
		_, err := ParseConfig("c.yaml", []byte(tt.yaml))
		var got []diag.Code
		for _, d := range diag.As(err) {
			got = append(got, d.Code)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ParseConfig(%q): codes %v, want %v (%v)", tt.yaml, got, tt.want, err)
		}
	}
}
