package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDefinitionFlagName walks every command: the contract definition is
// --definition wherever a command reads one, and --contract is never a
// visible flag (only the hidden old spelling, kept for one release).
func TestDefinitionFlagName(t *testing.T) {
	root := NewCmdRoot(&Factory{})
	var readsDefinition []string
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			where := cmd.CommandPath() + " --" + fl.Name
			if fl.Name == "contract" {
				if !fl.Hidden || len(fl.Annotations[annotationRenamed]) != 2 {
					t.Errorf("%s: --contract is visible or not marked as renamed; the definition is --definition, a built contract the argument", where)
				}
				return
			}
			if strings.HasPrefix(fl.Usage, "contract definition") && fl.Name != "definition" {
				t.Errorf("%s reads a contract definition (%q) but is not named --definition", where, fl.Usage)
			}
			if fl.Name == "definition" {
				readsDefinition = append(readsDefinition, cmd.CommandPath())
			}
		})
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(root)
	// The commands that read a definition, so that a rename that drops
	// the flag from one fails here too.
	for _, want := range []string{"ka2 build", "ka2 budget", "ka2 verify", "ka2 serve", "ka2 pipeline check", "ka2 pipeline run", "ka2 grade", "ka2 render", "ka2 config"} {
		found := false
		for _, got := range readsDefinition {
			found = found || got == want
		}
		if !found {
			t.Errorf("%s has no --definition (commands with one: %v)", want, readsDefinition)
		}
	}
}
