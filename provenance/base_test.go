package provenance_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/provenance"
)

// storeCall is one Add, or with from >= 0 one Transform of the item an
// earlier call returned.
type storeCall struct {
	kind   provenance.Kind
	source string
	text   string
	from   int
}

var callExample = provenance.Example{Question: "What is the limit?", Answer: "750 CNY."}

// runCalls makes calls on s, after calls that returned got, and returns
// the items of all of them and the outcome of each new one as text. An
// example is always callExample.
func runCalls(s *provenance.Store, calls []storeCall, got []provenance.Item) ([]provenance.Item, []string) {
	var out []string
	for _, c := range calls {
		var it provenance.Item
		var err error
		switch {
		case c.from >= 0:
			it, err = s.Transform(got[c.from], c.kind)
		case c.kind == provenance.KindExample:
			it, err = s.Add(provenance.NewExample(callExample, noTime))
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

// TestBaseContinuesAsTheOriginal: a store made from a Base frozen after
// any number of calls, given the rest of the calls, ends in the state
// (items, ledger, history, outcomes, wrapped and protected refusals,
// those that hit a line of the base included) of a store given every
// call; so does one made from a Base frozen from such a store part way
// through the rest; and calls on the original, or on another store made
// from the same Base, after the freeze do not reach it.
func TestBaseContinuesAsTheOriginal(t *testing.T) {
	inst := "Answer only from the evidence given below, and cite it."
	calls := []storeCall{
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
		{provenance.KindMemory, "memory:prefs", strings.ToUpper(memoryText), -1},               // the same content, another item
		{provenance.KindMemory, "memory:notes", "Noted:\n" + inst, -1},                         // repeats the instruction's line
		{provenance.KindInstruction, "system", "Quote:\n" + strings.ToUpper(inst), -1},         // a line first an instruction's: accepted
	}
	whole := provenance.NewStore(nil)
	_, wantOut := runCalls(whole, calls, nil)
	want := storeState(t, whole)
	other := "Another remembered line, long enough to index."
	more := []storeCall{{provenance.KindMemory, "memory:other", other, -1}, {provenance.KindInstruction, "system", other, -1}}
	for k := range len(calls) + 1 {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			orig := provenance.NewStore(nil)
			got, out := runCalls(orig, calls[:k], nil)
			before := storeState(t, orig)
			base := orig.Freeze()
			c := base.NewStore()
			if diff := cmp.Diff(before, storeState(t, c)); diff != "" {
				t.Errorf("a new store of the base differs from the frozen store (-frozen +new):\n%s", diff)
			}
			// The original and a sibling go on differently; c must not
			// see it.
			runCalls(orig, more, slices.Clone(got))
			sibling := base.NewStore()
			runCalls(sibling, more, slices.Clone(got))
			alone := provenance.NewStore(nil)
			runCalls(alone, slices.Concat(calls[:k], more), nil)
			if diff := cmp.Diff(before, storeState(t, c)); diff != "" {
				t.Errorf("the new store changed with its original (-before +new):\n%s", diff)
			}
			_, rest := runCalls(c, calls[k:], got)
			if diff := cmp.Diff(wantOut, append(slices.Clone(out), rest...)); diff != "" {
				t.Errorf("outcomes mismatch (-one store +layered after %d calls):\n%s", k, diff)
			}
			if diff := cmp.Diff(want, storeState(t, c)); diff != "" {
				t.Errorf("state mismatch (-one store +layered after %d calls):\n%s", k, diff)
			}
			for _, s := range []*provenance.Store{orig, sibling} {
				if diff := cmp.Diff(storeState(t, alone), storeState(t, s)); diff != "" {
					t.Errorf("the original or a sibling changed with the new store (-alone +got):\n%s", diff)
				}
			}
			// Frozen again part way through the rest: a base of a
			// layered store holds both layers.
			for j := k; j <= len(calls); j++ {
				c := base.NewStore()
				got, out := runCalls(c, calls[k:j], slices.Clone(got))
				next := c.Freeze().NewStore()
				_, rest := runCalls(next, calls[j:], got)
				if diff := cmp.Diff(wantOut[k:], slices.Concat(out, rest), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("outcomes mismatch (-one store +frozen after %d and %d calls):\n%s", k, j, diff)
				}
				if diff := cmp.Diff(want, storeState(t, next)); diff != "" {
					t.Errorf("state mismatch (-one store +frozen after %d and %d calls):\n%s", k, j, diff)
				}
			}
		})
	}
}

// TestBaseSharedConcurrently: stores made from one Base on many
// goroutines at once (run with -race) each end as a store given every
// call alone, the base's wrapped and protected lines included.
func TestBaseSharedConcurrently(t *testing.T) {
	inst := "Answer only from the evidence given below, and cite it."
	tmpl := provenance.NewStore(nil)
	got, _ := runCalls(tmpl, []storeCall{
		{provenance.KindInstruction, "system", inst, -1},
		{provenance.KindExample, "system", "", -1},
		{provenance.KindToolOutput, "tool:order_lookup", toolText, -1},
	}, nil)
	base := tmpl.Freeze()
	const workers = 8
	states := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range 20 {
				c := base.NewStore()
				calls := workerCalls(w, i, inst)
				_, out := runCalls(c, calls, slices.Clone(got))
				var b bytes.Buffer
				if err := c.WriteHistory(&b); err != nil {
					t.Error(err)
				}
				states[w] = append(states[w], fmt.Sprint(out, b.String(), c.Items(), c.Ledger().Origins()))
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i, st := range states[w] {
			alone := provenance.NewStore(nil)
			head, _ := runCalls(alone, []storeCall{
				{provenance.KindInstruction, "system", inst, -1},
				{provenance.KindExample, "system", "", -1},
				{provenance.KindToolOutput, "tool:order_lookup", toolText, -1},
			}, nil)
			_, out := runCalls(alone, workerCalls(w, i, inst), head)
			var b bytes.Buffer
			if err := alone.WriteHistory(&b); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprint(out, b.String(), alone.Items(), alone.Ledger().Origins()); st != want {
				t.Errorf("worker %d, store %d differs from a store given every call:\n%s", w, i, cmp.Diff(want, st))
			}
		}
	}
}

// workerCalls are the calls of one store of TestBaseSharedConcurrently:
// its own content, an instruction wrapping a base line, evidence that is
// the base's instruction, and a transform of the base's tool result.
func workerCalls(w, i int, inst string) []storeCall {
	own := fmt.Sprintf("Worker %d, store %d: remember the room-night limit.", w, i)
	return []storeCall{
		{provenance.KindMemory, "memory:prefs", own, -1},
		{provenance.KindInstruction, "system", "Wrapped:\n" + toolText, -1},
		{provenance.KindInstruction, "system", "Wrapped:\n" + own, -1},
		{provenance.KindEvidence, "corpus:x", inst, -1},
		{provenance.KindEvidence, "", "", 2},
		{provenance.KindInstruction, "system", fmt.Sprintf("Answer as worker %d.", w), -1},
	}
}
