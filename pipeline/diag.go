package pipeline

import (
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// The diagnostic codes, snake_case like every ka2 code. Codes never
// change meaning; new checks get new codes. Each has a chapter number
// (C-001 …), which the message starts with, as the pipeline format's
// documentation numbers its checks.
const (
	// CodeSyntax: the file is not YAML, or not shaped like a pipeline file
	// (unknown key, wrong kind of value, a required key missing).
	CodeSyntax diag.Code = "syntax" // C-001
	// CodeUnknownProtocol: a schema or field type names no protocol or type.
	CodeUnknownProtocol diag.Code = "unknown_protocol" // C-002
	// CodeUnknownStage: the flow names a stage that is not declared.
	CodeUnknownStage diag.Code = "unknown_stage" // C-003
	// CodeIncompatible: a stage's output schema is not a subtype of the
	// input schema of the stage it hands its context to.
	CodeIncompatible diag.Code = "incompatible_context" // C-004
	// CodeUnknownInherit: inherit lists something other than messages,
	// artifacts or tool_results.
	CodeUnknownInherit diag.Code = "unknown_inherit" // C-005
	// CodeBadEndpoint: a source or sink that is not one of the allowed values.
	CodeBadEndpoint diag.Code = "bad_endpoint" // C-006
	// CodeSharedUnwritten: a stage reads shared:NAME that no earlier stage
	// writes.
	CodeSharedUnwritten diag.Code = "shared_unwritten" // C-007
	// CodeNoUpstream: a stage reads upstream, but the stage before it does
	// not send its context downstream (sink discard or shared:NAME).
	CodeNoUpstream diag.Code = "no_upstream" // C-008
	// CodeBadRunner: a stage has neither or both of uses and exec, an empty
	// exec, or a uses value ka2 does not provide.
	CodeBadRunner diag.Code = "bad_runner" // C-009
	// CodeBadValue: a value out of range: max_history_turns, timeout, or a
	// ka2.build stage declaring schemas other than its own.
	CodeBadValue diag.Code = "bad_value" // C-010
	// CodeDuplicate: a key written twice, a stage used twice in the flow, or
	// a name that is reserved or built in.
	CodeDuplicate diag.Code = "duplicate" // C-011
	// CodeUnusedStage (warning): a declared stage that the flow never runs.
	CodeUnusedStage diag.Code = "unused_stage" // C-012
)

// chapters numbers the codes as the pipeline format's documentation does.
var chapters = map[diag.Code]string{
	CodeSyntax: "C-001", CodeUnknownProtocol: "C-002", CodeUnknownStage: "C-003", CodeIncompatible: "C-004",
	CodeUnknownInherit: "C-005", CodeBadEndpoint: "C-006", CodeSharedUnwritten: "C-007", CodeNoUpstream: "C-008",
	CodeBadRunner: "C-009", CodeBadValue: "C-010", CodeDuplicate: "C-011", CodeUnusedStage: "C-012",
}

// Chapter is the chapter number of a code, such as "C-004" for
// CodeIncompatible; "" for a code that is none of the pipeline's.
func Chapter(code diag.Code) string { return chapters[code] }

// numbered returns d with its message starting with its code's chapter
// number ("C-004: Context incompatible …"), the text the chapter's
// readers know.
func numbered(d diag.Diagnostic) Diagnostic {
	if ch := Chapter(d.Code); ch != "" {
		d.Message = ch + ": " + d.Message
	}
	return Diagnostic{d}
}

// Diagnostic is one finding of the check: what is wrong, where, and how to
// fix it (the hint, which pipeline output calls the suggestion).
type Diagnostic struct {
	diag.Diagnostic
}

// MarshalJSON writes d in the one shape of a positioned problem
// (diag.Wire), the suggestion as its hint.
func (d Diagnostic) MarshalJSON() ([]byte, error) {
	return jsontext.Marshal(d.Diagnostic.Wire(nil))
}

// String formats d the way `ka2 pipeline check` prints it: the position
// and the message (which starts with the chapter number, such as C-004),
// then the suggestion on an indented line.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Pos.String())
	b.WriteString(": ")
	if d.Severity == diag.SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	if !d.Hint.IsZero() {
		b.WriteString("\n\tSuggestion: ")
		b.WriteString(d.Hint.String())
	}
	return b.String()
}

// Diagnostics is a sorted list of findings.
type Diagnostics []Diagnostic

// Errors counts the diagnostics that fail the check.
func (ds Diagnostics) Errors() int {
	n := 0
	for _, d := range ds {
		if d.Severity == diag.SeverityError {
			n++
		}
	}
	return n
}

// Warnings counts the diagnostics that do not fail the check.
func (ds Diagnostics) Warnings() int { return len(ds) - ds.Errors() }

// Err returns a *CheckError when there is any error, and nil otherwise.
func (ds Diagnostics) Err() error {
	if ds.Errors() == 0 {
		return nil
	}
	return &CheckError{Diagnostics: ds}
}

// sort orders diagnostics by position, then code and message, so output
// never depends on map order or on the order checks ran in.
func (ds Diagnostics) sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int { return a.Compare(&b.Diagnostic) })
}

// ErrCheck is matched by the error Run returns for a pipeline whose check
// found errors.
var ErrCheck = errors.New("the pipeline file has errors")

// CheckError carries the diagnostics of a failed check.
type CheckError struct {
	Diagnostics Diagnostics
}

// Error counts the errors and quotes the first one.
func (e *CheckError) Error() string {
	file := ""
	if len(e.Diagnostics) > 0 {
		file = e.Diagnostics[0].Path + ": "
	}
	n := e.Diagnostics.Errors()
	first := ""
	for _, d := range e.Diagnostics {
		if d.Severity == diag.SeverityError {
			first = fmt.Sprintf(" (first: %s)", d.Message)
			break
		}
	}
	return fmt.Sprintf("%s%s in the pipeline file%s; run ka2 pipeline check for all of them", file, plural.Count(n, "error", "errors"), first)
}

// Is makes errors.Is(err, ErrCheck) true.
func (e *CheckError) Is(target error) bool { return target == ErrCheck }
