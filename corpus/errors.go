package corpus

import (
	"slices"

	"github.com/ka2/ka2/internal/diag"
)

// Code is a stable machine name for a kind of corpus problem. Tools that
// branch on a problem compare codes, never messages.
type Code string

// The problems Parse and Load report.
const (
	CodeInvalidUTF8      Code = "invalid-utf8"
	CodeNoFrontMatter    Code = "no-front-matter"
	CodeBadFrontMatter   Code = "bad-front-matter"
	CodeUnknownKey       Code = "unknown-key"
	CodeDuplicateKey     Code = "duplicate-key"
	CodeMissingKey       Code = "missing-key"
	CodeBadValue         Code = "bad-value"
	CodeBadDate          Code = "bad-date"
	CodeEmptyInterval    Code = "empty-interval"
	CodeDuplicateSource  Code = "duplicate-source"
	CodeCiteOutsideBody  Code = "cite-outside-body"
	CodeEmptyBody        Code = "empty-body"
	CodeSymlinkOutside   Code = "symlink-outside"
	CodeUnreadable       Code = "unreadable"
	CodeEmptyCorpus      Code = "empty-corpus"
	CodeUnknownSource    Code = "unknown-source"
	CodeAmbiguousAddress Code = "ambiguous-address"
	CodeRangeOutsideBody Code = "range-outside-body"
)

// Error is one problem in one file: where it is, what is wrong and how to fix
// it. Line and Col are 1-based positions in the file; 0 means unknown.
type Error struct {
	Path string
	Line int
	Col  int
	Code Code
	Msg  string // what is wrong
	Hint string // how to fix it; may be empty
}

func (e *Error) key() diag.Key {
	return diag.Key{Path: e.Path, Line: e.Line, Col: e.Col, Code: string(e.Code), Msg: e.Msg}
}

// Error formats e as "path:line:col: msg; hint".
func (e *Error) Error() string {
	return diag.Format(e.Path, e.Line, e.Col, e.Msg, e.Hint)
}

// ErrorList is every problem found, sorted by path, line, column and code.
type ErrorList []*Error

// Error joins the problems, one per line.
func (l ErrorList) Error() string { return diag.Join(l) }

// Unwrap lets errors.As find each *Error.
func (l ErrorList) Unwrap() []error { return diag.Errors(l) }

// sort orders the list deterministically.
func (l ErrorList) sort() {
	slices.SortStableFunc(l, func(a, b *Error) int { return a.key().Compare(b.key()) })
}

// err returns the list as an error, or nil when it is empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	l.sort()
	return l
}
