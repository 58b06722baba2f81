package provenance

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/ka2/ka2/corpus"
)

// Item is one typed piece of context. Items are values without pointers
// into shared state: a copy can be changed without changing the original,
// and the store hands out copies. Nothing edits an item after the store
// registered it; a transform makes a new item whose DerivedFrom names the
// old one.
//
// An Item built by NewItem, NewExample or NewEvidence is a candidate: it
// has a content ID but no Key, and becomes a held item only through
// Store.Add.
type Item struct {
	Kind Kind `json:"type"`
	// Source is where the text came from: "system", "user", "corpus:ID",
	// "tool:NAME" or "memory:NAME" (see CheckSource). A transform keeps the
	// source of the item it derives from.
	Source string `json:"source"`
	// Text is the exact content, byte for byte. For an example it is the
	// question and the answer joined by a blank line; for evidence, the
	// quote.
	Text string `json:"text"`
	// ID is the content ID of Text (see ContentID).
	ID string `json:"id"`
	// Key identifies the item in a store: a hash of its kind, source,
	// exact text, address, example and DerivedFrom (see Store.Add). It is
	// empty on a candidate.
	Key string `json:"key,omitempty"`
	// Created is when the item was made, from the caller's or the store's
	// clock. It is not part of the Key.
	Created time.Time `json:"created"`
	// DerivedFrom is the Key of the item this one was transformed from, or
	// "" for an item registered directly.
	DerivedFrom string `json:"derived_from,omitempty"`
	// Example holds the question and answer of an example item.
	Example Example `json:"example,omitzero"`
	// Ref addresses the quoted lines of an evidence item.
	Ref Ref `json:"ref,omitzero"`
}

// Example is the worked example's question and answer.
type Example struct {
	Question string `json:"question" yaml:"question"`
	Answer   string `json:"answer" yaml:"answer"`
}

// Ref addresses an evidence quote: the source, its version and the cited
// lines, and when and in what unit the quote applies: the source's
// validity and declared unit travel with every quote, so no shortening
// can lose them. For evidence promoted from a tool result, SourceID is the
// tool source ("tool:order_lookup"), Version the first 12 hex digits of
// the content ID, Lines the whole text, and validity and unit are unset: a
// tool result declares neither.
type Ref struct {
	SourceID string
	Version  string
	Lang     string
	Lines    corpus.Range
	// ValidFrom and ValidUntil are the source's validity; a zero
	// ValidUntil is open-ended. Unit is the source's declared unit, or "".
	ValidFrom  corpus.Date
	ValidUntil corpus.Date
	Unit       string
	// Role is the source's role when it is not a primary source
	// ("supplement"), or "". Serves names the asked subjects the quote
	// serves, separated by single spaces (a subject has none), when the
	// question asked more than one; "" otherwise. Both say which records
	// may conflict: only primary records serving one asked subject. Serves
	// is a string, not a list, so that a Ref stays comparable.
	Role   string
	Serves string
}

// Address formats the reference as a citation address "ID:START-END".
func (r Ref) Address() string {
	return corpus.Address{SourceID: r.SourceID, Range: r.Lines}.String()
}

type refJSON struct {
	SourceID   string `json:"source_id"`
	Version    string `json:"version"`
	Lang       string `json:"lang,omitempty"`
	ValidFrom  string `json:"valid_from,omitempty"`
	ValidUntil string `json:"valid_until,omitempty"`
	Unit       string `json:"unit,omitempty"`
	Role       string `json:"role,omitempty"`
	Serves     string `json:"serves,omitempty"`
	LineStart  int    `json:"line_start"`
	LineEnd    int    `json:"line_end"`
}

// MarshalJSON writes the reference with the contract's field names.
func (r Ref) MarshalJSON() ([]byte, error) {
	return json.Marshal(refJSON{r.SourceID, r.Version, r.Lang, dateText(r.ValidFrom), dateText(r.ValidUntil), r.Unit, r.Role, r.Serves, r.Lines.Start, r.Lines.End})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Ref) UnmarshalJSON(data []byte) error {
	var j refJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = Ref{SourceID: j.SourceID, Version: j.Version, Lang: j.Lang, Unit: j.Unit, Role: j.Role, Serves: j.Serves, Lines: corpus.Range{Start: j.LineStart, End: j.LineEnd}}
	for _, d := range []struct {
		text string
		into *corpus.Date
	}{{j.ValidFrom, &r.ValidFrom}, {j.ValidUntil, &r.ValidUntil}} {
		if d.text == "" {
			continue
		}
		v, err := corpus.ParseDate(d.text)
		if err != nil {
			return err
		}
		*d.into = v
	}
	return nil
}

// dateText is d as YYYY-MM-DD, or "" for the zero date.
func dateText(d corpus.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// NewItem makes a candidate item of kind from text, with its content ID.
func NewItem(kind Kind, source, text string, created time.Time) Item {
	return Item{Kind: kind, Source: source, Text: text, ID: ContentID(text), Created: created}
}

// ExampleText is the text of an example item: the question and the answer
// joined by a blank line.
func ExampleText(ex Example) string { return ex.Question + "\n\n" + ex.Answer }

// NewExample makes the candidate example item from system.
func NewExample(ex Example, created time.Time) Item {
	it := NewItem(KindExample, SourceSystem, ExampleText(ex), created)
	it.Example = ex
	return it
}

// NewEvidence makes a candidate evidence item quoting ref's lines; its
// source is "corpus:" + ref.SourceID.
func NewEvidence(ref Ref, quote string, created time.Time) Item {
	it := NewItem(KindEvidence, SchemeCorpus+":"+ref.SourceID, quote, created)
	it.Ref = ref
	return it
}

// Canonical returns the form content IDs are computed from: Unicode NFKC,
// then full case folding, then every run of white space (unicode.IsSpace,
// line breaks included) collapsed to one U+0020, then trimmed. Texts that
// differ only in case, width, compatibility forms or spacing share a
// canonical form.
func Canonical(text string) string {
	if isASCII(text) {
		// NFKC leaves ASCII as it is, and full case folding of ASCII
		// only maps A-Z to a-z.
		return strings.Join(strings.Fields(asciiLower(text)), " ")
	}
	// A caser keeps state, so each call makes its own: cases.Fold
	// allocates nothing, and a pool of them bought nothing (957–1029 ns
	// against 943–1034 ns, 336 B in 2 allocations either way, 2026-12-02).
	f := cases.Fold()
	s := f.String(norm.NFKC.String(text))
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// ContentID is the hex SHA-256 of the UTF-8 bytes of Canonical(text): the
// same content gets the same ID on every run and machine.
func ContentID(text string) string {
	id, _ := contentID(text)
	return id
}

// contentID returns the content ID of text and whether its canonical form
// is empty.
func contentID(text string) (id string, empty bool) {
	sum, empty := contentSum(text)
	return hexString(sum), empty
}

// contentSum is the SHA-256 sum of Canonical(text), and whether that is
// empty. ASCII text is canonicalized and hashed in one pass, without
// building the canonical string.
func contentSum(text string) ([sha256.Size]byte, bool) {
	if isASCII(text) {
		return asciiContentSum(text)
	}
	c := Canonical(text)
	return sha256.Sum256([]byte(c)), c == ""
}

// asciiSpace marks the bytes unicode.IsSpace reports in ASCII.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// asciiContentSum is contentSum for ASCII text: lower-cased, white-space
// runs collapsed to one space, trimmed, in one pass into a buffer, on the
// stack for a short text. It earns its place: `go test ./provenance -run
// '^$' -bench 'Forms/content-sum'` (a 1.2 KB quote, as a catalog prepares
// one), four runs on 2026-12-02: 4.5–7.1 µs and 2 allocations against
// 8.6–9.5 µs and 5 hashing Canonical's string (about 0.6×).
func asciiContentSum(text string) ([sha256.Size]byte, bool) {
	var stack [512]byte
	buf := stack[:0]
	space := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if asciiSpace[c] {
			space = len(buf) > 0
			continue
		}
		if space {
			buf = append(buf, ' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return sha256.Sum256(buf), len(buf) == 0
}

// hexString is sum in lower-case hex, made in one allocation
// (hex.EncodeToString makes two).
func hexString(sum [sha256.Size]byte) string {
	var b [2 * sha256.Size]byte
	hex.Encode(b[:], sum[:])
	return string(b[:])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// ExactDigest is the hex SHA-256 of text's exact bytes. Two texts with the
// same content ID but different bytes have different exact digests; the
// audit history records both.
func ExactDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hexString(sum)
}

// ShortID is the prefix of a content ID or key used in messages when the
// store has nothing more specific: 12 hex digits.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// itemKey computes an item's Key: the hex SHA-256 of a length-prefixed
// encoding of everything that makes the item what it is, except Created.
func itemKey(it Item) string { return hexString(itemKeySum(it)) }

// itemKeySum is the SHA-256 sum itemKey writes in hex. The encoding is
// built in one buffer, on the stack for a short item.
func itemKeySum(it Item) [sha256.Size]byte {
	var stack [512]byte
	b := stack[:0]
	put := func(s string) {
		b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	putInt := func(i int) {
		b = binary.BigEndian.AppendUint64(b, uint64(int64(i)))
	}
	put("ka2-item-v1")
	put(string(it.Kind))
	put(it.Source)
	put(it.Text)
	put(it.DerivedFrom)
	put(it.Example.Question)
	put(it.Example.Answer)
	put(it.Ref.SourceID)
	put(it.Ref.Version)
	put(it.Ref.Lang)
	putInt(it.Ref.Lines.Start)
	putInt(it.Ref.Lines.End)
	// Validity and unit came later; an item without them hashes as it did
	// before, so the keys of every other item stay what they were.
	if !it.Ref.ValidFrom.IsZero() || !it.Ref.ValidUntil.IsZero() || it.Ref.Unit != "" {
		put(dateText(it.Ref.ValidFrom))
		put(dateText(it.Ref.ValidUntil))
		put(it.Ref.Unit)
	}
	// So did role and serves, for the same reason.
	if it.Ref.Role != "" || it.Ref.Serves != "" {
		put(it.Ref.Role)
		put(it.Ref.Serves)
	}
	return sha256.Sum256(b)
}

// lines splits text into its lines, as the corpus does: "\n" ends a line
// and a "\r" before it is dropped.
func lines(text string) []string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}
