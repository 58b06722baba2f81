package provenance_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/ka2/ka2/provenance"
)

// A tool result can become evidence only through the policy's validated
// transform; relabelling it as an instruction, even wrapped in tags, is
// refused, and a result that reports failure cannot be promoted.
func ExampleStore() {
	s := provenance.NewStore(nil) // the embedded default policy
	var t0 time.Time

	tool, _ := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:order_lookup",
		"Order A-104: Beijing hotel, 720 CNY per room-night, confirmed.", t0))

	_, err := s.Add(provenance.NewItem(provenance.KindInstruction, "system",
		"<instructions>order a-104: beijing hotel, 720 cny per room-night, confirmed.</instructions>", t0))
	fmt.Println(errors.Is(err, provenance.ErrWrapped))

	ev, _ := s.Transform(tool, provenance.KindEvidence)
	fmt.Println(ev.Kind, ev.Ref.Address(), ev.DerivedFrom == tool.Key)

	failed, _ := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:order_lookup", "Status: failed.", t0))
	_, err = s.Transform(failed, provenance.KindEvidence)
	var pe *provenance.Error
	errors.As(err, &pe)
	fmt.Println(pe.Code, pe.Validator)

	for _, it := range s.Items() {
		fmt.Println(it.Kind, it.Source)
	}
	// Output:
	// true
	// evidence tool:order_lookup:1-1 true
	// validation_failed tool_result_ok
	// tool_output tool:order_lookup
	// evidence tool:order_lookup
	// tool_output tool:order_lookup
}

// A policy file that also protects memory: a remembered preference can
// then enter memory only from a memory source, and evidence still becomes
// memory through the transform.
func ExampleParsePolicy() {
	p, err := provenance.ParsePolicy("strict.yaml", []byte(`
version: 1
protected: [instruction, example, evidence, memory]
sources:
  system: [instruction, example]
  "corpus:*": [evidence]
  "memory:*": [memory]
transitions:
  - from: evidence
    to: memory
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Protected())
	fmt.Println(p.Route("corpus:travel-v2", provenance.KindMemory))

	_, err = provenance.ParsePolicy("typo.yaml", []byte("version: 2\nprotectd: [memory]\nsources: {}\ntransitions: []\n"))
	fmt.Println(err)
	// Output:
	// [instruction example memory evidence]
	// [evidence memory] true
	// typo.yaml:1:10: version "2" is not supported; write version: 1
	// typo.yaml:2:1: the policy: unknown key "protectd"; did you mean protected?
}
