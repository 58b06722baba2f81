// Package diag formats the one shape every ka2 problem report shares:
// where, what is wrong, and how to fix it.
package diag

import (
	"cmp"
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

// Key is what problem reports sort by, so every list of them reads in the
// same order: path, line, column, code, then message.
type Key struct {
	Path      string
	Line, Col int
	Code, Msg string
}

// Compare orders keys for sorting.
func (a Key) Compare(b Key) int {
	return cmp.Or(
		strings.Compare(a.Path, b.Path),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col),
		strings.Compare(a.Code, b.Code),
		strings.Compare(a.Msg, b.Msg),
	)
}

// Join writes a list of problems one per line.
func Join[E error](list []E) string {
	msgs := make([]string, len(list))
	for i, e := range list {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Errors returns the list as []error, for an Unwrap() []error method that
// lets errors.As and errors.Is reach each problem.
func Errors[E error](list []E) []error {
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errs
}
