package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Prepared is a candidate item with what a store derives from the
// candidate alone derived already: its content ID, its Key and the form
// the ledger compares it in (see Reading). A caller that registers the
// same candidates in store after store (a service quotes the records of
// one corpus in every contract it builds) prepares each once and gives
// the stores the Prepared value (Store.AddPrepared); each store then
// checks only what depends on it: its policy, its ledger and what it
// holds. Only Prepare makes one, and nothing changes it after.
type Prepared struct {
	item    Item // the candidate, its ID and Key set
	reading readKey
	empty   bool // the canonical form of the text is empty
}

// Prepare checks c as Add does before it looks at the store (a valid
// type, source and UTF-8 text, an example's text, an address only on
// evidence of its own source, no DerivedFrom, an ID that is the content
// ID of the text when set) and derives what Add would. An error means c
// cannot be prepared; Add of c then refuses it, and records the refusal.
func Prepare(c Item) (Prepared, error) { return prepare(c) }

func prepare(c Item) (Prepared, error) {
	sum, reading, empty, short := shortForms(c.Text)
	if err := checkCandidate(c, short); err != nil {
		return Prepared{}, err
	}
	if !short {
		sum, empty = contentSum(c.Text)
		reading = readingKey(c.Text)
	}
	// The content ID and the Key share one allocation: the two strings
	// live as long as the item does.
	var b [4 * sha256.Size]byte
	hex.Encode(b[:2*sha256.Size], sum[:])
	if c.ID != "" && c.ID != string(b[:2*sha256.Size]) {
		return Prepared{}, fmt.Errorf("the item's content ID %s is not the content ID of its text", ShortID(c.ID))
	}
	c.Key = ""
	key := itemKeySum(c)
	hex.Encode(b[2*sha256.Size:], key[:])
	both := string(b[:])
	c.ID, c.Key = both[:2*sha256.Size], both[2*sha256.Size:]
	return Prepared{item: c, reading: reading, empty: empty}, nil
}

// shortForms derives, in one pass over a short ASCII text (a question, a
// scope: what a build registers besides the corpus's quotes, which come
// prepared), what prepare needs of it: the SHA-256 of its canonical form
// (see asciiContentID), its reading key (see readingKey) and whether the
// canonical form is empty. ok is false for a longer text or one that is
// not ASCII; ASCII is valid UTF-8.
//
// It earns its place: `go test ./provenance -run '^$' -bench
// 'Forms/question'` on 2026-12-02, four runs: 211–254 ns against 347–394
// ns (about 0.6×) for contentSum and readingKey each making its own
// pass; in a build's registrations (-bench LayeredStore: a prepared
// quote, a scope, a question), four interleaved runs with prepare
// calling those two instead: 3.4–5.1 µs against 4.7–6.5 µs (median
// 0.76×), and against 3.8–6.8 µs (median 0.9×) when each byte's reading
// was appended as a string.
func shortForms(text string) (sum [sha256.Size]byte, reading readKey, empty, ok bool) {
	const short = 256
	if len(text) > short {
		return sum, reading, false, false
	}
	// Both forms are written into buffers on the stack, a byte at a time
	// from a table (an ASCII byte's reading is at most three bytes: "%"
	// reads as "o/0").
	var canon [short]byte
	var read [3 * short]byte
	nc, nr := 0, 0
	canonSpace, readSpace := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 {
			return sum, reading, false, false
		}
		if asciiSpace[c] {
			canonSpace, readSpace = nc > 0, nr > 0
			continue
		}
		if canonSpace {
			canon[nc], nc, canonSpace = ' ', nc+1, false
		}
		if readSpace {
			read[nr], nr, readSpace = ' ', nr+1, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		canon[nc], nc = c, nc+1
		r := &asciiReadBytes[c]
		read[nr], read[nr+1], read[nr+2] = r.b[0], r.b[1], r.b[2]
		nr += int(r.n)
	}
	return sha256.Sum256(canon[:nc]), readKeyOf(read[:nr]), nc == 0, true
}

// asciiReadBytes is asciiReadings as bytes: each entry's reading, padded,
// and its length.
var asciiReadBytes = func() (t [128]struct {
	b [3]byte
	n uint8
}) {
	for c, r := range asciiReadings {
		if len(r) > len(t[c].b) {
			panic("provenance: the reading of an ASCII byte is longer than three bytes")
		}
		copy(t[c].b[:], r)
		t[c].n = uint8(len(r))
	}
	return t
}()

// Item is the prepared candidate, with its content ID and Key.
func (p Prepared) Item() Item { return p.item }

// WithServes is p with Ref.Serves set to serves (see Ref): which asked
// subjects a quote serves belongs to a question, not to the quote, so a
// build that asked several sets it on a record prepared without. Only
// the Key is derived again.
func (p Prepared) WithServes(serves string) (Prepared, error) {
	c := p.item
	c.Ref.Serves, c.Key = serves, ""
	if err := checkRef(c); err != nil {
		return Prepared{}, err
	}
	p.item.Ref.Serves = serves
	p.item.Key = itemKey(c)
	return p, nil
}
