package cli

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/grade"
	"github.com/ka2/ka2/internal/errkind"
)

// GradeOptions are the inputs of `ka2 grade`.
type GradeOptions struct {
	f          *Factory
	Contract   string
	Answer     string
	Corpus     string
	Definition string
	Lang       string
	Format     string
	cmdContext
}

// NewCmdGrade makes `ka2 grade`.
func NewCmdGrade(f *Factory, runF func(*GradeOptions) error) *cobra.Command {
	opts := &GradeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "grade --contract FILE --answer FILE",
		Short: "Check one generator answer against the contract it was given",
		Long: `Grade reads a contract (as ka2 build printed it) and a generator's answer and
checks, deterministically, that the answer keeps to the contract. It prints
one finding per line, "kind: detail", and exits 1 when there is any:

  bad_citation          a citation that does not parse, or names lines no
                        evidence record quotes
  cites_example         a citation of the worked example's address
  unsupported_number    a number not in the lines its sentence cites (or,
                        uncited, in any evidence line)
  uncited               an answer with no citation while there is evidence
  should_refuse         no evidence, or conflicting evidence, and no refusal
  copied_example        the example's answer or amount repeated unsupported
  followed_source_text  instruction-like evidence text repeated, or an
                        action announced that no tool performed

Numbers are compared after normalising fullwidth digits, digit-group commas,
decimal zeros and currencies (CNY, 元, RMB and ¥ are one; an evidence number
without a currency takes its record's unit). Refusals are recognised by the
phrases of the contract's language in the contract definition's content
file. With --corpus, every quote is first checked against the corpus; a
contract that does not match it is an input error (exit 2).`,
		Example: `  ka2 build --subject lodging --date 2026-09-14 --question "What is the limit?" > contract.json
  echo "The limit is 750 CNY per room-night [travel-v2:3]." | ka2 grade --contract contract.json --answer -
  ka2 grade --contract contract.json --answer answer.txt --format json`,
		Args: cobra.NoArgs,
		RunE: runE(opts, &opts.cmdContext, nil, opts.validate, runF, runGrade),
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Contract, "contract", "", "the contract the answer was given (FILE, or - for standard input)")
	fs.StringVar(&opts.Answer, "answer", "", "the answer text (FILE, or - for standard input)")
	fs.StringVar(&opts.Corpus, "corpus", "", "check the contract's quotes against this corpus first (\"embedded:sample\" for the sample)")
	fs.StringVar(&opts.Definition, "definition", "", "contract definition file whose content file holds the refusal phrases (default: the embedded one)")
	fs.StringVar(&opts.Lang, "lang", "", "the contract's language (default: found from its instruction)")
	enumVar(fs, &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

func (o *GradeOptions) validate() error {
	switch {
	case o.Contract == "":
		return usageError{errors.New("--contract is required: the contract the answer was given")}
	case o.Answer == "":
		return usageError{errors.New("--answer is required: a file, or - for standard input")}
	case o.Contract == "-" && o.Answer == "-":
		return usageError{errors.New("--contract and --answer cannot both be standard input (-)")}
	}
	return nil
}

func runGrade(o *GradeOptions) error {
	def, err := contract.LoadDefinition(o.Definition)
	if err != nil {
		return err
	}
	opts := grade.OptionsFor(def)
	if len(opts.Refusals) == 0 {
		return fmt.Errorf("the contract definition's content file has no refusal phrases: add a refusals list per language")
	}
	opts.Lang = o.Lang
	data, err := readInput(o.f, o.Contract)
	if err != nil {
		return fmt.Errorf("read contract: %w", err)
	}
	c, err := grade.ParseContract(o.Contract, data)
	if err != nil {
		return err
	}
	answer, err := readInput(o.f, o.Answer)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if !utf8.Valid(answer) {
		return fmt.Errorf("%s: the answer is not valid UTF-8", o.Answer)
	}
	if o.Corpus != "" {
		corp, err := contract.LoadCorpus(o.ctx(), o.f.openCorpus(o.Corpus))
		if err != nil {
			return err
		}
		if err := grade.CheckQuotes(c, corp, opts.LangOf(c)); err != nil {
			return err
		}
	}
	rep := grade.Grade(c, string(answer), opts)
	if err := writeGrade(o.f.Out, rep, o.Format); err != nil {
		return err
	}
	if !rep.OK {
		return exitError{kind: errkind.CheckFailed, err: fmt.Errorf("the answer has %d finding(s)", len(rep.Findings))}
	}
	return nil
}

func writeGrade(w io.Writer, rep grade.Report, format string) error {
	if format == "json" {
		return writeJSON(w, rep, true)
	}
	for _, f := range rep.Findings {
		if _, err := fmt.Fprintln(w, f.String()); err != nil {
			return err
		}
	}
	if rep.OK {
		_, err := fmt.Fprintf(w, "ok: %d citation(s) and %d number(s) checked\n", rep.Citations, rep.Numbers)
		return err
	}
	return nil
}
