package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/ka2/ka2/corpus"
)

// Kind is the context type of an item.
type Kind string

// The context types.
const (
	KindInstruction Kind = "instruction"
	KindExample     Kind = "example"
	KindEvidence    Kind = "evidence"
	KindQuestion    Kind = "question"
	KindMemory      Kind = "memory"
	KindToolOutput  Kind = "tool_output"
)

// Item is one typed piece of context. Items are values: copying one never
// lets the copy change the original, and nothing in ka2 edits an item after
// it is made; a transform makes a new item whose DerivedFrom names the old.
type Item struct {
	Kind Kind
	// Source is where the text came from: "system", "user", "corpus:ID",
	// "tool:NAME" or "memory:NAME".
	Source string
	// Text is the exact content. For an example it is the question and the
	// answer joined by a blank line; for evidence, the quote.
	Text string
	// ID is the content ID of Text (see ContentID).
	ID string
	// Created is when the item was made, from the caller's clock.
	Created time.Time
	// DerivedFrom is the ID of the item this one was transformed from, or "".
	DerivedFrom string
	// Example holds the question and answer of an example item.
	Example Example
	// Ref addresses the quoted lines of an evidence item.
	Ref Ref
}

// Example is the worked example's question and answer.
type Example struct {
	Question string `json:"question" yaml:"question"`
	Answer   string `json:"answer" yaml:"answer"`
}

// Ref addresses an evidence quote: the source, its version and the cited
// body lines.
type Ref struct {
	SourceID string
	Version  string
	Lang     string
	Lines    corpus.Range
}

// Address formats the reference as a citation address "ID:START-END".
func (r Ref) Address() string {
	return corpus.Address{SourceID: r.SourceID, Range: r.Lines}.String()
}

// NewItem makes an item of kind from text, with its content ID.
func NewItem(kind Kind, source, text string, created time.Time) Item {
	return Item{Kind: kind, Source: source, Text: text, ID: ContentID(text), Created: created}
}

// NewExample makes the example item.
func NewExample(ex Example, created time.Time) Item {
	it := NewItem(KindExample, "system", ex.Question+"\n\n"+ex.Answer, created)
	it.Example = ex
	return it
}

// NewEvidence makes an evidence item quoting lines r of s.
func NewEvidence(s *corpus.Source, r corpus.Range, created time.Time) (Item, error) {
	quote, err := s.Quote(r)
	if err != nil {
		return Item{}, err
	}
	it := NewItem(KindEvidence, "corpus:"+s.ID, quote, created)
	it.Ref = Ref{SourceID: s.ID, Version: s.Version, Lang: s.Lang, Lines: r}
	return it, nil
}

var fold = cases.Fold()

// Canonical returns the form content IDs are computed from: Unicode NFKC,
// case folded, runs of white space collapsed to one space, and trimmed.
// Texts that differ only in case, width or spacing share a canonical form.
func Canonical(text string) string {
	s := fold.String(norm.NFKC.String(text))
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// ContentID is the hex SHA-256 of Canonical(text): the same content gets
// the same ID on every run and machine.
func ContentID(text string) string {
	sum := sha256.Sum256([]byte(Canonical(text)))
	return hex.EncodeToString(sum[:])
}
