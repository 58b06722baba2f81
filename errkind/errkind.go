// Package errkind decides what kind of failure an error is, and so the
// exit code the CLI returns, the status the HTTP service answers and the
// JSON error body both print: one classifier and one table, shared by
// `--error-format json`, the service and golden error goldens. It knows
// the errors of budget, provenance and contract, so it sits above them
// and below the front ends and golden, not among internal/'s leaves.
package errkind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// Kind is the stable name of a kind of failure in a JSON error body.
// Clients branch on kinds, never on messages.
type Kind string

// The kinds. Each has one exit code and one HTTP status (see the table).
const (
	// Usage: a mistake in the command line itself.
	Usage Kind = "usage"
	// BadInput: a broken input file, a bad date, a limit out of range.
	// The service calls it BadRequest.
	BadInput Kind = "bad_input"
	// CheckFailed: a check ran and found problems.
	CheckFailed Kind = "check_failed"
	// BudgetExceeded: the input does not fit the budget.
	BudgetExceeded Kind = "budget_exceeded"
	// NoEvidence: no source applies, and evidence was required.
	NoEvidence Kind = "no_evidence"
	// ContextType: the provenance policy refused an item or transform.
	ContextType Kind = "context_type"
	// StageFailed: a pipeline stage failed, timed out or broke its output
	// schema. Its JSON kind stays bad_input, as it always printed; only
	// the exit code tells it apart.
	StageFailed Kind = "stage_failed"
	// DrainTimeout: the service stopped with requests still in flight.
	DrainTimeout Kind = "drain_timeout"
	// Interrupted: SIGINT (Ctrl-C) or SIGTERM stopped a command before it
	// finished; the files it writes are either as they were or wholly new.
	Interrupted Kind = "interrupted"

	// The kinds only the HTTP service answers with.
	BadRequest       Kind = "bad_request"
	NotFound         Kind = "not_found"
	MethodNotAllowed Kind = "method_not_allowed"
	Internal         Kind = "internal"
	Unavailable      Kind = "unavailable"
	Timeout          Kind = "timeout"
	Canceled         Kind = "canceled"
	Overloaded       Kind = "overloaded"
)

// ExitCode is a process exit status of ka2. Each code has one meaning;
// docs/exit-codes.md lists the same ones.
type ExitCode int

// The exit codes.
const (
	ExitOK          ExitCode = 0 // success
	ExitProblems    ExitCode = 1 // a check ran and found problems
	ExitInput       ExitCode = 2 // usage or input error
	ExitBudget      ExitCode = 3 // over budget
	ExitNoEvidence  ExitCode = 4 // no applicable evidence, with --require-evidence
	ExitContextType ExitCode = 5 // the provenance policy refused an item or a transform
	ExitStage       ExitCode = 6 // a pipeline stage failed, timed out or broke its output schema
	ExitDrain       ExitCode = 7 // serve stopped with requests still in flight after the drain time-out
	// ExitInterrupted is 128+SIGINT, as shells report a command that
	// Ctrl-C ended.
	ExitInterrupted ExitCode = 130
)

// StatusClientClosedRequest is the status recorded for a request whose
// client went away before its answer was ready (nginx's 499).
const StatusClientClosedRequest = 499

// info is one row of the table.
type info struct {
	exit   ExitCode
	status int
	// wire is the kind the JSON body names, when it differs.
	wire Kind
}

var table = map[Kind]info{
	Usage:            {ExitInput, http.StatusBadRequest, ""},
	BadInput:         {ExitInput, http.StatusBadRequest, ""},
	CheckFailed:      {ExitProblems, http.StatusUnprocessableEntity, ""},
	BudgetExceeded:   {ExitBudget, http.StatusUnprocessableEntity, ""},
	NoEvidence:       {ExitNoEvidence, http.StatusUnprocessableEntity, ""},
	ContextType:      {ExitContextType, http.StatusUnprocessableEntity, ""},
	StageFailed:      {ExitStage, http.StatusBadGateway, BadInput},
	DrainTimeout:     {ExitDrain, http.StatusServiceUnavailable, ""},
	Interrupted:      {ExitInterrupted, http.StatusServiceUnavailable, ""},
	BadRequest:       {ExitInput, http.StatusBadRequest, ""},
	NotFound:         {ExitInput, http.StatusNotFound, ""},
	MethodNotAllowed: {ExitInput, http.StatusMethodNotAllowed, ""},
	Internal:         {ExitInput, http.StatusInternalServerError, ""},
	Unavailable:      {ExitInput, http.StatusServiceUnavailable, ""},
	Timeout:          {ExitInput, http.StatusServiceUnavailable, ""},
	Canceled:         {ExitInput, StatusClientClosedRequest, ""},
	Overloaded:       {ExitInput, http.StatusServiceUnavailable, ""},
}

// Exit is the exit code of the kind; an unknown kind is an input error.
func (k Kind) Exit() ExitCode {
	if i, ok := table[k]; ok {
		return i.exit
	}
	return ExitInput
}

// Status is the HTTP status of the kind; an unknown kind is a 500.
func (k Kind) Status() int {
	if i, ok := table[k]; ok {
		return i.status
	}
	return http.StatusInternalServerError
}

// wire is the name the JSON body gives the kind.
func (k Kind) wire() Kind {
	if i, ok := table[k]; ok && i.wire != "" {
		return i.wire
	}
	return k
}

// HTTP is the kind as the service names it: an input error is the
// client's bad_request.
func (k Kind) HTTP() Kind {
	if k == BadInput || k == Usage {
		return BadRequest
	}
	return k
}

// Marked is an error that says its own kind: usage errors, a failed
// check, a failed stage, a drain time-out. Classify finds it anywhere in
// an error's tree.
type Marked interface {
	error
	ErrorKind() Kind
}

// Mark returns err marked with kind.
func Mark(kind Kind, err error) error { return &marked{kind, err} }

type marked struct {
	kind Kind
	err  error
}

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() error   { return m.err }
func (m *marked) ErrorKind() Kind { return m.kind }

// Classify names the kind of err: the kind it was marked with, or the kind
// of the library sentinel it matches; any other error is BadInput (an
// input the command or request could not use). nil has no kind.
func Classify(err error) Kind {
	var m Marked
	switch {
	case err == nil:
		return ""
	case errors.As(err, &m):
		return m.ErrorKind()
	case errors.Is(err, context.Canceled):
		return Interrupted
	case errors.Is(err, budget.ErrOverBudget):
		return BudgetExceeded
	case errors.Is(err, contract.ErrNoEvidence):
		return NoEvidence
	case errors.Is(err, provenance.ErrRefused):
		return ContextType
	}
	return BadInput
}

// Body is the JSON error body: `{"error":{"kind":…,"message":…}}`, on
// the CLI's standard error with --error-format json, in every error
// response of the service, and in golden files of failed builds.
type Body struct {
	Error Detail `json:"error"`
}

// Detail says what went wrong: a stable kind, the message, and the budget
// accounting, the fit or the refused item where they apply.
type Detail struct {
	Kind    string         `json:"kind"` // a Kind
	Message string         `json:"message"`
	Budget  *budget.Report `json:"budget,omitempty"`
	// Fit is the request setting under which an over-budget input fits,
	// e.g. {"setting":"short",…}.
	Fit *budget.Fit `json:"fit,omitempty"`
	// Context details a provenance refusal or policy problem: the item's
	// type and source, the type its content was first registered under,
	// and its ID.
	Context *provenance.Error `json:"context,omitempty"`
}

// NewDetail describes err as kind, with the message in the library's
// words and the details err carries.
func NewDetail(kind Kind, err error) Detail {
	d := Detail{Kind: string(kind.wire()), Message: err.Error()}
	var oe *budget.OverError
	if errors.As(err, &oe) {
		d.Budget, d.Fit = &oe.Report, oe.Fit
	}
	var pe *provenance.Error
	if errors.As(err, &pe) {
		d.Context = pe
	}
	return d
}

// Encode writes the body as JSON without HTML escaping, indented when
// indent is set, and a newline.
func (b Body) Encode(indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ParseBody reads an error body as a client does, refusing fields it does
// not have: a test of the CLI or the service reads what they print with it.
func ParseBody(data []byte) (Body, error) {
	var b Body
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Body{}, err
	}
	return b, nil
}
