package provenance

import (
	"fmt"
	"strings"
)

// Kind is the context type of an item: the channel its text takes in the
// contract.
type Kind string

// The context types, in the order the default contract places them.
const (
	KindInstruction Kind = "instruction"
	KindExample     Kind = "example"
	KindMemory      Kind = "memory"
	KindEvidence    Kind = "evidence"
	KindToolOutput  Kind = "tool_output"
	// KindScope is the question's scope: the subjects and dates it asks
	// about, which the evidence was selected for.
	KindScope    Kind = "scope"
	KindQuestion Kind = "question"
)

// kinds lists every Kind in its canonical order.
var kinds = []Kind{KindInstruction, KindExample, KindMemory, KindEvidence, KindToolOutput, KindScope, KindQuestion}

// Kinds returns every context type, in canonical order.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// Valid reports whether k is one of the context types.
func (k Kind) Valid() bool { return k.rank() >= 0 }

// rank is k's position in canonical order, or -1.
func (k Kind) rank() int {
	for i, x := range kinds {
		if x == k {
			return i
		}
	}
	return -1
}

// ParseKind returns the Kind named s, or an error that lists the kinds.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); k.Valid() {
		return k, nil
	}
	return "", fmt.Errorf("%q is not a context type: use one of %s", s, kindList(kinds))
}

func kindList(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
