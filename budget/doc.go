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
// makes counting quadratic. The patterns' character classes (\p{L}, \p{N},
// \p{M}, the letter categories and \s) are those of Unicode 16.0.0, the
// version of the regex engine tiktoken runs them on, generated from the
// Unicode Character Database rather than taken from Go's unicode package
// (15.0.0); the case-insensitive contractions fold case as that engine
// does ("'\u017F" is "'s").
//
// Text that is not valid UTF-8 is counted as if every byte that is not
// part of a valid sequence were one U+FFFD, by every counter ("\xe4\xb8", a
// truncated sequence, is two). tiktoken itself only takes strings: bytes
// decoded with replacement of maximal ill-formed subsequences (Python's
// errors="replace", JS TextDecoder) give one U+FFFD for "\xe4\xb8", so counts
// can differ from tiktoken's on truncated sequences, and agree wherever each
// bad byte stands alone (stray continuation bytes, 0xFF, overlong forms,
// encoded surrogates).
package budget
