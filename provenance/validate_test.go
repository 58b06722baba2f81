package provenance_test

import (
	"testing"

	"github.com/ka2/ka2/provenance"
)

// TestToolResultOK runs the default tool_output → evidence validators on
// tool results; want is the reason's start, or "" to accept.
func TestToolResultOK(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool // refused
	}{
		{"plain success", "Order A-104: confirmed, 720 CNY per room-night.", false},
		{"no errors found", "No errors found", false},
		{"status failed", "Status: failed.", true},
		{"error as a word", "Error: order not reachable", true},
		{"marker case-folded", "LOOKUP FAILED", true},
		{"two-word marker", "The lookup timed out after 30 s", true},
		{"marker inside a word is no marker", "The failsafe room rate applies; terrors aside.", false},
		{"Chinese marker as substring", "订单查询失败", true},
		{"Chinese success", "订单 A-104 已确认，每间夜 720 元。", false},
		{"JSON ok status", `{"status":"ok","order":"A-104","rate":720}`, false},
		{"JSON success status, mixed case", `{"status":"Success"}`, false},
		{"JSON failed status", `{"status":"failed","order":"A-104"}`, true},
		{"JSON pending status", `{"status":"pending"}`, true},
		{"JSON status false", `{"status":false}`, true},
		{"JSON status 200", `{"status":200}`, false},
		{"JSON status 500", `{"status":500}`, true},
		{"JSON error null is not set", `{"status":"ok","error":null,"errors":[]}`, false},
		{"JSON error set", `{"order":"A-104","error":{"code":42}}`, true},
		{"JSON marker in a key is no marker", `{"failed_attempts_allowed":3}`, false},
		{"JSON marker in a value", `{"note":"payment failed"}`, true},
		{"JSON array of strings", `["ok","exception raised"]`, true},
		{"JSON status repeated, failed first", `{"status":"failed","order":"A-104","status":"ok"}`, true},
		{"JSON status repeated, both ok", `{"status":"ok","status":"ok"}`, true},
		{"JSON repeated key in a nested object", `{"status":"ok","result":{"rate":720,"rate":7500}}`, true},
		{"JSON ok false", `{"ok": false}`, true},
		{"JSON ok true", `{"ok": true, "rate": 720}`, false},
		{"JSON ok zero", `{"ok": 0}`, true},
		{"JSON ok null", `{"ok": null}`, true},
		{"JSON success false beside an ok status", `{"status":"ok","success":false}`, true},
		{"JSON success true", `{"success": true}`, false},
		{"JSON OK in capitals, false", `{"OK": false}`, true},
		{"JSON Status capitalized, rejected", `{"Status":"rejected"}`, true},
		{"JSON STATUS in capitals, ok", `{"STATUS":"OK"}`, false},
		{"JSON Status beside status, one failing", `{"status":"ok","Status":"failed"}`, true},
		{"JSON Error capitalized, set", `{"Error":"quota"}`, true},
		{"JSON ok inside a nested object is data", `{"status":"ok","flags":{"ok":false}}`, false},
		{"JSON with a lone surrogate", `{"status":"ok","note":"\ud800"}`, true},
		{"not JSON, braces", "{status: failed", true},
		{"empty", "  \n ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := provenance.NewStore(nil)
			it := add(t, s, provenance.KindToolOutput, "tool:order_lookup", tt.text)
			ev, err := s.Transform(it, provenance.KindEvidence)
			if refused := err != nil; refused != tt.want {
				t.Fatalf("Transform(%q) = %v, refused %v, want %v", tt.text, err, refused, tt.want)
			}
			if tt.want {
				if provErr(t, err).Code != provenance.CodeValidation {
					t.Errorf("code = %s, want validation_failed", provErr(t, err).Code)
				}
				if s.Len() != 1 {
					t.Errorf("a refused promotion left %d items, want the original only", s.Len())
				}
				return
			}
			if ev.Kind != provenance.KindEvidence || ev.DerivedFrom != it.Key {
				t.Errorf("promoted item = %+v", ev)
			}
		})
	}
}
