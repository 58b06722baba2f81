package contract

import (
	"unicode/utf8"

	"github.com/ka2/ka2/provenance"
)

// A contract is mostly text that does not change while a corpus is
// loaded: its evidence records, and the definition's instruction and
// example. Each of them is encoded once (escaping included) and its code
// points counted once, where it is prepared (a Catalog's records, a
// Catalog's templates); a build appends the bytes and adds the count, and
// escapes and counts only what its request brings (the scope, the
// question, request items, the JSON between the parts). The bytes are
// what assemble would write for the item, made by the same functions, so
// the contract and its budget report are the same either way.
//
// Which subjects a record serves belongs to the question (see Serves),
// so an evidence record is encoded without them, split where the field
// goes, and a build that asked several subjects writes the field between
// the two halves. The BPE counters count every contract in full (see
// budget.AccountCounted).
//
// A record's quote is escaped again by each build that quotes it: an
// escaped copy kept with the record would double what a prepared
// source holds (2.9 KB instead of 0.95 KB on the generated corpus, a
// 1.2 KB body and one cite range), and a service that quotes every
// source in time would hold that much more than the corpus. So an
// evidence record keeps its fields around the quote encoded, and the
// code points of the whole record, escaped quote included; the build
// escapes the quote (appendString) between them.
//
// It earns its place: BenchmarkSelectBuild (100k sources), six
// interleaved pairs with main (2b54ea0) on 2026-12-02 (load average
// 5–9), median of the pairs' p50, with the quote kept escaped too:
// codepoint 15.9 µs to 14.1 µs (0.88×), o200k_base 27.8 µs to 26.1 µs
// (0.94×, the encoding without the counting); `ka2perf ratios -only
// build`, codepoint median, 0.68×, 0.89× and 0.87× in three runs;
// assembling and counting went from 5.9 to 2.6 µs a contract in the CPU
// profile. Escaping the quote in each build (with special8's word-wide
// scan) costs part of that back: BenchmarkSelectBuild/codepoint p50,
// eight interleaved runs on 2026-12-02, median 13.0 µs against 11.9 µs
// with the escaped quote kept, for about 1 KB a prepared source instead
// of 2.9 KB.

// encoded is an item as assemble writes it and the code points of those
// bytes.
type encoded struct {
	// text is the item's encoding; for an evidence record, all of it but
	// the quote's string and the closing brace.
	text string
	// cut is, for an evidence record, where in text its serves field
	// goes: after the role, before line_start.
	cut int
	// runes are the code points of the whole encoding, an evidence
	// record's escaped quote included.
	runes int
	// quote is the length of an evidence record's escaped quote, with its
	// quotation marks: what a build appends after text, with the brace,
	// so that it sizes the contract once.
	quote int
	label string // an evidence record's address, its budget label
}

// knownItem is what assemble is told about one of its items: its
// encoding, for the item of exactly that key.
type knownItem struct {
	enc *encoded
	key string
}

// knownAs is the knownItem of an item made from a prepared record or
// template whose encoding is e; nil e tells nothing.
func knownAs(e *encoded, it provenance.Item) knownItem {
	return knownItem{enc: e, key: it.Key}
}

// encodeEvidence is the encoding of an evidence record without serves.
func encodeEvidence(it provenance.Item) encoded {
	b := make([]byte, 0, len(it.Text)+len(it.Text)/16+192)
	b = appendEvidenceHead(b, it)
	cut := len(b)
	b = appendEvidenceTail(b, it)
	runes := utf8.RuneCount(b)
	// The tail ends with the quote's string and the record's brace; the
	// build writes those.
	quote := len(appendString(nil, it.Text))
	around := len(b) - quote - 1
	return encoded{text: string(b[:around]), cut: cut, runes: runes, quote: quote, label: it.Ref.Address()}
}

// encodeWith is the encoding append makes of it.
func encodeWith(append func([]byte, provenance.Item) []byte, it provenance.Item) *encoded {
	b := append(nil, it)
	return &encoded{text: string(b), runes: utf8.RuneCount(b)}
}

// size is the length of what appendEvidence appends for e without
// serves, or of a template's encoding.
func (e *encoded) size() int {
	if e.quote == 0 {
		return len(e.text)
	}
	return len(e.text) + e.quote + 1
}

// appendEvidence appends the record e encodes, whose quote is quote,
// serving serves, and returns its code points.
func (e *encoded) appendEvidence(b []byte, quote, serves string) ([]byte, int) {
	n := e.runes
	b = append(b, e.text[:e.cut]...)
	if serves != "" {
		from := len(b)
		b = appendServes(b, serves)
		n += utf8.RuneCount(b[from:])
	}
	b = append(b, e.text[e.cut:]...)
	b = appendString(b, quote)
	return append(b, '}'), n
}
