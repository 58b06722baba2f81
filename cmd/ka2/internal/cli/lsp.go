package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/lsp"
)

// LSPOptions are the inputs of `ka2 lsp`.
type LSPOptions struct {
	f     *Factory
	Stdio bool
	cmdContext
}

// NewCmdLSP makes `ka2 lsp`.
func NewCmdLSP(f *Factory, runF func(*LSPOptions) error) *cobra.Command {
	opts := &LSPOptions{f: f}
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Language server for editors (LSP over stdio)",
		Long: `Lsp speaks the Language Server Protocol 3.17 on standard input and output,
for an editor: lint findings as you type (with the other file of an overlap
as related information), hover on the front matter (the interval in words,
whether it applies today, supersedes, translations, regression cases), the
impact of an unsaved edit of valid_from or valid_until on the regression cases
(hover and a code lens), key and value completion, go to definition on
supersedes ids and cite ranges, references (superseding sources and the cases
that select a source), and quick fixes from lint's suggestions.

The corpus folder, case files and exclusions come from ka2.yaml (found from
the workspace folder upward); "corpus" and "cases" in the client's
initializationOptions (relative to the workspace folder) override it; without
either the corpus is the workspace folder. Rules and severities come from
.ka2lint.yaml as for ka2 lint. As for every command, one of those files
found upward that is owned by neither you nor root is ignored, with a
message, unless its folder is in KA2_TRUSTED_DIRS. Messages about the
server itself go to standard error.

Exit 0 after the client's shutdown and exit, 1 on exit without shutdown, 2
when a message's framing is broken or over its limits (a header of 4 KiB, a
body of 16 MiB): the stream cannot be followed past it, so the session ends.`,
		Example: `  ka2 lsp
  # Neovim: vim.lsp.start({name = "ka2", cmd = {"ka2", "lsp"}, root_dir = vim.fn.getcwd()})`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, nil, runF, runLSP),
	}
	// Clients such as vscode-languageclient append --stdio; it is the only
	// transport, so it is accepted and changes nothing.
	cmd.Flags().BoolVar(&opts.Stdio, "stdio", true, "talk over standard input and output (the only transport)")
	return cmd
}

func runLSP(o *LSPOptions) error {
	trust, err := o.f.trust()
	if err != nil {
		return err
	}
	err = lsp.Serve(o.ctx(), o.f.In, o.f.Out, lsp.Options{Now: o.f.now, Log: o.f.ErrOut, Trust: trust})
	if errors.Is(err, lsp.ErrExitWithoutShutdown) {
		return exitError{kind: errkind.CheckFailed, err: err}
	}
	return err
}
