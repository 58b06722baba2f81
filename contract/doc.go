// Package contract decides what the generator is given: typed items
// (instruction, example, memory, evidence, tool_output, scope, question), each held
// by a provenance store that refused any text trying to change its role,
// assembled into the ka2-context-v1 JSON contract in the definition's fixed
// field order, counted against a budget that errors instead of truncating,
// and verified back against the corpus it was built from.
//
// Corpus text enters as evidence from corpus:ID, the instruction and
// example from system, the question from user; a Request may add memory,
// tool output and instructions, and promote them through the policy's
// validated transforms. Builder.Assemble, which takes only items a store
// holds, is the only place where items become text.
package contract
