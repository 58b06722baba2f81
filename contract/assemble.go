package contract

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
)

// assemble serializes items as the definition's template: compact
// JSON, the definition's fields in order, no HTML escaping. Every item must
// be held by store s exactly as given (see provenance.Store.Holds);
// anything else is refused with a provenance error of code not_held. It
// returns the text and the span of each part, for the budget. Items of each
// kind keep the order they are given in; several instruction items are
// joined by a blank line into the one instruction string. Optional fields
// (memory, tool_output, and an example field a definition does not
// require) are left out when they have no items.
//
// assemble is the only place where typed items become text.
//
// madeScope, when not empty, is the text of a scope item the build wrote
// itself with Scope.Text from a scope that writesCanonically: a scope
// item with exactly that text is known to be what ParseScope accepts, so
// it is not parsed again on every build.
//
// known[i], when set, is items[i] encoded already (see encoded), which
// assemble appends instead of writing the item again; known may be
// shorter than items, or nil. With known it also returns the code points
// of each span known so (-1 for the others), for budget.AccountCounted.
func assemble(def *Definition, s *provenance.Store, items []provenance.Item, madeScope string, known []knownItem) ([]byte, []budget.Span, []int, error) {
	if err := checkItems(def, s, items); err != nil {
		return nil, nil, nil, err
	}
	a := &assembler{items: items, known: known, buf: make([]int, 0, 16)} // buf on the stack for up to 16 items
	if err := a.checkCounts(def, madeScope); err != nil {
		return nil, nil, nil, err
	}
	a.b = make([]byte, 0, a.size(def))
	a.spans = make([]budget.Span, 0, len(items))
	if known != nil {
		a.runes = make([]int, 0, len(items))
	}
	a.b = append(a.b, '{')
	first := true
	for _, f := range def.Fields {
		k := provenance.Kind(f.ContextType)
		list := a.ofKind(k)
		if f.ContextType != constantType && !f.Required && len(list) == 0 {
			continue
		}
		if !first {
			a.b = append(a.b, ',')
		}
		first = false
		a.b = appendString(a.b, f.Name)
		a.b = append(a.b, ':')
		if f.ContextType == constantType {
			a.b = appendString(a.b, def.Template)
			continue
		}
		a.field(k, list)
	}
	a.b = append(a.b, '}')
	return a.b, a.spans, a.runes, nil
}

// assembler is the state of one assemble: the items, what is known of
// them, the contract written so far, its spans and their known code
// points.
type assembler struct {
	items []provenance.Item
	known []knownItem
	b     []byte
	spans []budget.Span
	runes []int // nil without known
	buf   []int // ofKind's list
}

// size is the room the contract needs, made once: exact for the items
// known encoded (most of a build's bytes: its evidence records and the
// template's instruction and example), an estimate with room for escapes
// for the rest (the question, the scope, request items). A contract
// sized so on the generated corpus (2.1 KB) takes a 2.3 KB allocation
// instead of the 3 KB an estimate of every item took.
func (a *assembler) size(def *Definition) int {
	n, rest := 2, len(def.Template)+2
	for _, f := range def.Fields {
		n += len(f.Name) + 4 // the name's quotes, the colon and a comma
	}
	for i := range a.items {
		it := &a.items[i]
		if e := a.encodedAs(i); e != nil {
			n += e.size() + 1 // and the comma in a list
			if it.Ref.Serves != "" {
				// Each subject quoted, a comma for each space.
				rest += len(`,"serves":[]`) + len(it.Ref.Serves) + 2 + 2*strings.Count(it.Ref.Serves, " ")
			}
			continue
		}
		switch it.Kind {
		case provenance.KindScope:
			n += len(it.Text) // written as it is
		case provenance.KindQuestion, provenance.KindInstruction:
			rest += len(it.Text) + 6 // its quotes, or a blank line joining it to another
		default:
			rest += len(it.Text) + len(it.Source) + 96 // and the field names of a record
		}
	}
	return n + rest + rest/16 // escapes take a little more
}

// ofKind lists the indexes of the items of kind k, in the order given,
// reusing one buffer: each list is used before the next is made.
func (a *assembler) ofKind(k provenance.Kind) []int {
	a.buf = a.buf[:0]
	for i := range a.items {
		if a.items[i].Kind == k {
			a.buf = append(a.buf, i)
		}
	}
	return a.buf
}

// encodedAs is items[i]'s encoding when known holds it for exactly that
// item: the key names its kind, source, text and address.
func (a *assembler) encodedAs(i int) *encoded {
	if i < len(a.known) && a.known[i].enc != nil && a.known[i].key == a.items[i].Key {
		return a.known[i].enc
	}
	return nil
}

// mark ends the span of a part that started at start; n is its code
// points when known, or -1.
func (a *assembler) mark(k provenance.Kind, label string, start, n int) {
	a.spans = append(a.spans, budget.Span{Kind: k, Label: label, Start: start, End: len(a.b)})
	if a.runes != nil {
		a.runes = append(a.runes, n)
	}
}

// checkCounts refuses items that are not one instruction (or several,
// joined), one example (unless the field is optional), one question and
// at most one scope, which must parse unless the build made it.
func (a *assembler) checkCounts(def *Definition, madeScope string) error {
	for _, k := range []provenance.Kind{provenance.KindInstruction, provenance.KindExample, provenance.KindQuestion} {
		n := len(a.ofKind(k))
		if f := def.field(k); k == provenance.KindExample && n == 0 && f != nil && !f.Required {
			continue // an optional example field is left out, as memory is (ka2 eval's no_example variant)
		}
		if n == 0 || (k != provenance.KindInstruction && n > 1) {
			return fmt.Errorf("a contract needs exactly one %s item, got %d", k, n)
		}
	}
	// The scope is written from its parsed form, never from the text as
	// given, so a scope item cannot add anything but subjects and dates.
	if f := def.field(provenance.KindScope); f != nil {
		list := a.ofKind(provenance.KindScope)
		if n := len(list); n > 1 || (f.Required && n == 0) {
			return fmt.Errorf("a contract needs exactly one scope item, got %d", n)
		}
		if len(list) == 1 && (madeScope == "" || a.items[list[0]].Text != madeScope) {
			if _, err := ParseScope(a.items[list[0]].Text); err != nil {
				return fmt.Errorf("scope item %s: %w", short(a.items[list[0]].Key), err)
			}
		}
	}
	return nil
}

// field writes the value of the field of kind k, whose items are list.
func (a *assembler) field(k provenance.Kind, list []int) {
	start, n := len(a.b), -1
	switch k {
	case provenance.KindInstruction:
		if len(list) == 1 { // the one instruction a build registers, as it is
			if e := a.encodedAs(list[0]); e != nil {
				a.b, n = append(a.b, e.text...), e.runes
			} else {
				a.b = appendInstruction(a.b, a.items[list[0]])
			}
		} else {
			texts := make([]string, len(list))
			for i, j := range list {
				texts[i] = a.items[j].Text
			}
			a.b = appendString(a.b, strings.Join(texts, "\n\n"))
		}
	case provenance.KindExample:
		if e := a.encodedAs(list[0]); e != nil {
			a.b, n = append(a.b, e.text...), e.runes
		} else {
			a.b = appendExample(a.b, a.items[list[0]])
		}
	case provenance.KindQuestion:
		a.b = appendString(a.b, a.items[list[0]].Text)
	case provenance.KindScope:
		a.b = append(a.b, a.items[list[0]].Text...) // checked by ParseScope in checkCounts
	default: // a list kind
		a.list(k, list)
		return
	}
	a.mark(k, "", start, n)
}

// list writes a list field: each item of list, an evidence record or a
// text item, its own span.
func (a *assembler) list(k provenance.Kind, list []int) {
	a.b = append(a.b, '[')
	for i, j := range list {
		if i > 0 {
			a.b = append(a.b, ',')
		}
		it := &a.items[j]
		start, n := len(a.b), -1
		label := it.Source
		switch {
		case k != provenance.KindEvidence:
			a.b = appendTextItem(a.b, *it)
		case a.encodedAs(j) != nil:
			e := a.encodedAs(j)
			a.b, n = e.appendEvidence(a.b, it.Text, it.Ref.Serves)
			label = e.label
		default:
			a.b = appendEvidence(a.b, *it)
			label = it.Ref.Address()
		}
		a.mark(k, label, start, n)
	}
	a.b = append(a.b, ']')
}

// checkItems is assemble's first phase: each item is one the store holds,
// of a kind the template has a field for, evidence with an address.
func checkItems(def *Definition, s *provenance.Store, items []provenance.Item) error {
	for i, it := range items {
		if !s.Holds(it) {
			return &provenance.Error{Diagnostic: diag.Diagnostic{Code: provenance.CodeNotHeld, Message: fmt.Sprintf("item %d (%s from %s) is not held by the store, or differs from the item it holds", i, it.Kind, it.Source), Hint: diag.Fix("assemble only items that the store's Add or Transform returned, unchanged")}, Op: "assemble", Type: it.Kind, Item: it.Key, Source: it.Source}
		}
		if _, ok := itemKinds[it.Kind]; !ok {
			return fmt.Errorf("item %s has unknown kind %q", short(it.ID), it.Kind)
		}
		if def.field(it.Kind) == nil {
			return fmt.Errorf("template %s has no field for %s items", def.Template, it.Kind)
		}
		if it.Kind == provenance.KindEvidence && it.Ref.SourceID == "" {
			return fmt.Errorf("evidence item %s from %s has no address to cite", short(it.Key), it.Source)
		}
	}
	return nil
}

// appendInstruction writes the one instruction item of a contract.
func appendInstruction(b []byte, it provenance.Item) []byte { return appendString(b, it.Text) }

// appendExample writes the example item.
func appendExample(b []byte, it provenance.Item) []byte {
	b = append(b, `{"question":`...)
	b = appendString(b, it.Example.Question)
	b = append(b, `,"answer":`...)
	b = appendString(b, it.Example.Answer)
	return append(b, '}')
}

// appendEvidence writes an evidence record: its fields up to the role,
// the subjects it serves, and the rest (see encodeEvidence).
func appendEvidence(b []byte, it provenance.Item) []byte {
	b = appendEvidenceHead(b, it)
	b = appendServes(b, it.Ref.Serves)
	return appendEvidenceTail(b, it)
}

// appendEvidenceHead writes an evidence record's fields before serves.
func appendEvidenceHead(b []byte, it provenance.Item) []byte {
	b = append(b, `{"source_id":`...)
	b = appendString(b, it.Ref.SourceID)
	b = append(b, `,"version":`...)
	b = appendString(b, it.Ref.Version)
	// Validity and unit come after the version; each is left out when the
	// source has none (an open-ended source, no declared unit, promoted
	// tool output).
	if !it.Ref.ValidFrom.IsZero() {
		b = append(b, `,"valid_from":`...)
		b = appendDate(b, it.Ref.ValidFrom)
	}
	if !it.Ref.ValidUntil.IsZero() {
		b = append(b, `,"valid_until":`...)
		b = appendDate(b, it.Ref.ValidUntil)
	}
	if it.Ref.Unit != "" {
		b = append(b, `,"unit":`...)
		b = appendString(b, it.Ref.Unit)
	}
	// Role only when not primary, serves only when more than one subject
	// was asked: a contract for one subject of primary sources is written
	// as it was before they existed.
	if it.Ref.Role != "" {
		b = append(b, `,"role":`...)
		b = appendString(b, it.Ref.Role)
	}
	return b
}

// appendServes writes an evidence record's serves field, when it has
// one: the asked subjects of serves, a provenance.Ref's Serves.
func appendServes(b []byte, serves string) []byte {
	if serves == "" {
		return b
	}
	b = append(b, `,"serves":[`...)
	for i, s := range strings.Split(serves, " ") {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendEvidenceTail writes an evidence record's fields after serves.
func appendEvidenceTail(b []byte, it provenance.Item) []byte {
	b = append(b, `,"line_start":`...)
	b = strconv.AppendInt(b, int64(it.Ref.Lines.Start), 10)
	b = append(b, `,"line_end":`...)
	b = strconv.AppendInt(b, int64(it.Ref.Lines.End), 10)
	b = append(b, `,"quote":`...)
	b = appendString(b, it.Text)
	return append(b, '}')
}

// appendTextItem writes a memory or tool output item with its source.
func appendTextItem(b []byte, it provenance.Item) []byte {
	b = append(b, `{"source":`...)
	b = appendString(b, it.Source)
	b = append(b, `,"text":`...)
	b = appendString(b, it.Text)
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// special8 returns, for the 8 bytes of x (a word of a string, its first
// byte lowest), a mask with the high bit set of every byte a JSON string
// cannot hold as it is (below 0x20, '"', '\\') or that is not ASCII:
// (v - k) &^ v sets a byte's high bit where that byte of v is below k. A
// borrow can also set it in a byte above one that is flagged, so the
// lowest bit set is always the first such byte, and a mask of 0 means
// all eight are plain ASCII.
//
// It earns its place: `go test ./contract -run '^$' -bench
// AppendString` (a 20-line quote), four interleaved runs against the
// byte-at-a-time loop on 2026-12-02: English 0.45–0.59 µs against
// 1.15–1.30 µs (about 0.4×), Chinese 3.55–3.85 µs against 3.12–3.95 µs
// (the same within noise); a build escapes about 1.2 KB of quotes on the
// generated corpus.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	special := (x - ones*0x20) | (quote-ones)&^quote | (backslash-ones)&^backslash
	return (special&^x | x) & highs
}

// appendString appends s as a JSON string exactly as encoding/json does
// with SetEscapeHTML(false): '<', '>' and '&' stay as they are; U+2028 and
// U+2029 are escaped so the output is also safe as JavaScript; invalid
// UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time past plain ASCII (most of a quote, whose
		// lines end in the one byte to escape), where an ASCII byte
		// starts: see special8. Text of other scripts goes a rune at a
		// time below.
		for ; i+8 <= len(s) && s[i] < utf8.RuneSelf; i += 8 {
			w := s[i : i+8]
			_ = w[7] // one bounds check for the eight
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if m := special8(x); m != 0 {
				i += bits.TrailingZeros64(m) >> 3 // the first byte to look at
				break
			}
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// short shortens a content ID for messages; 12 hex digits are unambiguous
// for any corpus ka2 will meet.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
