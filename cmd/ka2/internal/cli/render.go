package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/render"
)

// providerFlag chooses the model API whose framing the budget counts.
type providerFlag struct {
	Provider string
}

func (p *providerFlag) register(fs *pflag.FlagSet) {
	enumVar(fs, &p.Provider, "provider", "", render.Names(), "count the input as this model API's request carries it, its message framing included, instead of adding --wrapper (needs a token --counter)")
}

// framing returns the provider for a build counted with counter, or nil
// when none was chosen. The provider counts its own wrapper, so --wrapper
// cannot be given with it, and it counts tokens.
func (p *providerFlag) framing(b *budgetFlags, counter budget.Counter) (render.Provider, error) {
	if p.Provider == "" {
		return nil, nil
	}
	if err := p.frame(b); err != nil {
		return nil, err
	}
	if counter.Name() == "codepoint" {
		return nil, usageError{fmt.Errorf("--provider %s counts tokens: pass --counter o200k_base or --counter cl100k_base", p.Provider)}
	}
	return render.Lookup(p.Provider)
}

// frame refuses --wrapper beside --provider, and has the limits checked
// with the provider's framing as the wrapper: call it before the limits
// are resolved.
func (p *providerFlag) frame(b *budgetFlags) error {
	if p.Provider == "" {
		return nil
	}
	if b.set != nil && b.set("wrapper") {
		return usageError{errors.New("--wrapper and --provider cannot be given together: the provider counts its own message framing")}
	}
	b.provider = p.Provider
	return nil
}

// RenderOptions are the inputs of `ka2 render`.
type RenderOptions struct {
	f *Factory
	providerFlag
	File       string
	Model      string
	Counter    string
	Capacity   int
	Reserve    int
	Definition string
	set        func(string) bool
	flags      *pflag.FlagSet
	cmdContext
}

// NewCmdRender makes `ka2 render`.
func NewCmdRender(f *Factory, runF func(*RenderOptions) error) *cobra.Command {
	opts := &RenderOptions{f: f}
	cmd := &cobra.Command{
		Use:   "render --provider openai-chat [--model NAME] CONTRACT",
		Short: "Print a contract as a model API's request body, within the budget",
		Long: `Render reads a contract (CONTRACT, or - for standard input) and prints the
request body a model API takes, followed by a newline. For openai-chat (Chat
Completions: OpenAI, llama.cpp's server, vLLM, Ollama): the instruction as the
system message, the rest of the contract as the user message (compact JSON),
and max_tokens set to the reserve R, so the reply stays within the room the
budget kept for it.

The input is counted the API's documented way — 3 tokens per message, the
tokens of its role and content, 3 more priming the reply — against W − R of
the --counter (default o200k_base); over the limit is exit 3, naming each
part's cost. Render never sends anything.`,
		Example: `  ka2 build --counter o200k_base --provider openai-chat --subject lodging --date 2026-09-14 --question "What is the limit?" > contract.json
  ka2 render --provider openai-chat --model gpt-4o contract.json
  ka2 render --provider openai-chat contract.json | curl -s http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' -d @-`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.File = args[0] }, nil, runF, runRender),
	}
	fs := cmd.Flags()
	enumVar(fs, &opts.Provider, "provider", "", render.Names(), "the model API to render for")
	fs.StringVar(&opts.Model, "model", "", "the model field of the request (default: left out)")
	enumVar(fs, &opts.Counter, "counter", "o200k_base", []string{"cl100k_base", "o200k_base"}, "the tokenizer the budget counts in")
	fs.IntVar(&opts.Capacity, "capacity", 0, "W, the capacity, 1..100000000 (default: the contract definition's for the counter)")
	fs.IntVar(&opts.Reserve, "reserve", 0, "R, room reserved for the output and the request's max_tokens (default: the contract definition's for the counter)")
	fs.StringVar(&opts.Definition, "definition", "", "contract definition file (default: the embedded one)")
	opts.set, opts.flags = fs.Changed, fs
	return cmd
}

func runRender(o *RenderOptions) error {
	if o.Provider == "" {
		return usageError{fmt.Errorf("--provider is required: one of %v", render.Names())}
	}
	p, err := render.Lookup(o.Provider)
	if err != nil {
		return usageError{err}
	}
	def, err := contract.LoadDefinition(o.Definition)
	if err != nil {
		return err
	}
	bf := budgetFlags{set: o.set, flags: o.flags, provider: o.Provider}
	cfg := contract.Config{Counter: o.Counter, WrapperFor: bf.wrapperFor()}
	if o.set("capacity") {
		cfg.Capacity = &o.Capacity
	}
	if o.set("reserve") {
		cfg.Reserve = &o.Reserve
	}
	counter, limits, err := cfg.Budget(def)
	if err != nil {
		return bf.usage(err)
	}
	data, err := readInput(o.f, o.File)
	if err != nil {
		return fmt.Errorf("read contract: %w", err)
	}
	if _, err := def.ReadContract(o.File, data); err != nil {
		return err
	}
	text := trimNewline(data)
	body, err := render.Body(def, p, text, counter, limits, render.Options{Model: o.Model})
	if err != nil {
		if _, over := errors.AsType[*budget.OverError](err); over {
			return err
		}
		return fmt.Errorf("%s: %w", o.File, err)
	}
	_, err = o.f.Out.Write(append(body, '\n'))
	return err
}

// trimNewline drops the final newline ka2 build prints.
func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
