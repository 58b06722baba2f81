// Package yamlerr decides what YAML text every ka2 file format accepts:
// exactly one document, read to its end, without explicit tags (Decode);
// and it reads positions out of yaml.v3's error messages, which carry a
// line number only in their text (Locate).
package yamlerr

import (
	"regexp"
	"strconv"
	"strings"
)

var lineRe = regexp.MustCompile(`^line (\d+): (.*)$`)

// parserProblems are yaml.v3's parser (not scanner) errors: yaml.v3 adds
// one to scanner marks only, so these carry the 0-based line of their mark,
// one before the line a person counts.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// Locate returns the 1-based line of src that err points at, and the
// message without its "yaml: line N: " prefix. line is 0 when the error
// names no line; it is never past src's last line, where yaml.v3 points
// when the text ends too early.
func Locate(err error, src []byte) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	m := lineRe.FindStringSubmatch(msg)
	if m == nil {
		return 0, msg
	}
	line, _ = strconv.Atoi(m[1])
	msg = m[2]
	if parserProblems[msg] {
		line++
	}
	return min(line, lineCount(src)), msg
}

// lineCount counts lines as a person does: a final newline does not start
// another line, and empty text has one line.
func lineCount(src []byte) int {
	n := strings.Count(string(src), "\n")
	if len(src) == 0 || src[len(src)-1] != '\n' {
		n++
	}
	return max(n, 1)
}

// IsParserProblem reports whether msg (as Locate returns it) is a problem
// of structure, such as unbalanced brackets or indentation, rather than of
// one token.
func IsParserProblem(msg string) bool { return parserProblems[msg] }
