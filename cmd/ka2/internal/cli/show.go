package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/corpus"
)

// ShowOptions are the inputs of `ka2 show`.
type ShowOptions struct {
	f *Factory
	corpusFlags
	Lang      string
	Addresses []string
	cmdContext
}

// NewCmdShow makes `ka2 show`.
func NewCmdShow(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{f: f}
	cmd := &cobra.Command{
		Use:   "show ADDRESS...",
		Short: "Print exactly the lines an address cites",
		Long: `Show prints the body lines an address names, exactly as in the source
file, one line per line. An address is SOURCE_ID:START-END (brackets as in a
citation are accepted); a bare SOURCE_ID prints the whole body. With several
addresses, each block is preceded by a "==> ADDRESS <==" header.`,
		Example: `  ka2 show travel-v2:1-3
  ka2 show --lang zh travel-v1:3 travel-v2:3`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Addresses = args }, nil, runF, runShow),
	}
	opts.corpusFlags.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "language of the source, when the source_id exists in several")
	return cmd
}

func runShow(o *ShowOptions) error {
	var addrs []corpus.Address
	for _, s := range o.Addresses {
		a, err := corpus.ParseAddress(s)
		if err != nil {
			return usageError{err}
		}
		addrs = append(addrs, a)
	}
	corp, err := o.load(o.ctx())
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, a := range addrs {
		s, r, quote, err := corp.Resolve(a, o.Lang)
		if err != nil {
			return fmt.Errorf("%s: %w", a, err)
		}
		if len(addrs) > 1 {
			fmt.Fprintf(&b, "==> %s <==\n", corpus.Address{SourceID: s.ID, Range: r})
		}
		b.WriteString(quote)
		b.WriteByte('\n')
	}
	_, err = fmt.Fprint(o.f.Out, b.String())
	return err
}
