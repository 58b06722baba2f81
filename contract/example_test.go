package contract_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Build the contract for a lodging question on the embedded sample corpus,
// quoting only the author's cite ranges.
func ExampleBuilder_Build() {
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		panic(err)
	}
	b := &contract.Builder{
		Definition: contract.Default(),
		Index:      selector.NewIndex(c),
		Counter:    budget.Codepoint,
		Limits:     budget.Limits{Capacity: 1600, Reserve: 200},
	}
	res, err := b.Build(context.Background(), contract.Request{
		Query: selector.Query{
			Subjects: []string{"lodging"},
			Dates:    []corpus.Date{corpus.MustDate(2026, time.September, 14)},
			Lang:     "en",
		},
		Question: "What is the Beijing lodging limit?",
		Short:    true,
	})
	if err != nil {
		panic(err)
	}
	for _, it := range res.Items {
		if it.Kind == provenance.KindEvidence {
			fmt.Printf("[%s] %q\n", it.Ref.Address(), it.Text)
		}
	}
	fmt.Printf("%d of %d used, %d left\n", res.Budget.Total, res.Budget.Limit(), res.Budget.Left)
	// Output:
	// [travel-v2:1-3] "Scope: lodging on business trips to Beijing.\nEffective from 2026-01-01 until further notice; replaces travel-v1.\nThe lodging limit is 750 CNY per room-night."
	// 1026 of 1400 used, 374 left
}
