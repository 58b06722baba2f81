package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/grade"
	"github.com/ka2/ka2/selector"
)

// Request is what a generator is told besides the contract: the question
// and its scope, as a build request states them, and the condition (for
// logs; a fair generator ignores it). An Exec program reads it as
// {"question", "subjects", "dates", "lang", "condition"}.
type Request struct {
	contract.RequestFile
	Condition string `json:"condition"`
}

// Generator answers one contract. Implementations must be safe for
// concurrent use when Options.Jobs > 1.
type Generator interface {
	Answer(ctx context.Context, contract []byte, req Request) (string, error)
}

// Case is one question to evaluate.
type Case struct {
	// Name identifies the case in reports, e.g. "cases/lodging.yaml:4 current".
	Name    string
	Builder *contract.Builder
	Request contract.Request
	// ExpectAnswer lists numbers or phrases the answer must contain, under
	// every condition but missing (whose right answer is a refusal).
	ExpectAnswer []string
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
	// MinPass is the pass rate each condition must reach, by condition;
	// Default applies to the others (default 0.9).
	MinPass map[Condition]float64
	Default float64
	// Grade holds the refusal phrases and instruction texts.
	Grade grade.Options
	// Progress, when set, is called after each run with the number done
	// and the total.
	Progress func(done, total int)
}

// Run is one answer to one variant.
type Run struct {
	Case      string          `json:"case"`
	Condition Condition       `json:"condition"`
	Repeat    int             `json:"repeat"`
	Pass      bool            `json:"pass"`
	Answer    string          `json:"answer"`
	Error     string          `json:"error,omitempty"`
	Findings  []grade.Finding `json:"findings"`
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
	// Need and OK are set for conditions: the threshold and whether the
	// rate meets it.
	Need float64 `json:"need,omitempty"`
	OK   bool    `json:"ok"`
}

// Report is an evaluation's outcome.
type Report struct {
	OK         bool   `json:"ok"`
	Conditions []Rate `json:"conditions"`
	Cases      []Rate `json:"cases"`
	// Runs lists every run, by case, then condition, then repeat.
	Runs []Run `json:"runs"`
}

// Evaluate runs every case under every condition. It stops when ctx is
// done, returning ctx's error. A generator's failure (an error instead of
// an answer) is a failed run, not an error of Evaluate.
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
		i        int
		c        *Case
		cond     Condition
		rep      int
		contract []byte
		req      Request
	}
	var tasks []task
	for ci := range cases {
		c := &cases[ci]
		res, err := c.Builder.Build(ctx, c.Request)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		var distractors []contract.EvidenceRecord
		for _, cond := range conds {
			if strings.HasPrefix(string(cond), "position:") && distractors == nil {
				if distractors, err = otherSubjects(ctx, c, opts.Distractors); err != nil {
					return nil, fmt.Errorf("case %s: distractors: %w", c.Name, err)
				}
			}
			v, err := variant(res.JSON, cond, distractors, opts.Hostile)
			if err != nil {
				return nil, fmt.Errorf("case %s, %s: %w", c.Name, cond, err)
			}
			req := Request{RequestFile: contract.RequestFile{Question: c.Request.Question, Subjects: c.Request.Query.Subjects, Lang: res.Lang},
				Condition: string(cond)}
			for _, d := range c.Request.Query.Dates {
				req.Dates = append(req.Dates, d.String())
			}
			for r := range repeat {
				tasks = append(tasks, task{i: len(tasks), c: c, cond: cond, rep: r + 1, contract: v, req: req})
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
				runs[t.i] = run(ctx, gen, t.c, t.cond, t.rep, t.contract, t.req, opts.Grade)
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
	return summarise(runs, cases, conds, repeat, opts), nil
}

func run(ctx context.Context, gen Generator, c *Case, cond Condition, rep int, doc []byte, req Request, gopts grade.Options) Run {
	r := Run{Case: c.Name, Condition: cond, Repeat: rep, Findings: []grade.Finding{}}
	answer, err := gen.Answer(ctx, doc, req)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Answer = answer
	gc, err := grade.ParseContract(string(cond), doc)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	g := grade.Grade(gc, answer, gopts)
	r.Findings = g.Findings
	if cond != Missing {
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

// otherSubjects collects up to n evidence records of the corpus's other
// subjects on the case's dates, sorted by address, for the position
// conditions.
func otherSubjects(ctx context.Context, c *Case, n int) ([]contract.EvidenceRecord, error) {
	var out []contract.EvidenceRecord
	seen := map[string]bool{}
	for _, s := range c.Builder.Index.Subjects() {
		if slices.Contains(c.Request.Query.Subjects, s) {
			continue
		}
		req := contract.Request{Query: selector.Query{Subjects: []string{s}, Dates: c.Request.Query.Dates, Lang: c.Request.Query.Lang}, Question: c.Request.Question}
		res, err := c.Builder.Build(ctx, req)
		if err != nil {
			continue // a subject whose contract does not fit offers no distractor
		}
		gc, err := grade.ParseContract(s, res.JSON)
		if err != nil {
			return nil, err
		}
		for _, r := range gc.Evidence {
			key := fmt.Sprintf("%s:%d-%d", r.SourceID, r.LineStart, r.LineEnd)
			if !seen[key] && !slices.ContainsFunc(out, func(o contract.EvidenceRecord) bool { return o.SourceID == r.SourceID }) {
				seen[key] = true
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, func(a, b contract.EvidenceRecord) int { return strings.Compare(a.SourceID, b.SourceID) })
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

func summarise(runs []Run, cases []Case, conds []Condition, repeat int, opts Options) *Report {
	rep := &Report{OK: true, Runs: runs}
	rate := func(name string, keep func(Run) bool) Rate {
		r := Rate{Name: name, Min: math.Inf(1), Max: math.Inf(-1)}
		per := make([][2]int, repeat)
		for _, x := range runs {
			if !keep(x) {
				continue
			}
			r.Runs++
			per[x.Repeat-1][1]++
			if x.Pass {
				r.Passed++
				per[x.Repeat-1][0]++
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
		r := rate(string(c), func(x Run) bool { return x.Condition == c })
		r.Need = opts.Default
		if v, ok := opts.MinPass[c]; ok {
			r.Need = v
		}
		r.OK = r.Rate >= r.Need
		rep.OK = rep.OK && r.OK
		rep.Conditions = append(rep.Conditions, r)
	}
	for _, c := range cases {
		r := rate(c.Name, func(x Run) bool { return x.Case == c.Name })
		r.OK = r.Passed == r.Runs
		rep.Cases = append(rep.Cases, r)
	}
	return rep
}
