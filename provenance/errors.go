package provenance

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the stable machine name of a provenance error. Callers branch on
// codes (or the matching sentinels), never on messages.
type Code string

// The error codes. Every code but CodePolicy and CodeReplay is a refusal:
// an item or transform the store would not accept.
const (
	// CodeProtected: content first registered as one type asked to enter
	// a protected type directly, or through a transform from an item whose
	// type is not the content's origin.
	CodeProtected Code = "protected"
	// CodeWrapped: an item of a wrapped-checked type (by default
	// instruction) contains a registered line of another type.
	CodeWrapped Code = "wrapped"
	// CodeSourceNotAllowed: the policy lets the source register no item of
	// that type.
	CodeSourceNotAllowed Code = "source_not_allowed"
	// CodeTransition: the policy allows no transform between the types.
	CodeTransition Code = "transition_not_allowed"
	// CodeValidation: a validator of an allowed transform refused the item.
	CodeValidation Code = "validation_failed"
	// CodeNotHeld: the item is not held by the store, or differs from the
	// item the store holds under its key.
	CodeNotHeld Code = "not_held"
	// CodeRemote: a remote caller asked for an item type, a source or a
	// promotion that the policy's remote section does not grant.
	CodeRemote Code = "remote_not_allowed"
	// CodeInvalid: the item is malformed (unknown type, bad source,
	// invalid UTF-8, a content ID that does not match its text, …).
	CodeInvalid Code = "invalid_item"
	// CodePolicy: a policy file cannot be used.
	CodePolicy Code = "policy"
	// CodeReplay: an audit history does not replay to the same outcome.
	CodeReplay Code = "replay"
)

// The sentinels. errors.Is(err, ErrProvenance) holds for every error this
// package returns; errors.Is(err, ErrRefused) for every refusal; each code
// also has its own sentinel.
var (
	ErrProvenance = errors.New("provenance")
	ErrRefused    = errors.New("context refused")

	ErrProtected        = errors.New("protected context type")
	ErrWrapped          = errors.New("wrapped content of another type")
	ErrSourceNotAllowed = errors.New("source not allowed for the type")
	ErrTransition       = errors.New("transition not allowed")
	ErrValidation       = errors.New("transform validation failed")
	ErrNotHeld          = errors.New("item not held by the store")
	ErrRemote           = errors.New("not granted to remote callers")
	ErrInvalid          = errors.New("invalid item")
	ErrPolicy           = errors.New("invalid provenance policy")
	ErrReplay           = errors.New("history does not replay")
)

var codeSentinels = map[Code]error{
	CodeProtected: ErrProtected, CodeWrapped: ErrWrapped, CodeSourceNotAllowed: ErrSourceNotAllowed,
	CodeTransition: ErrTransition, CodeValidation: ErrValidation, CodeNotHeld: ErrNotHeld, CodeRemote: ErrRemote,
	CodeInvalid: ErrInvalid, CodePolicy: ErrPolicy, CodeReplay: ErrReplay,
}

// Refusal reports whether the code is a refusal of an item or transform.
func (c Code) Refusal() bool { return c != CodePolicy && c != CodeReplay }

// Error is every error the package returns. The fields that apply to the
// code are set; Message says what is wrong and Hint how to fix it.
type Error struct {
	Code Code `json:"code"`
	// Op is what was refused or failed: "add", "transform", "remote" (a
	// remote caller's request), "parse policy" or "replay".
	Op string `json:"op"`
	// Type is the context type asked for; From the type of the item a
	// refused transform started from.
	Type Kind `json:"type,omitempty"`
	From Kind `json:"from,omitempty"`
	// Origin and OriginID are the type the content was first registered
	// under and its full content ID.
	Origin   Kind   `json:"origin_type,omitempty"`
	OriginID string `json:"origin_id,omitempty"`
	// Item is the key of the item concerned, when there is one.
	Item   string `json:"item,omitempty"`
	Source string `json:"source,omitempty"`
	// Validator names the validator that refused a transform.
	Validator string `json:"validator,omitempty"`
	// Path, Line and Col locate a problem in a policy or history file.
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Error formats the error as "path:line:col: message; hint", leaving out
// what is not known.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ":%d", e.Col)
			}
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Is matches ErrProvenance, ErrRefused for refusals, and the sentinel of
// the error's code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrProvenance:
		return true
	case ErrRefused:
		return e.Code.Refusal()
	}
	s, ok := codeSentinels[e.Code]
	return ok && s == target
}
