package serve

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// TestClassify: every error a build, a selection or a show can return
// maps to a documented kind and status; none is a 500.
func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		kind   string
	}{
		{"over budget", fmt.Errorf("build: %w", budget.ErrOverBudget), 422, string(errkind.BudgetExceeded)},
		{"no evidence", contract.ErrNoEvidence, 422, string(errkind.NoEvidence)},
		{"refused", fmt.Errorf("x: %w", provenance.ErrRefused), 422, string(errkind.ContextType)},
		{"bad request", fmt.Errorf("x: %w", contract.ErrBadRequest), 400, string(errkind.BadRequest)},
		{"bad query", fmt.Errorf("x: %w", selector.ErrBadQuery), 400, string(errkind.BadRequest)},
		{"empty body", fmt.Errorf("quote: %w", &diag.Diagnostic{Pos: diag.Pos{Path: "en/empty.md"}, Code: corpus.CodeRangeOutsideBody, Message: "source empty has an empty body, so there are no lines to quote"}), 400, string(errkind.BadRequest)},
		{"anything else", errors.New("something unforeseen"), 400, string(errkind.BadRequest)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, d := classify(tt.err)
			if status != tt.status || d.Kind != tt.kind || d.Message != tt.err.Error() {
				t.Errorf("classify() = %d %+v, want %d %s", status, d, tt.status, tt.kind)
			}
			if status == http.StatusInternalServerError {
				t.Error("a 500 for an error of the input")
			}
		})
	}
}
