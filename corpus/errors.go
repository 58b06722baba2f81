package corpus

import "github.com/ka2/ka2/internal/diag"

// The codes of the problems Parse and Load report, each a *diag.Diagnostic
// in a diag.List. Tools that branch on a problem compare codes, never
// messages.
const (
	CodeInvalidUTF8      diag.Code = "invalid-utf8"
	CodeNoFrontMatter    diag.Code = "no-front-matter"
	CodeBadFrontMatter   diag.Code = "bad-front-matter"
	CodeUnknownKey       diag.Code = "unknown-key"
	CodeDuplicateKey     diag.Code = "duplicate-key"
	CodeMissingKey       diag.Code = "missing-key"
	CodeBadValue         diag.Code = "bad-value"
	CodeBadDate          diag.Code = "bad-date"
	CodeEmptyInterval    diag.Code = "empty-interval"
	CodeDuplicateSource  diag.Code = "duplicate-source"
	CodeCiteOutsideBody  diag.Code = "cite-outside-body"
	CodeEmptyBody        diag.Code = "empty-body"
	CodeSymlinkOutside   diag.Code = "symlink-outside"
	CodeSymlinkLoop      diag.Code = "symlink-loop" // a link loop, or a folder reached through two links
	CodeUnreadable       diag.Code = "unreadable"
	CodeEmptyCorpus      diag.Code = "empty-corpus"
	CodeUnknownSource    diag.Code = "unknown-source"
	CodeAmbiguousAddress diag.Code = "ambiguous-address"
	CodeRangeOutsideBody diag.Code = "range-outside-body"
)

// CodeFrontMatterInBody is a body that starts with a front matter key or
// a second '---': keys meant for the front matter became body text.
const CodeFrontMatterInBody diag.Code = "front-matter-in-body"
