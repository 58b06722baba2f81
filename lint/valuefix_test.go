package lint

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestValueFixes: a value the parser can say what it means (a subject in
// capitals, a lang tag in capitals) carries an edit that writes it so, at
// the value, quotes kept.
func TestValueFixes(t *testing.T) {
	tests := []struct {
		name string
		line string // the front matter line under test
		want []Fix
	}{
		{"a capitalised subject in a list", "subjects: [Lodging, rail]",
			[]Fix{{Title: "write Lodging as lodging", Path: "a.md", Line: 4, Col: 12, Old: "Lodging", New: "lodging"}}},
		{"a capitalised single subject", "subject: Travel/Lodging # hotels",
			[]Fix{{Title: "write Travel/Lodging as travel/lodging", Path: "a.md", Line: 4, Col: 10, Old: "Travel/Lodging", New: "travel/lodging"}}},
		{"a quoted subject with a blank", `subjects: [lodging, "Rail "]`,
			[]Fix{{Title: `write "Rail " as "rail"`, Path: "a.md", Line: 4, Col: 21, Old: `"Rail "`, New: `"rail"`}}},
		{"lang in capitals", "subjects: [lodging]\nlang: EN",
			[]Fix{{Title: "write EN as en", Path: "a.md", Line: 5, Col: 7, Old: "EN", New: "en"}}},
		{"lang with an underscore", "subjects: [lodging]\nlang: 'en_GB'",
			[]Fix{{Title: "write 'en_GB' as 'en-GB'", Path: "a.md", Line: 5, Col: 7, Old: "'en_GB'", New: "'en-GB'"}}},
		{"no fix for a lang that means nothing", "subjects: [lodging]\nlang: English", nil},
		{"no fix for subjects written without a list", "subjects: lodging, rail", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "---\nsource_id: a\nversion: v1\n" + tt.line + "\nvalid_from: 2026-01-01\n---\nScope: lodging.\n"
			rep, err := Run(context.Background(), fstest.MapFS{"a.md": {Data: []byte(text)}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []Fix
			for _, f := range rep.Findings {
				if f.Rule() == "bad_value" {
					got = append(got, f.Fixes...)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("bad_value fixes mismatch (-want +got):\n%s\n%s", diff, strings.TrimSpace(text))
			}
		})
	}
}
