package lint

import (
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// The rules that report what corpus.Parse finds in one file. A file with any
// of these problems does not parse, so corpus.Load refuses the corpus, and
// the rules that compare files leave the file out.

var ruleUnreadable = &Rule{
	ID:       "unreadable",
	Severity: diag.SeverityError,
	Summary:  "a policy file or folder cannot be read",
	Doc: `A file or folder below the corpus root cannot be read, or a symbolic link leads
outside the corpus root. ka2 refuses a corpus it cannot read completely, since a
missing file could be the one that applies. Fix the permissions, or replace the
link with a copy of its target.`,
	codes: []diag.Code{corpus.CodeUnreadable, corpus.CodeSymlinkOutside, corpus.CodeSymlinkLoop},
}

var ruleInvalidUTF8 = &Rule{
	ID:       "invalid_utf8",
	Severity: diag.SeverityError,
	Summary:  "the file is not valid UTF-8",
	Doc: `Policy files must be UTF-8. The finding points at the first byte that is not.
Save the file as UTF-8 in your editor.`,
	codes: []diag.Code{corpus.CodeInvalidUTF8},
}

var ruleFrontMatter = &Rule{
	ID:       "front_matter",
	Severity: diag.SeverityError,
	Summary:  "front matter is missing, never closed, not valid YAML, repeats a key, or spills into the body",
	Doc: `Every policy file starts with a line '---', the keys (YAML), and another line
'---'; the body follows. This rule reports a file without front matter, front
matter that is never closed, YAML that does not parse or is not a mapping of keys
to values, a key set twice (including subject and subjects together), a YAML
document end line '...' (YAML would ignore every key after it), and an explicit
YAML tag such as !!binary or !!str. It also reports a body that starts with a
second '---' or, before any policy text (past blank lines and '#' lines), with a
front matter key such as valid_until: a '---' in the middle of the front matter
ends it, and the keys after it would be quoted as policy text while the source
went without them (open-ended, without a unit). Only the keys ka2 knows count:
"Scope: lodging on business trips." is policy text.`,
	codes: []diag.Code{corpus.CodeNoFrontMatter, corpus.CodeBadFrontMatter, corpus.CodeDuplicateKey, corpus.CodeFrontMatterInBody},
}

var ruleUnknownKey = &Rule{
	ID:       "unknown_key",
	Severity: diag.SeverityError,
	Summary:  "the front matter has a key ka2 does not know",
	Doc: `ka2 refuses keys it does not know, so that a typo such as valid_untill never
silently turns a bounded source into an open-ended one. The hint names the
closest known key.`,
	codes: []diag.Code{corpus.CodeUnknownKey},
}

var ruleMissingKey = &Rule{
	ID:       "missing_key",
	Severity: diag.SeverityError,
	Summary:  "a required key is missing, or a key is empty",
	Doc: `source_id, version, subjects (or subject) and valid_from are required and must
not be empty. Any other key that is written must have a value too: an empty
valid_until or lang would otherwise read as left out, making the source
open-ended or one for every language. Remove the key to mean that.`,
	codes: []diag.Code{corpus.CodeMissingKey},
}

var ruleBadValue = &Rule{
	ID:       "bad_value",
	Severity: diag.SeverityError,
	Summary:  "a front matter value has the wrong shape",
	Doc: `A value is not what its key needs: a source_id or a supersedes entry that is
not lowercase letters, digits, '.', '_' and '-'; a subject that is not one or more
such segments joined by '/' (travel/lodging/beijing), with no empty segment, no
leading or trailing '/' and no '.' or '..' segment (the hint suggests the list
form for "subjects: lodging, rail", the lowercase spelling for "Lodging" and
travel/lodging for "travel//lodging", and an editor offers the spelling as a
quick fix); a lang that is not a language tag (en is suggested for EN, en-GB for
en_GB); a list where a single value belongs, or the
reverse; a cite entry that is not a line range N-M, or that repeats or overlaps
another; a value holding a control character (other than tab), a line or
paragraph separator (U+2028, U+2029) or a bidirectional override or isolate
(U+202A–U+202E, U+2066–U+2069), which could forge a line of a text report or
send escape sequences to a terminal.`,
	codes: []diag.Code{corpus.CodeBadValue},
}

var ruleInvalidDate = &Rule{
	ID:       "invalid_date",
	Severity: diag.SeverityError,
	Summary:  "valid_from or valid_until is not a calendar date YYYY-MM-DD",
	Doc: `Dates are civil calendar dates written YYYY-MM-DD. A time or a zone offset
(2026-01-01T00:00:00Z) is an error, not dropped, because ka2 compares days: a
boundary must never depend on a clock or a time zone.`,
	codes: []diag.Code{corpus.CodeBadDate},
}

var ruleEmptyInterval = &Rule{
	ID:       "empty_interval",
	Severity: diag.SeverityError,
	Summary:  "valid_until is not after valid_from",
	Doc: `valid_until is exclusive: a source applies from valid_from up to, but not
including, valid_until. When valid_until is on or before valid_from the source
never applies. Set it after valid_from, or remove it for an open-ended source.`,
	codes: []diag.Code{corpus.CodeEmptyInterval},
}

var ruleCiteOutsideBody = &Rule{
	ID:       "cite_outside_body",
	Severity: diag.SeverityError,
	Summary:  "a cite range names lines the body does not have",
	Doc: `cite lists the body line ranges that make up the source's short form. Body lines
are numbered from 1 after the closing '---'. A range past the last line cannot be
quoted.`,
	codes: []diag.Code{corpus.CodeCiteOutsideBody},
}

var ruleEmptyBody = &Rule{
	ID:       "empty_body",
	Severity: diag.SeverityError,
	Summary:  "the body below the front matter is empty",
	Doc: `A source exists to be quoted: its body, below the closing '---', must hold the
policy text. An empty body (or one of blank lines only) would be selected for every
question on its subjects with nothing to quote. The finding points at the line
after the closing '---', where the text belongs.`,
	codes: []diag.Code{corpus.CodeEmptyBody},
}

var ruleParseError = &Rule{
	ID:       "parse_error",
	Severity: diag.SeverityError,
	Summary:  "any other problem that stops the file from parsing",
	Doc: `A problem corpus.Parse reports that no more specific rule covers. The message
says what is wrong.`,
}
