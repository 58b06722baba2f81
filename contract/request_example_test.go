package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// A JSON request adds a tool result and promotes it to evidence; the
// contract carries it as an evidence record under its tool source, and a
// tool result that reports failure stops the build.
func ExampleParseRequestFile() {
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		panic(err)
	}
	b := &contract.Builder{Definition: contract.Default(), Index: selector.NewIndex(c),
		Counter: budget.Codepoint, Limits: budget.Limits{Capacity: 1400, Reserve: 200}}
	build := func(result string) {
		rf, err := contract.ParseRequestFile("request.json", []byte(`{
		  "subject": "lodging", "dates": ["2026-09-14"], "short": true,
		  "question": "Is order A-104 within the limit?",
		  "items": [{"type": "tool_output", "source": "tool:order_lookup", "text": "`+result+`"}],
		  "promote": [{"item": 0, "to": "evidence"}]}`))
		if err != nil {
			panic(err)
		}
		var q selector.Query
		q.Subjects, q.Lang = rf.SubjectList(), "en"
		for _, s := range rf.Dates {
			d, _ := corpus.ParseDate(s)
			q.Dates = append(q.Dates, d)
		}
		res, err := b.Build(context.Background(), contract.Request{Query: q, Question: rf.Question, Short: *rf.Short, Items: rf.Candidates(), Promote: rf.Promote})
		if errors.Is(err, provenance.ErrRefused) {
			var pe *provenance.Error
			errors.As(err, &pe)
			fmt.Println("refused:", pe.Code, pe.Validator)
			return
		}
		if err != nil {
			panic(err)
		}
		var doc struct {
			Evidence []struct {
				SourceID string `json:"source_id"`
				Quote    string `json:"quote"`
			} `json:"evidence"`
		}
		if err := json.Unmarshal(res.JSON, &doc); err != nil {
			fmt.Println(err)
			return
		}
		for _, e := range doc.Evidence {
			fmt.Printf("%s: %.40s\n", e.SourceID, e.Quote)
		}
	}
	build("Order A-104: 720 CNY per room-night, confirmed.")
	build("Order A-104: lookup failed.")
	// Output:
	// travel-v2: Scope: lodging on business trips to Beij
	// tool:order_lookup: Order A-104: 720 CNY per room-night, con
	// refused: validation_failed tool_result_ok
}
