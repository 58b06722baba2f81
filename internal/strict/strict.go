// Package strict decides what shape every ka2 file format's mappings may
// have: which keys are known, which are required, which may not repeat,
// and what kind of node each value must be. A format declares its keys
// once (a Map) and the Decoder checks a yaml.Node tree against it,
// collecting every problem as a diag.Diagnostic positioned at the node it
// concerns. JSON documents are read into the same node tree (ParseJSON),
// so requests are checked by the same code as YAML files; YAML text is
// read by ParseYAML, which reports text that is not one YAML document ka2
// accepts as a positioned problem.
//
// The structure is the decoder's; the wording is the format's. Each
// format words a structural problem (an Issue) in its own voice through
// its Words function, so that messages users and goldens already know
// stay the same while the logic behind them exists once.
package strict

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/suggest"
)

// Kind is what kind of node a value must be.
type Kind int

// The kinds a Key may ask for. Any takes every node.
const (
	Any Kind = iota
	Scalar
	Sequence
	Mapping
)

// String names the kind as a message does: "a single value", "a list",
// "a mapping".
func (k Kind) String() string {
	switch k {
	case Scalar:
		return "a single value"
	case Sequence:
		return "a list"
	case Mapping:
		return "a mapping"
	}
	return "any value"
}

// Key declares one key of a mapping.
type Key struct {
	Name string
	// Required keys must be written; a key written with a null value is
	// written (the format decides what an empty value means).
	Required bool
	// Kind is what the value must be; Any leaves the check to the format.
	// A null value is never a wrong kind: the format decides about it.
	Kind Kind
	// Reserved keys are refused by name (an Issue of Problem Reserved),
	// as belonging to a later version of the format; they are never
	// offered as a suggestion.
	Reserved bool
}

// Map declares the keys of a mapping.
type Map struct {
	// What names the mapping in messages: "the top level", "a case".
	What string
	// Keys are the known keys, in the order the format documents them.
	// With AnyKey, any scalar key is accepted and Keys only add required
	// keys and kinds.
	Keys   []Key
	AnyKey bool
}

// Named returns a copy of m under another name, for one of many mappings
// of the same shape ("stage 'build'", "transitions[2]").
func (m *Map) Named(what string) *Map {
	c := *m
	c.What = what
	return &c
}

func (m *Map) key(name string) (Key, bool) {
	for _, k := range m.Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Known lists the names of the keys that are not reserved, in order.
func (m *Map) Known() []string {
	var out []string
	for _, k := range m.Keys {
		if !k.Reserved {
			out = append(out, k.Name)
		}
	}
	return out
}

// Problem is the kind of structural problem an Issue reports.
type Problem int

// The structural problems.
const (
	// NotMapping: the node is not a mapping. Node is the node.
	NotMapping Problem = iota + 1
	// KeyNotScalar: a key is a list or a mapping. Node is the key.
	KeyNotScalar
	// UnknownKey: a key the Map does not declare. Node is the key;
	// Suggestion is the nearest known key, or "".
	UnknownKey
	// Reserved: a key the Map reserves. Node is the key.
	Reserved
	// DuplicateKey: a key written a second time. Node is the second key,
	// First the first.
	DuplicateKey
	// MissingKey: a required key is not written. Node is the mapping.
	MissingKey
	// WrongKind: a value is not of its Key's Kind. Node is the value.
	WrongKind
)

// Issue is one structural problem, for a format to word.
type Issue struct {
	Problem Problem
	Map     *Map
	Key     string     // the key concerned, when there is one
	Node    *yaml.Node // where the problem is (see Problem)
	First   *yaml.Node // DuplicateKey: the first key
	// Suggestion is the known key nearest to an unknown one, or "".
	Suggestion string
	Want       Kind // WrongKind: the kind the key asks for
}

// Known lists the names the mapping accepts, in declared order.
func (is Issue) Known() []string { return is.Map.Known() }

// CaseVariant reports a DuplicateKey issue whose two keys differ only in
// case ("Evidence" after "evidence"): encoding/json reads them as one
// field, other readers as two, so they repeat a key as surely as an
// exact copy does.
func (is Issue) CaseVariant() bool {
	return is.Problem == DuplicateKey && is.First != nil && is.First.Value != is.Key
}

// FoldKey is the form of a key under which keys that differ only in case
// are equal: FoldKey(a) == FoldKey(b) exactly when strings.EqualFold(a,
// b), the comparison encoding/json uses to match an object's keys to a
// struct's fields. Every rune becomes the least rune of its simple case
// folding orbit.
func FoldKey(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('a' <= c && c <= 'z') {
			plain = false
			break
		}
	}
	if plain {
		return s // nothing in it folds to a smaller rune
	}
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// DidYouMean returns a did-you-mean hint worded as text (say, "did you
// mean %s?") when the issue has a suggestion, and otherwise else.
func (is Issue) DidYouMean(text string, else_ diag.Hint) diag.Hint {
	if is.Suggestion == "" {
		return else_
	}
	return diag.Hint{Kind: diag.HintDidYouMean, Text: strings.ReplaceAll(text, "%s", is.Suggestion), Suggestion: is.Suggestion}
}

// Words words an issue in a format's voice: it sets d's Code, Message and
// Hint, and may move d.Pos. d arrives positioned at the issue's node, with
// the Decoder's Path and SeverityError.
type Words func(is Issue, d *diag.Diagnostic)

// Decoder checks node trees against Maps and collects what it finds.
type Decoder struct {
	// Path names the file in every diagnostic.
	Path string
	// LineOffset is added to every node's line: a document embedded in a
	// file (front matter after its '---' line) starts below line 1.
	LineOffset int
	// Words words the structural problems.
	Words Words
	// Diags is every problem found, in the order found.
	Diags diag.List
}

// Pos is where n is in the file; a nil node is the file's start.
func (d *Decoder) Pos(n *yaml.Node) diag.Pos {
	if n == nil || n.Line == 0 {
		return diag.Pos{Path: d.Path}
	}
	return diag.Pos{Path: d.Path, Line: n.Line + d.LineOffset, Col: n.Column}
}

// Report adds a problem at n with the given code, message and hint.
func (d *Decoder) Report(n *yaml.Node, code diag.Code, hint diag.Hint, msg string) *diag.Diagnostic {
	e := &diag.Diagnostic{Pos: d.Pos(n), Code: code, Message: msg, Hint: hint}
	d.Diags = append(d.Diags, e)
	return e
}

func (d *Decoder) issue(is Issue) {
	e := &diag.Diagnostic{Pos: d.Pos(is.Node)}
	d.Words(is, e)
	d.Diags = append(d.Diags, e)
}

// Entry is one key and its value.
type Entry struct {
	Name       string
	Key, Value *yaml.Node
}

// Fields are the entries of a checked mapping: the first of each known
// (or, with AnyKey, each) key, in file order.
type Fields struct {
	// Node is the mapping.
	Node    *yaml.Node
	Entries []Entry
}

// Value returns the value of key name, or nil when it is not written.
func (f *Fields) Value(name string) *yaml.Node {
	if e := f.entry(name); e != nil {
		return e.Value
	}
	return nil
}

// Key returns the key node of name, or nil when it is not written.
func (f *Fields) Key(name string) *yaml.Node {
	if e := f.entry(name); e != nil {
		return e.Key
	}
	return nil
}

// Has reports whether name is written.
func (f *Fields) Has(name string) bool { return f.entry(name) != nil }

// All is the mapping's entries in order; none when the node was not a
// mapping (Mapping returned nil and reported it), so callers can range
// over it without a check of their own.
func (f *Fields) All() []Entry {
	if f == nil {
		return nil
	}
	return f.Entries
}

func (f *Fields) entry(name string) *Entry {
	if f == nil {
		return nil
	}
	for i := range f.Entries {
		if f.Entries[i].Name == name {
			return &f.Entries[i]
		}
	}
	return nil
}

// Mapping checks n against m: n must be a mapping whose keys are plain
// scalars, known to m, not reserved and not repeated; every required key
// must be written, and every value of the kind its Key asks for. Each
// problem is reported; the entries that pass are returned in file order.
// A key that repeats is reported and its later values dropped. A
// required key that is missing but suggested for an unknown key is not
// reported again as missing: the typo is the problem. It
// returns nil when n is not a mapping. Aliases are followed.
func (d *Decoder) Mapping(n *yaml.Node, m *Map) *Fields {
	n = Deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		d.issue(Issue{Problem: NotMapping, Map: m, Node: n})
		return nil
	}
	f := newFields(n)
	// seen holds the first key node of each name; a mapping has a few
	// keys, so a slice scan beats a map and costs one allocation less.
	var seenBuf [16]*yaml.Node
	seen := seenBuf[:0]
	first := func(name string) *yaml.Node {
		for _, k := range seen {
			if k.Value == name {
				return k
			}
		}
		return nil
	}
	var meant []string // known keys suggested for unknown ones
	// keys holds every scalar key read so far, known or not, to find one
	// that differs from a later key only in case.
	var keysBuf [16]*yaml.Node
	keys := keysBuf[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.issue(Issue{Problem: KeyNotScalar, Map: m, Node: k})
			continue
		}
		if prev := caseVariant(keys, k.Value); prev != nil {
			d.issue(Issue{Problem: DuplicateKey, Map: m, Key: k.Value, Node: k, First: prev})
			meant = append(meant, k.Value) // reported here, not again as missing
			continue
		}
		keys = append(keys, k)
		key, declared := m.key(k.Value)
		switch {
		case declared && key.Reserved:
			d.issue(Issue{Problem: Reserved, Map: m, Key: k.Value, Node: k})
			continue
		case !declared && !m.AnyKey:
			s := suggest.Closest(k.Value, m.Known())
			meant = append(meant, s)
			d.issue(Issue{Problem: UnknownKey, Map: m, Key: k.Value, Node: k, Suggestion: s})
			continue
		}
		if prev := first(k.Value); prev != nil {
			d.issue(Issue{Problem: DuplicateKey, Map: m, Key: k.Value, Node: k, First: prev})
			continue
		}
		seen = append(seen, k)
		if vv := Deref(v); key.Kind != Any && !IsNull(vv) && !key.Kind.is(vv) {
			d.issue(Issue{Problem: WrongKind, Map: m, Key: k.Value, Node: vv, Want: key.Kind})
			continue
		}
		f.Entries = append(f.Entries, Entry{Name: k.Value, Key: k, Value: v})
	}
	for _, key := range m.Keys {
		// A required key offered for a typo is reported there, once.
		if key.Required && first(key.Name) == nil && !slices.Contains(meant, key.Name) {
			d.issue(Issue{Problem: MissingKey, Map: m, Key: key.Name, Node: n})
		}
	}
	return f
}

// caseVariant returns the first of keys that differs from name only in
// case, or nil.
func caseVariant(keys []*yaml.Node, name string) *yaml.Node {
	for _, k := range keys {
		if k.Value != name && strings.EqualFold(k.Value, name) {
			return k
		}
	}
	return nil
}

// newFields returns the Fields of mapping n, with room for its entries.
// A mapping of a few keys (a request, an item) gets its Fields and entries
// in one allocation rather than two.
func newFields(n *yaml.Node) *Fields {
	pairs := len(n.Content) / 2
	if pairs == 0 || pairs > 4 {
		return &Fields{Node: n, Entries: make([]Entry, 0, pairs)}
	}
	a := new(struct {
		f Fields
		e [4]Entry
	})
	a.f = Fields{Node: n, Entries: a.e[:0:pairs]}
	return &a.f
}

func (k Kind) is(n *yaml.Node) bool {
	switch k {
	case Scalar:
		return n.Kind == yaml.ScalarNode
	case Sequence:
		return n.Kind == yaml.SequenceNode
	case Mapping:
		return n.Kind == yaml.MappingNode
	}
	return true
}

// Deref follows aliases to the node they name.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// IsNull reports a null scalar (~, null, or nothing at all).
func IsNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Root returns the document's top node, or nil for an empty document.
func Root(doc *yaml.Node) *yaml.Node {
	if doc == nil || doc.Kind == 0 {
		return nil
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil
		}
		return doc.Content[0]
	}
	return doc
}
