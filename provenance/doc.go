// Package provenance decides whether a piece of context may take the role
// it claims: every text is a typed Item (instruction, example, memory,
// evidence, tool_output, question) with a source, a content ID and a
// lineage before it is ever serialized, and a Store refuses, before any
// text is written, content that would silently change its role — a tool
// result or a retrieved passage entering the instruction channel, a
// remembered preference passing as evidence, a failed tool call passing as
// evidence.
//
// # Items and content IDs
//
// An Item is an immutable value. Its ID is the content ID: the hex SHA-256
// of Canonical(text) — Unicode NFKC, full case folding, white space runs
// collapsed to one space, trimmed — so the same content has the same ID on
// every run and machine, and a change of case or spacing does not make new
// content. The exact text is kept too, and the history records its own
// digest, so texts that canonicalize alike are still told apart. An item
// held by a store also has a Key, the hash of its type, source, exact
// text, address and DerivedFrom, which names it in lineages. A caller
// that registers the same candidates in many stores (a service, the
// records of one corpus) derives both once with Prepare and registers the
// result with Store.AddPrepared, which checks and records as Add does.
//
// # Ledger, policy and transforms
//
// The store's Ledger records the type each content was first registered
// under; later registrations never change it. The Policy (a YAML file; the
// default is embedded as DefaultPolicyYAML) says which types are
// protected, which types are checked for wrapped content, which sources
// may register which types, which transitions are allowed with which
// validators, and what a remote caller (one whose claims about sources
// cannot be trusted) may ask for (Policy.CheckRemote). Content first registered as one type cannot be registered
// under a protected type; it can reach one only through Store.Transform
// along an allowed transition, whose validators always run, and only from
// an item whose lineage starts at the content's origin type. A transform
// makes a new item naming the old one in DerivedFrom; the old item stays,
// unchanged.
//
// Every refusal is an *Error in one family: errors.Is(err, ErrRefused)
// holds for each, and each Code has its own sentinel. A refused call
// changes no item and no ledger entry; the store's history records it, and
// WriteHistory exports the history as JSON Lines that Replay can perform
// again.
//
// The contract assembler takes only items a store holds, so nothing
// reaches a contract except through this package.
//
// # Limits
//
// The protected-type and wrapped-content checks compare texts in their
// Reading form (Canonical, less default-ignorable code points, with
// confusable letters read as their UTS #39 prototypes), so content that
// reads the same is the same content there; content IDs stay hashes of
// Canonical. The wrapped-content check looks for each registered line at
// least the policy's min_codepoints long (in that form) inside the
// Reading form of the new text, in time near-linear in the sizes of the
// lines and the text (Aho–Corasick automata; see wrapped.go); a shorter line, or one that starts with a
// combining mark that fuses with the text before it, is caught only when it
// is the whole content. The tool_result_ok validator reads words, not
// meaning: "No error found" is refused (the marker "error" stands alone),
// "No errors found" passes, and a failure told in words that are not
// markers passes too. Both are strict on purpose; a policy file can tune
// the markers.
package provenance
