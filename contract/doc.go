// Package contract decides what the generator is given: typed items
// (instruction, example, evidence, question) assembled into the
// ka2-context-v1 JSON contract in a fixed field order, counted against a
// budget that errors instead of truncating, and verified back against the
// corpus it was built from.
//
// Assemble is the only place where items become text.
package contract
