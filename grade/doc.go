// Package grade decides whether one generator answer keeps to the contract
// it was given: that its citations name lines the contract quotes (and not
// the worked example), that its numbers occur in the lines it cites, that
// it refuses when the contract has no evidence or conflicting evidence,
// that it neither copies the example nor repeats instruction-like text from
// a quote, and that it cites at all.
//
// Every check is deterministic and textual: grade reads the answer as text
// and compares it with the contract; it never asks a model whether an
// answer is right. Each rule's limits are documented on its Kind.
package grade
