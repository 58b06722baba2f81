package cli

import (
	"net/url"
	"path/filepath"
	"strconv"

	"github.com/ka2/ka2/golden"
)

// reportFormats are the formats of regress and report merge.
var reportFormats = []string{"text", "json", "junit", "html"}

// htmlReportOptions links an HTML report's cases to their case files:
// relative to the folder of the report file when it is written to one
// (so the links work where the report is opened from), else as the
// report names them (relative to the working folder).
func htmlReportOptions(reportFile string) golden.HTMLOptions {
	return golden.HTMLOptions{CaseLink: func(p string, line int) string {
		target := filepath.FromSlash(p)
		if reportFile != "" {
			dir, err1 := filepath.Abs(filepath.Dir(reportFile))
			abs, err2 := filepath.Abs(target)
			if err1 == nil && err2 == nil {
				if rel, err := filepath.Rel(dir, abs); err == nil {
					target = rel
				}
			}
		}
		return (&url.URL{Path: filepath.ToSlash(target)}).String() + "#L" + strconv.Itoa(line)
	}}
}
