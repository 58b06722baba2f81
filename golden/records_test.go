package golden_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/golden"
)

// TestRecordChangesJSON: a report's records carry the contract's own
// evidence keys, so a record without validity or unit (promoted tool
// output) leaves them out as the contract does.
func TestRecordChangesJSON(t *testing.T) {
	want := []byte(`{"template":"t","evidence":[{"source_id":"a","version":"v1","valid_from":"2026-01-01","unit":"CNY","line_start":1,"line_end":1,"quote":"x"},{"source_id":"tool:o","version":"0123456789ab","line_start":1,"line_end":1,"quote":"o"}]}`)
	got := []byte(`{"template":"t","evidence":[{"source_id":"a","version":"v2","valid_from":"2026-01-01","valid_until":"2027-01-01","unit":"CNY","line_start":1,"line_end":1,"quote":"x"},{"source_id":"tool:o","version":"0123456789ab","line_start":1,"line_end":1,"quote":"o"}]}`)
	b, err := json.Marshal(golden.RecordChanges(want, got))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `[{"change":"changed","golden":{"source_id":"a","version":"v1","valid_from":"2026-01-01","unit":"CNY","line_start":1,"line_end":1,"quote":"x"},` +
		`"actual":{"source_id":"a","version":"v2","valid_from":"2026-01-01","valid_until":"2027-01-01","unit":"CNY","line_start":1,"line_end":1,"quote":"x"},"fields":["version","valid_until"]},` +
		`{"change":"same","golden":{"source_id":"tool:o","version":"0123456789ab","line_start":1,"line_end":1,"quote":"o"},` +
		`"actual":{"source_id":"tool:o","version":"0123456789ab","line_start":1,"line_end":1,"quote":"o"}}]`
	if diff := cmp.Diff(wantJSON, string(b)); diff != "" {
		t.Errorf("RecordChanges() JSON mismatch (-want +got):\n%s", diff)
	}
}
