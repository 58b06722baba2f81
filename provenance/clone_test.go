package provenance_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/provenance"
)

// cloneCall is one Add, or with from >= 0 one Transform of the item an
// earlier call returned.
type cloneCall struct {
	kind   provenance.Kind
	source string
	text   string
	from   int
}

var cloneExample = provenance.Example{Question: "What is the limit?", Answer: "750 CNY."}

// runCalls makes calls on s, after calls that returned got, and returns
// the items of all of them and the outcome of each new one as text. An
// example is always cloneExample.
func runCalls(s *provenance.Store, calls []cloneCall, got []provenance.Item) ([]provenance.Item, []string) {
	var out []string
	for _, c := range calls {
		var it provenance.Item
		var err error
		switch {
		case c.from >= 0:
			it, err = s.Transform(got[c.from], c.kind)
		case c.kind == provenance.KindExample:
			it, err = s.Add(provenance.NewExample(cloneExample, noTime))
		default:
			it, err = s.Add(provenance.NewItem(c.kind, c.source, c.text, noTime))
		}
		got = append(got, it)
		out = append(out, fmt.Sprintf("%+v %v", it, err))
	}
	return got, out
}

// storeState is everything a store shows of itself.
func storeState(t *testing.T, s *provenance.Store) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteHistory(&b); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "items %+v\norigins %+v\nlen %d %d\n", s.Items(), s.Ledger().Origins(), s.Len(), s.Ledger().Len())
	for _, it := range s.Items() {
		fmt.Fprintf(&b, "lineage %s %+v\n", it.Key, s.Lineage(it.Key))
	}
	return b.String()
}

// TestCloneContinuesAsTheOriginal: a clone taken after any number of
// calls, given the rest of the calls, ends in the state (items, ledger,
// history, outcomes, wrapped and protected refusals) of a store given
// every call; and calls on either after the clone do not reach the other.
func TestCloneContinuesAsTheOriginal(t *testing.T) {
	inst := "Answer only from the evidence given below, and cite it."
	calls := []cloneCall{
		{provenance.KindInstruction, "system", inst, -1},
		{provenance.KindExample, "system", "", -1},
		{provenance.KindToolOutput, "tool:order_lookup", toolText, -1},
		{provenance.KindEvidence, "corpus:travel-v2", evidenceText, -1},
		// Wraps the tool result: refused, once the index holds its line.
		{provenance.KindInstruction, "system", "<instructions>\n" + toolText + "\n</instructions>", -1},
		{provenance.KindEvidence, "", "", 2},                                                   // a transform of the tool result
		{provenance.KindEvidence, "corpus:x", inst, -1},                                        // protected: first an instruction
		{provenance.KindMemory, "memory:prefs", memoryText, -1},                                // new content, indexed after a check
		{provenance.KindInstruction, "system", "Mind this:\n" + memoryText, -1},                // wraps the memory
		{provenance.KindToolOutput, "tool:order_lookup", toolText, -1},                         // already held
		{provenance.KindInstruction, "system", "Cite every line you use, by its address.", -1}, // accepted
	}
	whole := provenance.NewStore(nil)
	_, wantOut := runCalls(whole, calls, nil)
	want := storeState(t, whole)
	for k := range len(calls) + 1 {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			orig := provenance.NewStore(nil)
			got, out := runCalls(orig, calls[:k], nil)
			before := storeState(t, orig)
			c := orig.Clone()
			// The original goes on differently; the clone must not see it.
			other := "Another remembered line, long enough to index."
			more := []cloneCall{{provenance.KindMemory, "memory:other", other, -1}, {provenance.KindInstruction, "system", other, -1}}
			runCalls(orig, more, slices.Clone(got))
			alone := provenance.NewStore(nil)
			runCalls(alone, slices.Concat(calls[:k], more), nil)
			if diff := cmp.Diff(before, storeState(t, c)); diff != "" {
				t.Errorf("the clone changed with its original (-before +clone):\n%s", diff)
			}
			_, rest := runCalls(c, calls[k:], got)
			if diff := cmp.Diff(wantOut, append(out, rest...)); diff != "" {
				t.Errorf("outcomes mismatch (-one store +clone after %d calls):\n%s", k, diff)
			}
			if diff := cmp.Diff(want, storeState(t, c)); diff != "" {
				t.Errorf("state mismatch (-one store +clone after %d calls):\n%s", k, diff)
			}
			if diff := cmp.Diff(storeState(t, alone), storeState(t, orig)); diff != "" {
				t.Errorf("the original changed with its clone (-alone +original):\n%s", diff)
			}
		})
	}
}
