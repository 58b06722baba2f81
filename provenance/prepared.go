package provenance

import "fmt"

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
	if err := checkCandidate(c); err != nil {
		return Prepared{}, err
	}
	id, empty := contentID(c.Text)
	if c.ID != "" && c.ID != id {
		return Prepared{}, fmt.Errorf("the item's content ID %s is not the content ID of its text", ShortID(c.ID))
	}
	c.ID, c.Key = id, ""
	c.Key = itemKey(c)
	return Prepared{item: c, reading: readingKey(c.Text), empty: empty}, nil
}

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
