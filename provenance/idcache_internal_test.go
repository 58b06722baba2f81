package provenance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/corpus"
)

// TestContentIDCache: the cache never changes an ID. Texts that share a
// slot, texts that differ only where canonical forms agree, a text met
// again after its slot was taken, and texts over the size the cache
// keeps all get the ID computed from scratch.
func TestContentIDCache(t *testing.T) {
	var texts []string
	for i := range 3 * len(idCache) { // more texts than slots: slots are shared and retaken
		texts = append(texts, fmt.Sprintf("Line %d of the policy: 住宿 %d 元", i, i%7))
	}
	texts = append(texts, "", "   ", "Ａ Ｂ", "a b", "A\tB", strings.Repeat("x", idCacheMaxText+1), strings.Repeat("é", idCacheMaxText))
	for round := range 3 {
		for _, text := range texts {
			wantID, wantEmpty := computeContentID(text)
			id, empty := contentID(text)
			if id != wantID || empty != wantEmpty {
				t.Fatalf("round %d: contentID(%.40q) = %s, %v; computed %s, %v", round, text, id, empty, wantID, wantEmpty)
			}
			if id != idOf(Canonical(text)) {
				t.Fatalf("contentID(%.40q) is not the SHA-256 of its canonical form", text)
			}
		}
	}
}

// TestItemKeyCache: the cache never changes a key. Items that differ in
// any one field the key covers, items that share a slot, an item met
// again after its slot was taken, items that differ only in what the key
// leaves out, and texts over the size the cache keeps all get the key
// computed from scratch.
func TestItemKeyCache(t *testing.T) {
	base := Item{Kind: KindEvidence, Source: "corpus:travel-v2", Text: "The lodging limit is 750 CNY.",
		Ref: Ref{SourceID: "travel-v2", Version: "v2", Lines: corpus.Range{Start: 1, End: 3}}}
	vary := []func(*Item){
		func(it *Item) {},
		func(it *Item) { it.Kind = KindToolOutput },
		func(it *Item) { it.Source = "corpus:travel-v3" },
		func(it *Item) { it.Text += " " },
		func(it *Item) { it.DerivedFrom = "abc" },
		func(it *Item) { it.Example.Question = "q" },
		func(it *Item) { it.Example.Answer = "a" },
		func(it *Item) { it.Ref.SourceID = "x" },
		func(it *Item) { it.Ref.Version = "v3" },
		func(it *Item) { it.Ref.Lang = "zh" },
		func(it *Item) { it.Ref.Lines.Start = 2 },
		func(it *Item) { it.Ref.Lines.End = 4 },
		func(it *Item) { it.Ref.ValidFrom = corpus.Date{} },
		func(it *Item) { it.Ref.ValidUntil, _ = corpus.ParseDate("2026-12-31") },
		func(it *Item) { it.Ref.Unit = "CNY" },
		func(it *Item) { it.ID = "not part of the key" },
		func(it *Item) { it.Created = time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC) },
		func(it *Item) { it.Text = strings.Repeat("x", idCacheMaxText+1) },
	}
	var items []Item
	for _, v := range vary {
		it := base
		v(&it)
		items = append(items, it)
	}
	for i := range 3 * len(keyCache) { // more items than slots: slots are shared and retaken
		it := base
		it.Text = fmt.Sprintf("Quote %d: 住宿 %d 元", i, i%7)
		items = append(items, it)
	}
	keys := map[string]Item{}
	for round := range 3 {
		for _, it := range items {
			want := itemKey(it)
			if got := keyOf(it); got != want {
				t.Fatalf("round %d: keyOf(%+v) = %s, computed %s", round, it, got, want)
			}
			// Apart from what the key leaves out, different items have
			// different keys.
			bare := it
			bare.ID, bare.Created = "", time.Time{}
			if o, ok := keys[want]; ok && o != bare {
				t.Fatalf("items %+v and %+v share key %s", o, bare, want)
			}
			keys[want] = bare
		}
	}
}
