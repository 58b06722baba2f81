package provenance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/corpus"
)

// TestContentIDForms: the content ID of every text, ASCII (hashed in
// one pass) or not, is the SHA-256 of its canonical form, and empty says
// whether that form is empty.
func TestContentIDForms(t *testing.T) {
	var texts []string
	for i := range 20 {
		texts = append(texts, fmt.Sprintf("Line %d of the policy: 住宿 %d 元", i, i%7), fmt.Sprintf("  Line %d OF the\tpolicy.\r\n", i))
	}
	texts = append(texts, "", "   ", "\n\t", "Ａ Ｂ", "a b", "A\tB", strings.Repeat("x", 5000), strings.Repeat("é", 5000))
	for _, text := range texts {
		id, empty := contentID(text)
		c := Canonical(text)
		if id != idOf(c) || empty != (c == "") {
			t.Fatalf("contentID(%.40q) = %s, %v; want the SHA-256 of its canonical form %s, %v", text, id, empty, idOf(c), c == "")
		}
	}
}

// TestItemKeyCovers: items that differ in any one field the key covers
// have different keys; items that differ only in what it leaves out (the
// content ID and the creation time) share one.
func TestItemKeyCovers(t *testing.T) {
	base := Item{Kind: KindEvidence, Source: "corpus:travel-v2", Text: "The lodging limit is 750 CNY.",
		Ref: Ref{SourceID: "travel-v2", Version: "v2", Lines: corpus.Range{Start: 1, End: 3}}}
	base.Ref.ValidFrom, _ = corpus.ParseDate("2026-01-01")
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
		func(it *Item) { it.Text = strings.Repeat("x", 5000) },
	}
	var items []Item
	for _, v := range vary {
		it := base
		v(&it)
		items = append(items, it)
	}
	for i := range 50 {
		it := base
		it.Text = fmt.Sprintf("Quote %d: 住宿 %d 元", i, i%7)
		items = append(items, it)
	}
	keys := map[string]Item{}
	for _, it := range items {
		key := itemKey(it)
		bare := it
		bare.ID, bare.Created = "", time.Time{}
		if o, ok := keys[key]; ok && o != bare {
			t.Fatalf("items %+v and %+v share key %s", o, bare, key)
		}
		keys[key] = bare
	}
	if got, want := len(keys), len(items)-2; got != want { // the ID and the creation time make no new key
		t.Errorf("%d items have %d keys, want %d", len(items), got, want)
	}
}
