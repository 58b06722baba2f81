package provenance

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// idOf is the content ID of a canonical form.
func idOf(canon string) string {
	sum := sha256.Sum256([]byte(canon))
	return hexString(sum)
}

// preparedForms checks that prepare derives from c what each form's own
// definition gives: the content ID of the canonical form, the Key of the
// item, the reading key of the Reading form and whether the canonical
// form is empty; or, for text that is not UTF-8, refuses it.
func preparedForms(t *testing.T, c Item) {
	t.Helper()
	p, err := prepare(c)
	if !utf8.ValidString(c.Text) {
		if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Fatalf("prepare(%.40q) = %v, want a refusal of its text", c.Text, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("prepare(%.40q): %v", c.Text, err)
	}
	canon := Canonical(c.Text)
	key := c
	key.Key = ""
	r := Reading(c.Text)
	var reading readKey
	binary.LittleEndian.PutUint64(reading[:8], maphash.String(readingSeeds[0], r))
	binary.LittleEndian.PutUint64(reading[8:], maphash.String(readingSeeds[1], r))
	if p.item.ID != idOf(canon) || p.item.Key != itemKey(key) || p.reading != reading || p.empty != (canon == "") {
		t.Fatalf("prepare(%.40q) = ID %s, Key %s, reading %x, empty %v; want %s, %s, %x, %v",
			c.Text, p.item.ID, p.item.Key, p.reading, p.empty, idOf(canon), itemKey(key), reading, canon == "")
	}
}

// TestPrepareForms: prepare's one pass over a short ASCII text derives
// what the separate forms do, at the edges of its buffer, for texts of
// the bytes Reading maps to others, and for the texts it leaves to the
// general path (long, not ASCII, not UTF-8).
func TestPrepareForms(t *testing.T) {
	texts := []string{"", " ", "\t\n", "What is the limit?", "  What IS the\tlimit?  ", "rn m 0 O 1 l I |",
		strings.Repeat("a", 255), strings.Repeat("M", 256), strings.Repeat("%", 256), strings.Repeat("m", 257), strings.Repeat("Ab ", 86),
		"住宿 750 元", "Т limit", "a\u200bb", "bad \xff byte", strings.Repeat("x", 255) + "é"}
	var all strings.Builder
	for c := range 128 {
		all.WriteByte(byte(c))
	}
	texts = append(texts, all.String())
	r := rand.New(rand.NewPCG(29, 2))
	const alphabet = "aAmMrRnNiIlL01|`\"% \t\n\r\v\f.:-_"
	for range 2000 {
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		preparedForms(t, Item{Kind: KindQuestion, Source: SourceUser, Text: text})
	}
}

func FuzzPrepareForms(f *testing.F) {
	for _, s := range []string{"What is the limit?", "  rn m\t0 O 1 l  ", "住宿 750 元", "bad \xff", strings.Repeat("Mm ", 90)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		preparedForms(t, Item{Kind: KindScope, Source: SourceUser, Text: s})
	})
}
