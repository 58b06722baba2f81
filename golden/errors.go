package golden

import (
	"errors"
	"slices"

	"github.com/ka2/ka2/internal/diag"
)

// Code is the stable machine name of a problem in a case file. Tools that
// branch on a problem compare codes, never messages.
type Code string

// The problems ParseFile and Load report.
const (
	CodeSyntax        Code = "syntax"         // not YAML, or not one document
	CodeUnknownKey    Code = "unknown-key"    // a key the format does not have (a typo)
	CodeDuplicateKey  Code = "duplicate-key"  // a key written twice in one mapping
	CodeMissingKey    Code = "missing-key"    // a required key is absent or empty
	CodeBadValue      Code = "bad-value"      // a value of the wrong shape or range
	CodeDuplicateCase Code = "duplicate-case" // two cases in a file share a name
	CodeNotYet        Code = "not-yet"        // a key this version of ka2 reserves but cannot run yet
	CodeCorpus        Code = "corpus"         // the corpus a case names cannot be loaded
	CodeContract      Code = "contract"       // the contract definition cannot be loaded
	CodeBudget        Code = "budget"         // the counter or limits do not make a budget
	CodeUnreadable    Code = "unreadable"     // a case file or folder cannot be read
	CodeNoCaseFiles   Code = "no-case-files"  // the folders hold no case file at all
)

// ErrBadCases is matched (errors.Is) by every error Load and ParseFile
// return for broken case files: `ka2 regress` exits 2 on it.
var ErrBadCases = errors.New("broken case files")

// Error is one problem in one case file: where it is, what is wrong and
// how to fix it. Line and Col are 1-based; 0 means unknown.
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

// Is makes errors.Is(err, ErrBadCases) true.
func (e *Error) Is(target error) bool { return target == ErrBadCases }

// ErrorList is every problem found, sorted by path, line, column and code.
type ErrorList []*Error

// Error joins the problems, one per line.
func (l ErrorList) Error() string { return diag.Join(l) }

// Unwrap lets errors.As find each *Error and errors.Is find ErrBadCases.
func (l ErrorList) Unwrap() []error { return diag.Errors(l) }

// err sorts the list and returns it as an error, or nil when it is empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	slices.SortStableFunc(l, func(a, b *Error) int { return a.key().Compare(b.key()) })
	return l
}
