package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
)

// buildRecord is everything a build shows: the contract, the items, the
// store's history and the trace, or the error.
func buildRecord(t *testing.T, b *contract.Builder, req contract.Request, in ...*provenance.Store) string {
	t.Helper()
	res, err := b.Build(context.Background(), req)
	if len(in) == 1 {
		res, err = b.BuildIn(context.Background(), in[0], req)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "error: %v\n", err)
	if res == nil {
		return out.String()
	}
	fmt.Fprintf(&out, "contract: %s\nitems: %+v\n", res.JSON, res.Items)
	if res.Store != nil {
		if err := res.Store.WriteHistory(&out); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "held: %+v\n", res.Store.Items())
	}
	trace, err := json.Marshal(contract.NewTrace("test", corpus.SampleName, b, req, res, nil))
	if err != nil {
		t.Fatal(err)
	}
	out.Write(trace)
	return out.String()
}

// TestFixedItemsRegisteredOnce: a build that starts from the template of
// its instruction and example (a new store, no clock) shows exactly what
// a build that registers them in a store of its own shows: the contract,
// the items, the audit history and the trace, refusals included; twice in
// a row, under two policies, and from many goroutines at once.
func TestFixedItemsRegisteredOnce(t *testing.T) {
	// The example's answer line, wrapped in an extra instruction.
	exLine := contract.Default().Content["en"].Example.Answer
	noExample := mustParsePolicy(t, strings.Replace(string(provenance.DefaultPolicyYAML), "system: [instruction, example]", "system: [instruction]", 1))
	noSystem := mustParsePolicy(t, strings.Replace(string(provenance.DefaultPolicyYAML), "system: [instruction, example]", "system: []", 1))
	tests := []struct {
		name   string
		policy *provenance.Policy
		req    contract.Request
	}{
		{name: "plain", req: typedRequest(nil)},
		{name: "typed items and a promotion", req: typedRequest([]provenance.Item{
			cand(provenance.KindMemory, "memory:prefs", prefs),
			cand(provenance.KindToolOutput, "tool:order_lookup", orderResult),
			cand(provenance.KindInstruction, "system", "Say whether the order is within the limit."),
		}, contract.Promotion{Item: 1, To: provenance.KindEvidence})},
		{name: "an instruction wrapping the example is refused", req: typedRequest([]provenance.Item{
			cand(provenance.KindInstruction, "system", "Answer like this:\n"+exLine),
		})},
		{name: "evidence that is the instruction is refused", req: typedRequest([]provenance.Item{
			cand(provenance.KindToolOutput, "tool:t", contract.Default().Content["en"].Instruction),
		}, contract.Promotion{Item: 0, To: provenance.KindEvidence})},
		{name: "the policy refuses the example", policy: noExample, req: typedRequest(nil)},
		{name: "the policy refuses the instruction", policy: noSystem, req: typedRequest(nil)},
		{name: "another policy", policy: mustParsePolicy(t, string(provenance.DefaultPolicyYAML)), req: typedRequest(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := typedBuilder(t, tt.policy)
			want := buildRecord(t, b, tt.req, b.NewStore())
			for i := range 2 {
				if diff := cmp.Diff(want, buildRecord(t, b, tt.req)); diff != "" {
					t.Fatalf("build %d mismatch (-own store +template):\n%s", i, diff)
				}
			}
			var wg sync.WaitGroup
			got := make([]string, 8)
			for i := range got {
				wg.Go(func() { got[i] = buildRecord(t, b, tt.req) })
			}
			wg.Wait()
			for i, g := range got {
				if g != want {
					t.Errorf("concurrent build %d differs from a build in its own store", i)
				}
			}
		})
	}
}

func mustParsePolicy(t *testing.T, yaml string) *provenance.Policy {
	t.Helper()
	p, err := provenance.ParsePolicy("test-policy.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
