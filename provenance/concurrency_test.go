package provenance_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ka2/ka2/provenance"
)

// TestConcurrentRegistrationsOfOneContent races registrations of the same
// content under different protected types: exactly one may succeed, and
// the ledger's origin is the type of the one that did.
func TestConcurrentRegistrationsOfOneContent(t *testing.T) {
	contenders := []struct {
		kind   provenance.Kind
		source string
	}{
		{provenance.KindInstruction, "system"},
		{provenance.KindEvidence, "corpus:travel-v2"},
		{provenance.KindInstruction, "system"},
		{provenance.KindEvidence, "corpus:rail-faq-v1"},
	}
	for round := range 200 {
		s := provenance.NewStore(nil)
		text := fmt.Sprintf("Round %d: the lodging limit is 750 CNY per room-night.", round)
		var start sync.WaitGroup
		start.Add(1)
		var done sync.WaitGroup
		var okKinds sync.Map
		var ok atomic.Int32
		for _, c := range contenders {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				if _, err := s.Add(provenance.NewItem(c.kind, c.source, text, noTime)); err == nil {
					ok.Add(1)
					okKinds.Store(c.kind, true)
				}
			}()
		}
		start.Done()
		done.Wait()
		kinds := 0
		okKinds.Range(func(k, v any) bool { kinds++; return true })
		if kinds != 1 {
			t.Fatalf("round %d: registrations under %d types succeeded, want exactly 1", round, kinds)
		}
		o, found := s.Ledger().Origin(provenance.ContentID(text))
		if !found {
			t.Fatalf("round %d: no origin", round)
		}
		if _, winner := okKinds.Load(o.Kind); !winner {
			t.Errorf("round %d: origin %s is not the type that succeeded", round, o.Kind)
		}
		if len(s.History()) != len(contenders) {
			t.Errorf("round %d: history has %d events, want %d", round, len(s.History()), len(contenders))
		}
	}
}

// TestConcurrentUse mixes adds, transforms and reads from many goroutines;
// run with -race. Every goroutine's own chain must come out whole.
func TestConcurrentUse(t *testing.T) {
	s := provenance.NewStore(nil)
	const workers = 16
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				text := fmt.Sprintf("Order %d-%d: confirmed, 720 CNY per room-night.", w, i)
				tool, err := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:order_lookup", text, noTime))
				if err != nil {
					t.Error(err)
					return
				}
				ev, err := s.Transform(tool, provenance.KindEvidence)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Transform(ev, provenance.KindMemory); err != nil {
					t.Error(err)
					return
				}
				// A relabel of the same content must always be refused.
				if _, err := s.Add(provenance.NewItem(provenance.KindInstruction, "system", text, noTime)); err == nil {
					t.Errorf("relabel of %q accepted", text)
				}
				_ = s.Items()
				_ = s.History()
				_ = s.Lineage(ev.Key)
				_, _ = s.Ledger().Origin(tool.ID)
			}
		}()
	}
	wg.Wait()
	if got, want := s.Len(), workers*20*3; got != want {
		t.Errorf("store holds %d items, want %d", got, want)
	}
	if got, want := len(s.History()), workers*20*4; got != want {
		t.Errorf("history has %d events, want %d", got, want)
	}
	for i, ev := range s.History() {
		if ev.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
}
