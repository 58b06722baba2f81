package golden_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ka2/ka2/golden"
)

// TestWriteTextEscapes: text that came from files (case names, expected
// sources, diffs) cannot forge a line of the report or reach the terminal
// as a control sequence.
func TestWriteTextEscapes(t *testing.T) {
	r := &golden.Report{Files: []golden.FileReport{{Path: "cases/c.yaml", Cases: []golden.CaseReport{{
		Name: "a\x1b[2J", Line: 2, Status: golden.StatusFail, State: golden.StateDiffers,
		Expectations: []string{"sources: want [x\nPASS cases/c.yaml:9 forged], got []"},
		Diff:         "-\"quote\": \"abc\u202edcba\"\n+\"quote\": \"x\"\n",
	}}}}}
	var b bytes.Buffer
	if err := r.WriteText(&b, nil); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, bad := range []string{"\x1b", "\u202e", "\nPASS"} {
		if strings.Contains(got, bad) {
			t.Errorf("WriteText() wrote %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{`FAIL cases/c.yaml:2 a\x1b[2J (golden differs)`, `    -"quote": "abc\u202edcba"`} {
		if !strings.Contains(got, want) {
			t.Errorf("WriteText() lacks %q:\n%s", want, got)
		}
	}
}
