package eval

import (
	"context"
	"fmt"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/golden"
)

// Load reads case files as ka2 regress does (package golden: the same
// format, with expect.answer) and makes the cases to evaluate, one
// builder for each distinct corpus, contract definition and budget. A
// case that expects a build error is kept, with ExpectError set, so that
// Evaluate lists it as skipped.
func Load(ctx context.Context, paths []string, opts golden.LoadOptions) ([]Case, error) {
	suite, err := golden.Load(ctx, paths, opts)
	if err != nil {
		return nil, err
	}
	cases := make([]Case, 0, len(suite.Cases))
	builders := map[string]*contract.Builder{}
	for _, c := range suite.Cases {
		key := fmt.Sprintf("%q %q %q %q %v %v %v", c.Config.Corpus.Name, c.Config.Contract, c.Config.Content, c.Config.Counter, deref(c.Config.Capacity), deref(c.Config.Reserve), deref(c.Config.Wrapper))
		b := builders[key]
		if b == nil {
			if b, err = c.Config.BuilderContext(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", c, err)
			}
			builders[key] = b
		}
		cases = append(cases, Case{Name: c.File + " " + c.Name, Builder: b, Request: c.Request(), ExpectAnswer: c.Expect.Answer, ExpectError: c.Expect.Error})
	}
	return cases, nil
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
