// Package diag formats the one shape every ka2 problem report shares:
// where, what is wrong, and how to fix it.
package diag

import (
	"strconv"
	"strings"
)

// Format writes "path:line:col: msg; hint". A zero line or column, an
// empty path and an empty hint are left out.
func Format(path string, line, col int, msg, hint string) string {
	var b strings.Builder
	b.WriteString(path)
	if line > 0 {
		b.WriteString(":" + strconv.Itoa(line))
		if col > 0 {
			b.WriteString(":" + strconv.Itoa(col))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(msg)
	if hint != "" {
		b.WriteString("; " + hint)
	}
	return b.String()
}
