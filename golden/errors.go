package golden

import (
	"errors"

	"github.com/ka2/ka2/internal/diag"
)

// The codes of the problems ParseFile and Load report, each a
// *diag.Diagnostic. Tools that branch on a problem compare codes, never
// messages.
const (
	CodeSyntax        diag.Code = "syntax"         // not YAML, or not one document
	CodeUnknownKey    diag.Code = "unknown_key"    // a key the format does not have (a typo)
	CodeDuplicateKey  diag.Code = "duplicate_key"  // a key written twice in one mapping
	CodeMissingKey    diag.Code = "missing_key"    // a required key is absent or empty
	CodeBadValue      diag.Code = "bad_value"      // a value of the wrong shape or range
	CodeDuplicateCase diag.Code = "duplicate_case" // two cases in a file share a name
	CodeCorpus        diag.Code = "corpus"         // the corpus a case names cannot be loaded
	CodeContract      diag.Code = "contract"       // the contract definition cannot be loaded
	CodeBudget        diag.Code = "budget"         // the counter or limits do not make a budget
	CodeUnreadable    diag.Code = "unreadable"     // a case file or folder cannot be read
	CodeNoCaseFiles   diag.Code = "no_case_files"  // the folders hold no case file at all
)

// hinted is err followed by a hint, "err; hint": the hint names the
// settings to change in braces (see diag.Hint), and each front end words
// them, the CLI as flags. errors.Is still finds err.
func hinted(err error, hint diag.Hint) error {
	return &diag.Diagnostic{Message: err.Error(), Hint: hint, Err: err}
}

// ErrBadCases is matched (errors.Is) by every error Load and ParseFile
// return for broken case files, a diag.List: `ka2 regress` exits 2 on it.
var ErrBadCases = errors.New("broken case files")
