package corpus

import "github.com/ka2/ka2/internal/diag"

// The codes of the problems Parse and Load report, each a *diag.Diagnostic
// in a diag.List. Tools that branch on a problem compare codes, never
// messages.
const (
	CodeInvalidUTF8      diag.Code = "invalid_utf8"
	CodeNoFrontMatter    diag.Code = "no_front_matter"
	CodeBadFrontMatter   diag.Code = "bad_front_matter"
	CodeUnknownKey       diag.Code = "unknown_key"
	CodeDuplicateKey     diag.Code = "duplicate_key"
	CodeMissingKey       diag.Code = "missing_key"
	CodeBadValue         diag.Code = "bad_value"
	CodeBadDate          diag.Code = "bad_date"
	CodeEmptyInterval    diag.Code = "empty_interval"
	CodeDuplicateSource  diag.Code = "duplicate_source"
	CodeCiteOutsideBody  diag.Code = "cite_outside_body"
	CodeEmptyBody        diag.Code = "empty_body"
	CodeSymlinkOutside   diag.Code = "symlink_outside"
	CodeSymlinkLoop      diag.Code = "symlink_loop" // a link loop, or a folder reached through two links
	CodeUnreadable       diag.Code = "unreadable"
	CodeEmptyCorpus      diag.Code = "empty_corpus"
	CodeUnknownSource    diag.Code = "unknown_source"
	CodeAmbiguousAddress diag.Code = "ambiguous_address"
	CodeRangeOutsideBody diag.Code = "range_outside_body"
)

// CodeFrontMatterInBody is a body that starts with a front matter key or
// a second '---': keys meant for the front matter became body text.
const CodeFrontMatterInBody diag.Code = "front_matter_in_body"
