package gencorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteCases writes files×perFile regression cases on the embedded sample
// corpus under dir (folders of ten files): dates across every validity
// boundary, both languages, three subjects, one in five short, one in ten
// counted in cl100k_base tokens, and one in twenty over a small capacity,
// expecting budget_exceeded. The same arguments always give the same
// files; header is the comment each file starts with.
func WriteCases(dir string, files, perFile int, header string) error {
	dates := []string{"2024-12-31", "2025-01-01", "2025-06-30", "2025-12-31", "2026-01-01", "2026-09-14", "2031-02-28"}
	subjects := []string{"lodging", "lodging", "rail", "lodging-notice"}
	for f := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\ncases:\n", header)
		for i := range perFile {
			n := f*perFile + i
			fmt.Fprintf(&b, "  - name: case-%06d\n    question: Question number %d about the policy?\n", n, n)
			fmt.Fprintf(&b, "    subject: %s\n    dates: [%s]\n", subjects[n%len(subjects)], dates[n%len(dates)])
			if n%2 == 1 {
				b.WriteString("    lang: zh\n")
			}
			if n%5 == 0 {
				b.WriteString("    short: true\n")
			}
			if n%10 == 3 {
				b.WriteString("    counter: cl100k_base\n")
			}
			if n%20 == 7 {
				b.WriteString("    capacity: 300\n    expect:\n      error: budget_exceeded\n")
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("set-%03d", f/10), fmt.Sprintf("cases-%04d.yaml", f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
