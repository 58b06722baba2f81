package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/ka2/ka2/internal/testutil"
)

// TestRequiredSettingWording: a missing subject or date is the same usage
// error (exit 2, nothing on stdout) whether the build flags or a request
// file leave it out.
func TestRequiredSettingWording(t *testing.T) {
	dir := t.TempDir()
	noSubject := filepath.Join(dir, "nosubject.json")
	testutil.WriteFile(t, noSubject, `{"question": "q", "dates": ["2026-09-14"]}`)
	noDate := filepath.Join(dir, "nodate.json")
	testutil.WriteFile(t, noDate, `{"question": "q", "subject": "lodging"}`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"flags, no subject", []string{"build", "--date", "2026-09-14", "--question", "q"}, "ka2: --subject is required, e.g. --subject lodging\n"},
		{"request, no subject", []string{"build", "--request", noSubject}, "ka2: --subject is required, e.g. --subject lodging\n"},
		{"flags, no date", []string{"build", "--subject", "lodging", "--question", "q"}, "ka2: --date is required, e.g. --date 2026-09-14\n"},
		{"request, no date", []string{"build", "--request", noDate}, "ka2: --date is required, e.g. --date 2026-09-14\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runKA2(t, "", tt.args...)
		first := stderr
		if i := len(tt.want); len(stderr) >= i {
			first = stderr[:i]
		}
		if code != 2 || stdout != "" || first != tt.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr starting %q", tt.name, code, stdout, stderr, tt.want)
		}
	}
}
