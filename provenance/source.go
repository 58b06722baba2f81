package provenance

import (
	"fmt"
	"strings"

	"github.com/ka2/ka2/corpus"
)

// The fixed sources and the schemes of named ones. A source says where an
// item's text came from:
//
//	system       ka2 or the pipeline operator (the instruction, the example)
//	user         the person asking (the question)
//	corpus:ID    a policy file of the corpus, by source_id
//	tool:NAME    the result of a tool call
//	memory:NAME  something a memory store remembered
//
// ID and NAME are one or more lowercase ASCII letters, digits, '.', '_' or
// '-', like a corpus source_id.
const (
	SourceSystem = "system"
	SourceUser   = "user"
	SchemeCorpus = "corpus"
	SchemeTool   = "tool"
	SchemeMemory = "memory"
)

// CheckSource reports whether s is a well-formed source, and if not, what
// is wrong with it.
func CheckSource(s string) error {
	if s == SourceSystem || s == SourceUser {
		return nil
	}
	scheme, name, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("source %q: use system, user, corpus:ID, tool:NAME or memory:NAME", s)
	}
	switch scheme {
	case SchemeCorpus, SchemeTool, SchemeMemory:
	default:
		return fmt.Errorf("source %q: unknown scheme %q: use corpus:ID, tool:NAME or memory:NAME", s, scheme)
	}
	if !corpus.ValidSourceID(name) {
		return fmt.Errorf("source %q: the name after %q must be lowercase letters, digits, '.', '_' or '-'", s, scheme+":")
	}
	return nil
}
