package provenance

import (
	"encoding/json"
	"errors"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// The error codes, the stable machine names of provenance errors: callers
// branch on codes (or the matching sentinels), never on messages. Every
// code but CodePolicy and CodeReplay is a refusal: an item or transform
// the store would not accept.
const (
	// CodeProtected: content first registered as one type asked to enter
	// a protected type directly, or through a transform from an item whose
	// type is not the content's origin.
	CodeProtected diag.Code = "protected"
	// CodeWrapped: an item of a wrapped-checked type (by default
	// instruction) contains a registered line of another type.
	CodeWrapped diag.Code = "wrapped"
	// CodeSourceNotAllowed: the policy lets the source register no item of
	// that type.
	CodeSourceNotAllowed diag.Code = "source_not_allowed"
	// CodeTransition: the policy allows no transform between the types.
	CodeTransition diag.Code = "transition_not_allowed"
	// CodeValidation: a validator of an allowed transform refused the item.
	CodeValidation diag.Code = "validation_failed"
	// CodeNotHeld: the item is not held by the store, or differs from the
	// item the store holds under its key.
	CodeNotHeld diag.Code = "not_held"
	// CodeRemote: a remote caller asked for an item type, a source or a
	// promotion that the policy's remote section does not grant.
	CodeRemote diag.Code = "remote_not_allowed"
	// CodeInvalid: the item is malformed (unknown type, bad source,
	// invalid UTF-8, a content ID that does not match its text, …).
	CodeInvalid diag.Code = "invalid_item"
	// CodePolicy: a policy file cannot be used.
	CodePolicy diag.Code = "policy"
	// CodeReplay: an audit history does not replay to the same outcome.
	CodeReplay diag.Code = "replay"
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

var codeSentinels = map[diag.Code]error{
	CodeProtected: ErrProtected, CodeWrapped: ErrWrapped, CodeSourceNotAllowed: ErrSourceNotAllowed,
	CodeTransition: ErrTransition, CodeValidation: ErrValidation, CodeNotHeld: ErrNotHeld, CodeRemote: ErrRemote,
	CodeInvalid: ErrInvalid, CodePolicy: ErrPolicy, CodeReplay: ErrReplay,
}

// refusal reports whether the code is a refusal of an item or transform.
func refusal(c diag.Code) bool { return c != CodePolicy && c != CodeReplay }

// Error is every error the package returns: a diagnostic (its code,
// where a policy or history file is wrong, the message and hint) with the
// fields of a refusal that apply to the code.
type Error struct {
	diag.Diagnostic
	// Op is what was refused or failed: "add", "transform", "remote" (a
	// remote caller's request), "parse policy" or "replay".
	Op string
	// Type is the context type asked for; From the type of the item a
	// refused transform started from.
	Type Kind
	From Kind
	// Origin and OriginID are the type the content was first registered
	// under and its full content ID.
	Origin   Kind
	OriginID string
	// Item is the key of the item concerned, when there is one.
	Item   string
	Source string
	// Validator names the validator that refused a transform.
	Validator string
}

// Error formats the error as "path:line:col: message; hint", leaving out
// what is not known (and the line and column when the path is).
func (e *Error) Error() string {
	pos := e.Pos
	if pos.Path == "" {
		pos = diag.Pos{}
	}
	return diag.Format(pos, e.Message, e.Hint.String())
}

// errorJSON is the error's JSON shape, in the audit history and in the
// "context" of an error body; it predates diag and stays as it was.
type errorJSON struct {
	Code      diag.Code `json:"code"`
	Op        string    `json:"op"`
	Type      Kind      `json:"type,omitempty"`
	From      Kind      `json:"from,omitempty"`
	Origin    Kind      `json:"origin_type,omitempty"`
	OriginID  string    `json:"origin_id,omitempty"`
	Item      string    `json:"item,omitempty"`
	Source    string    `json:"source,omitempty"`
	Validator string    `json:"validator,omitempty"`
	Path      string    `json:"path,omitempty"`
	Line      int       `json:"line,omitempty"`
	Col       int       `json:"col,omitempty"`
	Message   string    `json:"message"`
	Hint      string    `json:"hint,omitempty"`
}

// MarshalJSON writes e in its JSON shape.
func (e *Error) MarshalJSON() ([]byte, error) {
	return jsontext.Marshal(errorJSON{Code: e.Code, Op: e.Op, Type: e.Type, From: e.From, Origin: e.Origin,
		OriginID: e.OriginID, Item: e.Item, Source: e.Source, Validator: e.Validator,
		Path: e.Path, Line: e.Line, Col: e.Col, Message: e.Message, Hint: e.Hint.String()})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Error) UnmarshalJSON(b []byte) error {
	var j errorJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Error{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: j.Path, Line: j.Line, Col: j.Col}, Code: j.Code,
		Message: j.Message, Hint: diag.Fix(j.Hint)},
		Op: j.Op, Type: j.Type, From: j.From, Origin: j.Origin, OriginID: j.OriginID, Item: j.Item,
		Source: j.Source, Validator: j.Validator}
	return nil
}

// Is matches ErrProvenance, ErrRefused for refusals, and the sentinel of
// the error's code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrProvenance:
		return true
	case ErrRefused:
		return refusal(e.Code)
	}
	s, ok := codeSentinels[e.Code]
	return ok && s == target
}
