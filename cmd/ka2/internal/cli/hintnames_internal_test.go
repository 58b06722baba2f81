package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// hintSettings are the settings the libraries' hints name ({capacity}),
// read from their source: every non-test Go file outside cmd/.
func hintSettings(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..", "..", "..")
	set := regexp.MustCompile(`diag\.Set\((?:fmt\.Sprintf\()?"([^"]*)"`)
	name := regexp.MustCompile(`\{([a-z][a-z_-]*)\}`)
	out := map[string]string{} // setting: where a hint names it
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "cmd" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range set.FindAllStringSubmatch(string(data), -1) {
			for _, s := range name.FindAllStringSubmatch(m[1], -1) {
				out[s[1]] = filepath.ToSlash(p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("found no hint naming a setting: the scan is broken")
	}
	return out
}

// commands walks the command tree.
func commands(c *cobra.Command, yield func(*cobra.Command)) {
	yield(c)
	for _, sub := range c.Commands() {
		commands(sub, yield)
	}
}

// TestHintSettingsHaveFlags: every setting a library's hint names is a
// flag of some command, so that the CLI can word it as one.
func TestHintSettingsHaveFlags(t *testing.T) {
	f, _, _ := TestFactory("")
	root := NewCmdRoot(f)
	for setting, where := range hintSettings(t) {
		found := false
		commands(root, func(c *cobra.Command) {
			found = found || c.Flags().Lookup(setting) != nil
		})
		if !found {
			t.Errorf("%s: a hint names {%s}, which no command has as a flag", where, setting)
		}
	}
}

// TestSettingNameOnlyNamesOwnFlags: a hint is worded with a flag only for
// a command that has it; others get words that name no flag.
func TestSettingNameOnlyNamesOwnFlags(t *testing.T) {
	f, _, _ := TestFactory("")
	root := NewCmdRoot(f)
	settings := hintSettings(t)
	commands(root, func(c *cobra.Command) {
		name := settingName(c)
		for setting := range settings {
			got := name(setting)
			has := c.Flags().Lookup(setting) != nil
			if _, _, fromFile := fromProjectFile(c.Flags(), setting); !fromFile && has != strings.HasPrefix(got, "--") {
				t.Errorf("%s: {%s} worded %q, but the command has the flag: %v", c.CommandPath(), setting, got, has)
			}
		}
	})
	// render has no --wrapper or --question: its words name neither.
	render, _, err := root.Find([]string{"render"})
	if err != nil {
		t.Fatal(err)
	}
	if got := settingName(render)("question"); strings.Contains(got, "--") {
		t.Errorf("render words {question} as %q, a flag it does not have", got)
	}
}
