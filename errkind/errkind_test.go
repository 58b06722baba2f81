package errkind

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

func TestClassify(t *testing.T) {
	refusal := &provenance.Error{Diagnostic: diag.Diagnostic{Code: provenance.CodeProtected, Message: "refused"}, Op: "add"}
	tests := []struct {
		name   string
		err    error
		kind   Kind
		exit   ExitCode
		status int
		wire   string
	}{
		{"over budget", fmt.Errorf("build: %w", &budget.OverError{}), BudgetExceeded, ExitBudget, 422, "budget_exceeded"},
		{"no evidence", contract.ErrNoEvidence, NoEvidence, ExitNoEvidence, 422, "no_evidence"},
		{"refused", fmt.Errorf("x: %w", refusal), ContextType, ExitContextType, 422, "context_type"},
		{"bad request", fmt.Errorf("x: %w", contract.ErrBadRequest), BadInput, ExitInput, 400, "bad_input"},
		{"bad query", fmt.Errorf("x: %w", selector.ErrBadQuery), BadInput, ExitInput, 400, "bad_input"},
		{"anything else", errors.New("something unforeseen"), BadInput, ExitInput, 400, "bad_input"},
		{"a check", Mark(CheckFailed, errors.New("2 problems")), CheckFailed, ExitProblems, 422, "check_failed"},
		{"usage", fmt.Errorf("flag: %w", Mark(Usage, errors.New("unknown flag"))), Usage, ExitInput, 400, "usage"},
		// A failed stage prints bad_input as it always did; its exit code
		// tells it apart.
		{"stage", Mark(StageFailed, errors.New("stage 'x' failed")), StageFailed, ExitStage, 502, "bad_input"},
		{"drain", Mark(DrainTimeout, errors.New("drain")), DrainTimeout, ExitDrain, 503, "drain_timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := Classify(tt.err)
			if k != tt.kind || k.Exit() != tt.exit || k.Status() != tt.status {
				t.Errorf("Classify() = %s exit %d status %d, want %s exit %d status %d", k, k.Exit(), k.Status(), tt.kind, tt.exit, tt.status)
			}
			if d := NewDetail(k, tt.err); d.Kind != tt.wire || d.Message != tt.err.Error() {
				t.Errorf("NewDetail() = %+v, want kind %s", d, tt.wire)
			}
		})
	}
	if Classify(nil) != "" {
		t.Error("nil has a kind")
	}
	if Kind("unheard_of").Exit() != ExitInput || Kind("unheard_of").Status() != http.StatusInternalServerError {
		t.Error("an unknown kind must be an input error on the CLI and a 500 over HTTP")
	}
	if BadInput.HTTP() != BadRequest || Usage.HTTP() != BadRequest || BudgetExceeded.HTTP() != BudgetExceeded {
		t.Error("HTTP() names input errors bad_request and keeps the rest")
	}
}

// TestExitCodesOneMeaning: no two kinds of the CLI share an exit code
// unless both are input errors.
func TestExitCodesOneMeaning(t *testing.T) {
	seen := map[ExitCode]Kind{}
	for _, k := range []Kind{CheckFailed, BudgetExceeded, NoEvidence, ContextType, StageFailed, DrainTimeout} {
		if other, ok := seen[k.Exit()]; ok {
			t.Errorf("%s and %s share exit code %d", k, other, k.Exit())
		}
		if k.Exit() == ExitInput || k.Exit() == ExitOK {
			t.Errorf("%s exits %d", k, k.Exit())
		}
		seen[k.Exit()] = k
	}
}

func TestBodyEncode(t *testing.T) {
	err := &budget.OverError{Report: budget.Report{Counter: "codepoint"}, Fit: &budget.Fit{Setting: "short", Total: 1, Limit: 2}}
	got, e := Body{Error: NewDetail(Classify(err), err)}.Encode(false)
	if e != nil {
		t.Fatal(e)
	}
	want := `{"error":{"kind":"budget_exceeded","message":"` + err.Error() + `","budget":`
	if len(got) < len(want) || string(got[:len(want)]) != want {
		t.Errorf("Encode() = %s", got)
	}
	if diff := cmp.Diff(byte('\n'), got[len(got)-1]); diff != "" {
		t.Errorf("last byte mismatch (-want +got):\n%s", diff)
	}
}

func TestParseBody(t *testing.T) {
	want := Body{Error: Detail{Kind: string(BadRequest), Message: "no <date>"}}
	data, err := want.Encode(false)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseBody(data); err != nil || got.Error.Kind != want.Error.Kind || got.Error.Message != want.Error.Message {
		t.Errorf("ParseBody(%s) = %+v, %v", data, got, err)
	}
	if _, err := ParseBody([]byte(`{"error":{"kind":"bad_request","messag":"typo"}}`)); err == nil {
		t.Error("ParseBody accepted an unknown field")
	}
}
