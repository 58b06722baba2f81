package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/grade"
)

// Request is what a generator is told besides the contract: the question
// and its scope, as a build request states them, the condition (for
// logs; a fair generator ignores it) and the reply's limit. An Exec
// program reads it as {"question", "subjects", "dates", "lang",
// "condition", "max_tokens"}.
type Request struct {
	contract.RequestFile
	Condition string `json:"condition"`
	// MaxTokens caps the reply (see Variant.MaxTokens).
	MaxTokens int `json:"max_tokens"`
}

// Generator answers one contract. Implementations must be safe for
// concurrent use when Options.Jobs > 1.
type Generator interface {
	Answer(ctx context.Context, contract []byte, req Request) (string, error)
}

// Case is one question to evaluate.
type Case struct {
	// Name identifies the case in reports, e.g. "cases/lodging.yaml current".
	Name    string
	Builder *contract.Builder
	Request contract.Request
	// ExpectAnswer lists numbers or phrases the answer must contain, under
	// every condition but missing (whose right answer is a refusal).
	ExpectAnswer []string
	// ExpectError, when set, is the kind of error the case's build is
	// expected to fail with (a regression case's expect.error): such a
	// case gives no contract to send, so Evaluate skips it.
	ExpectError golden.ErrorKind
}

// Options set an evaluation up.
type Options struct {
	Conditions []Condition // default AllConditions()
	// Repeat runs each case under each condition this many times
	// (default 1); the report gives the spread.
	Repeat int
	// Jobs is how many answers are asked for at once (default 1).
	Jobs int
	// Distractors is how many records of other subjects the position
	// conditions add (default 6).
	Distractors int
	// Hostile is the hostile record's text (default DefaultHostile).
	Hostile string
	// MaxTokens, when set, is every request's max_tokens; otherwise a
	// case that counts in a token encoding sends its reserve, and one
	// that counts code points its definition's o200k_base reserve.
	MaxTokens int
	// MinPass is the pass rate each condition must reach, by condition;
	// Default applies to the others (default 0.9).
	MinPass map[Condition]float64
	Default float64
	// Progress, when set, is called after each run with the number done
	// and the total.
	Progress func(done, total int)
}

// Run is one answer to one sent variant.
type Run struct {
	Case      string    `json:"case"`
	Condition Condition `json:"condition"`
	Repeat    int       `json:"repeat"`
	Pass      bool      `json:"pass"`
	Answer    string    `json:"answer"`
	Error     string    `json:"error,omitempty"`
	// Findings are grade's findings on the answer (what ka2 grade prints
	// for the variant's contract and the answer), then eval's own
	// missing_expected ones.
	Findings []grade.Finding `json:"findings"`
}

// Rate is a pass rate over some runs.
type Rate struct {
	Name   string  `json:"name"`
	Runs   int     `json:"runs"`
	Passed int     `json:"passed"`
	Rate   float64 `json:"rate"`
	// Spread is the lowest and highest pass rate over the repeats, when
	// there are several.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Degenerate and OverBudget count the variants that were not sent
	// (each would have been Repeat runs); they are neither passes nor
	// runs.
	Degenerate int `json:"degenerate"`
	OverBudget int `json:"over_budget"`
	// Need and OK are set for conditions: the threshold and whether the
	// rate meets it. A condition that has no run tested nothing, and is
	// not OK whatever its threshold.
	Need float64 `json:"need,omitempty"`
	OK   bool    `json:"ok"`
}

// Skipped is a case that gave no contract to vary.
type Skipped struct {
	Case string `json:"case"`
	// Kind is the build's error kind: the one the case expects, or the
	// one its build failed with.
	Kind golden.ErrorKind `json:"kind"`
	// Expected says the case expects the error (expect.error).
	Expected bool   `json:"expected"`
	Reason   string `json:"reason"`
}

// Report is an evaluation's outcome.
type Report struct {
	OK         bool   `json:"ok"`
	Conditions []Rate `json:"conditions"`
	Cases      []Rate `json:"cases"`
	// Skipped lists the cases that were not evaluated, in case order.
	Skipped []Skipped `json:"skipped"`
	// Variants lists every variant, by case, then condition, with the
	// contract of each one sent.
	Variants []Variant `json:"variants"`
	// Runs lists every run, by case, then condition, then repeat.
	Runs []Run `json:"runs"`
}

// ErrNoTokenReserve is returned when a case's reply limit cannot be
// found: it counts code points, no MaxTokens is set, and its definition
// has no o200k_base reserve.
var ErrNoTokenReserve = errors.New("no token reserve for the reply")

// Evaluate runs every case under every condition. It stops when ctx is
// done, returning ctx's error. A generator's failure (an error, or an
// answer with no text) is a failed run, not an error of Evaluate. A case
// that expects a build error, or whose build fails, is skipped and
// listed in the report.
func Evaluate(ctx context.Context, cases []Case, gen Generator, opts Options) (*Report, error) {
	conds := opts.Conditions
	if len(conds) == 0 {
		conds = AllConditions()
	}
	repeat := max(1, opts.Repeat)
	jobs := max(1, opts.Jobs)
	if opts.Distractors == 0 {
		opts.Distractors = 6
	}
	if opts.Hostile == "" {
		opts.Hostile = DefaultHostile
	}
	if opts.Default == 0 {
		opts.Default = 0.9
	}

	type task struct {
		i     int
		c     *Case
		v     int // index in rep.Variants
		rep   int
		doc   []byte
		req   Request
		grade grade.Options
	}
	rep := &Report{Skipped: []Skipped{}, Variants: []Variant{}}
	var tasks []task
	var evaluated []*Case
	for ci := range cases {
		c := &cases[ci]
		if c.ExpectError != "" {
			rep.Skipped = append(rep.Skipped, Skipped{Case: c.Name, Kind: c.ExpectError, Expected: true,
				Reason: "the case expects its build to fail with " + string(c.ExpectError)})
			continue
		}
		base, err := c.Builder.Build(ctx, c.Request)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("eval: %w", cerr)
			}
			rep.Skipped = append(rep.Skipped, Skipped{Case: c.Name, Kind: golden.KindOf(err), Reason: firstLine(err.Error())})
			continue
		}
		tokens, from, err := maxTokens(c.Builder, opts.MaxTokens)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		vs, err := variants(ctx, c, base, conds, &opts, tokens, from)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("eval: %w", cerr)
			}
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		evaluated = append(evaluated, c)
		gopts := grade.OptionsFor(c.Builder.Definition)
		for _, v := range vs {
			rep.Variants = append(rep.Variants, v.Variant)
			if v.Status != Sent {
				continue
			}
			req := Request{RequestFile: contract.RequestFile{Question: c.Request.Question, Subjects: c.Request.Query.Subjects, Lang: base.Lang},
				Condition: string(v.Condition), MaxTokens: tokens}
			for _, d := range c.Request.Query.Dates {
				req.Dates = append(req.Dates, d.String())
			}
			for r := range repeat {
				tasks = append(tasks, task{i: len(tasks), c: c, v: len(rep.Variants) - 1, rep: r + 1, doc: v.doc, req: req, grade: gopts})
			}
		}
	}

	runs := make([]Run, len(tasks))
	next := make(chan task)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(jobs, max(1, len(tasks))) {
		wg.Go(func() {
			for t := range next {
				runs[t.i] = run(ctx, gen, t.c, &rep.Variants[t.v], t.rep, t.doc, t.req, t.grade)
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(tasks))
					mu.Unlock()
				}
			}
		})
	}
	for _, t := range tasks {
		if ctx.Err() != nil {
			break
		}
		next <- t
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	rep.Runs = runs
	summarise(rep, evaluated, conds, repeat, opts)
	return rep, nil
}

// maxTokens is the reply limit of a case built by b: override when set,
// else the reserve of a token counter, else the definition's o200k_base
// reserve (a code-point reserve counts no tokens).
func maxTokens(b *contract.Builder, override int) (int, MaxTokensFrom, error) {
	switch {
	case override > 0:
		return override, FromOverride, nil
	case b.Counter.Name() != budget.Codepoint.Name():
		return b.Limits.Reserve, FromReserve, nil
	}
	l, err := b.Definition.Limits("o200k_base")
	if err != nil || l.Reserve == 0 {
		return 0, "", fmt.Errorf("%w: the case counts code points and its contract definition sets no o200k_base reserve", ErrNoTokenReserve)
	}
	return l.Reserve, FromDefault, nil
}

// errNoAnswer is the failure of a generator that returned no text.
var errNoAnswer = errors.New("the generator gave no answer")

func run(ctx context.Context, gen Generator, c *Case, v *Variant, rep int, doc []byte, req Request, gopts grade.Options) Run {
	r := Run{Case: c.Name, Condition: v.Condition, Repeat: rep, Findings: []grade.Finding{}}
	answer, err := gen.Answer(ctx, doc, req)
	if err == nil && strings.TrimSpace(answer) == "" {
		err = errNoAnswer
	}
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Answer = answer
	gc, err := contract.ReadContract(string(v.Condition), doc)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	// The one place a variant is graded: v.Injected names the records
	// eval added, which are not evidence for the question: citing one, or
	// using an amount only it states, is the failure the condition is
	// there to find, and they never make a conflict.
	opts := gopts
	opts.Injected = v.Injected
	g := grade.Grade(gc, answer, opts)
	r.Findings = g.Findings
	if v.Condition != Missing {
		for _, want := range c.ExpectAnswer {
			if !strings.Contains(strings.ToLower(answer), strings.ToLower(want)) {
				r.Findings = append(r.Findings, grade.Finding{Kind: MissingExpected, Detail: fmt.Sprintf("the answer does not contain %q", want)})
			}
		}
	}
	r.Pass = len(r.Findings) == 0
	return r
}

// MissingExpected is the finding kind of an answer without a number or
// phrase the case's expect.answer lists.
const MissingExpected grade.Kind = "missing_expected"

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func summarise(rep *Report, cases []*Case, conds []Condition, repeat int, opts Options) {
	rep.OK = true
	rate := func(name string, keep func(Condition, string) bool) Rate {
		r := Rate{Name: name, Min: math.Inf(1), Max: math.Inf(-1)}
		per := make([][2]int, repeat)
		for _, x := range rep.Runs {
			if !keep(x.Condition, x.Case) {
				continue
			}
			r.Runs++
			per[x.Repeat-1][1]++
			if x.Pass {
				r.Passed++
				per[x.Repeat-1][0]++
			}
		}
		for _, v := range rep.Variants {
			switch {
			case !keep(v.Condition, v.Case):
			case v.Status == Degenerate:
				r.Degenerate++
			case v.Status == OverBudget:
				r.OverBudget++
			}
		}
		if r.Runs > 0 {
			r.Rate = float64(r.Passed) / float64(r.Runs)
		}
		for _, p := range per {
			if p[1] > 0 {
				v := float64(p[0]) / float64(p[1])
				r.Min, r.Max = min(r.Min, v), max(r.Max, v)
			}
		}
		if r.Runs == 0 {
			r.Min, r.Max = 0, 0
		}
		return r
	}
	for _, c := range conds {
		r := rate(string(c), func(x Condition, _ string) bool { return x == c })
		r.Need = opts.Default
		if v, ok := opts.MinPass[c]; ok {
			r.Need = v
		}
		r.OK = r.Runs > 0 && r.Rate >= r.Need
		rep.OK = rep.OK && r.OK
		rep.Conditions = append(rep.Conditions, r)
	}
	for _, c := range cases {
		r := rate(c.Name, func(_ Condition, x string) bool { return x == c.Name })
		r.OK = r.Runs > 0 && r.Passed == r.Runs
		rep.Cases = append(rep.Cases, r)
	}
}
