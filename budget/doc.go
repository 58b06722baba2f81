// Package budget knows counting: it decides how large a piece of text is in
// one unit, so that a context contract can be held to a budget exactly.
//
// A [Counter] measures text in one unit. [Codepoint] (the default) counts
// Unicode code points; the "cl100k_base" and "o200k_base" counters count the
// BPE tokens of OpenAI's encodings of those names, exactly as tiktoken does
// with ordinary encoding (special-token strings such as "<|endoftext|>" are
// counted as plain text). [Lookup] finds a counter by name and [Names] lists
// them.
//
// Counts must be exact, because the budget rule is "exactly full passes, one
// unit more fails". Per-part figures therefore come from one pass over the
// whole text with [Counter.Split], which attributes every unit to the part in
// which it starts, so that the parts always add up to the total. Counting the
// parts separately would not: BPE tokens can span a boundary between parts.
//
// The BPE counters are implemented in pure Go in this package. Their
// vocabularies are parsed from the files embedded in
// github.com/pkoukk/tiktoken-go-loader, once per process and only when first
// used, so nothing is downloaded at run time. Pre-tokenization follows the
// encodings' regular expressions through hand-written state machines, and
// the merge step runs in O(n log n) on pieces of any length, so no input
// makes counting quadratic.
package budget
