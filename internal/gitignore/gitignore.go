package gitignore

import (
	"bytes"
	"strings"
)

// Result is what a pattern, or a list of them, says about a path.
type Result int

const (
	// NoMatch means no pattern matches the path.
	NoMatch Result = iota
	// Exclude means the last pattern that matches excludes the path.
	Exclude
	// Include means the last pattern that matches is a negated one ("!"),
	// which re-includes the path.
	Include
)

// Pattern is one line of a .gitignore file.
type Pattern struct {
	// text is the pattern without its "!", its trailing "/" and, when it
	// is anchored, its leading "/".
	text string
	// base is the folder the pattern's file is in, slash-separated and
	// relative to the root of the tree, "" for the root.
	base string
	// negate is a "!" pattern; dirOnly had a trailing "/"; noDir has no
	// other "/" and so matches a name at any depth below base; endsWith
	// is a noDir "*" and a literal (as "*.md"), matched as a suffix.
	negate, dirOnly, noDir, endsWith bool
	// prefix is the length of text before its first special character:
	// git compares that much literally before it starts wildcard
	// matching, and this changes what a "**" right after it means
	// ("a**/b" matches "a/x/b"), so we do the same.
	prefix int
}

// String returns the pattern as it was written, less trailing spaces.
func (p Pattern) String() string {
	s := p.text
	if !p.noDir {
		s = "/" + s
	}
	if p.dirOnly {
		s += "/"
	}
	if p.negate {
		s = "!" + s
	}
	return s
}

// ParseLine parses one line of a .gitignore file in the folder base
// (slash-separated, relative to the root of the tree, "" or "." for the
// root). It reports false for a line that is no pattern: a blank line or
// a comment.
func ParseLine(line, base string) (Pattern, bool) {
	if line == "" || line[0] == '#' {
		return Pattern{}, false
	}
	line = trimTrailingSpaces(line)
	var p Pattern
	if strings.HasPrefix(line, "!") {
		p.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, line[:len(line)-1]
	}
	if line == "" {
		return Pattern{}, false // "", "/", "!" and "!/" match nothing
	}
	p.noDir = !strings.Contains(line, "/")
	if !p.noDir {
		line = strings.TrimPrefix(line, "/")
	}
	p.text = line
	p.prefix = strings.IndexAny(line, `*?[\`)
	if p.prefix < 0 {
		p.prefix = len(line)
	}
	p.endsWith = p.noDir && line[0] == '*' && !strings.ContainsAny(line[1:], `*?[\`)
	if base == "." {
		base = ""
	}
	p.base = strings.Trim(base, "/")
	return p, true
}

// Parse parses the contents of a .gitignore file in the folder base (see
// ParseLine), lines ending in "\n" or "\r\n", a UTF-8 byte order mark
// skipped.
func Parse(data []byte, base string) []Pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var ps []Pattern
	for line := range strings.SplitSeq(string(data), "\n") {
		if p, ok := ParseLine(strings.TrimSuffix(line, "\r"), base); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// trimTrailingSpaces drops the spaces at the end of line, except one
// escaped with a backslash and those before it, as git does.
func trimTrailingSpaces(line string) string {
	lastSpace := -1
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(line) {
				return line
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return line[:lastSpace]
	}
	return line
}

// Match reports what p says about the path (slash-separated, relative to
// the root of the tree, a folder when isDir).
func (p Pattern) Match(path string, isDir bool) Result {
	if p.dirOnly && !isDir {
		return NoMatch
	}
	name := path
	if p.base != "" {
		if !strings.HasPrefix(path, p.base) || len(path) <= len(p.base) || path[len(p.base)] != '/' {
			return NoMatch
		}
		name = path[len(p.base)+1:]
	}
	var ok bool
	if p.noDir {
		name = name[strings.LastIndexByte(name, '/')+1:]
		switch {
		case p.prefix == len(p.text):
			ok = name == p.text
		case p.endsWith:
			ok = strings.HasSuffix(name, p.text[1:])
		default:
			ok = wildmatch(p.text, name, false)
		}
	} else {
		ok = strings.HasPrefix(name, p.text[:p.prefix])
		if ok {
			pat, rest := p.text[p.prefix:], name[p.prefix:]
			ok = pat == "" && rest == "" || wildmatch(pat, rest, true)
		}
	}
	switch {
	case !ok:
		return NoMatch
	case p.negate:
		return Include
	default:
		return Exclude
	}
}

// Match returns what the last pattern of ps that matches the path says
// about it: later patterns take precedence, so ps lists those of a folder's
// file after those of the files above it. It does not look at the folders
// above path: a caller walking a tree does not enter a folder for which
// Match returns Exclude, which is how git keeps a file from being
// re-included when a folder above it is excluded.
func Match(ps []Pattern, path string, isDir bool) Result {
	for i := len(ps) - 1; i >= 0; i-- {
		if r := ps[i].Match(path, isDir); r != NoMatch {
			return r
		}
	}
	return NoMatch
}

// Ignored reports whether the path is left out by ps, its folders
// included: it is excluded if Match excludes it or any folder above it.
// It suits patterns that all come from one list (with their bases); a
// walk that reads a .gitignore in each folder calls Match per folder.
func Ignored(ps []Pattern, path string, isDir bool) bool {
	for i := 0; i < len(path); i++ {
		if path[i] == '/' && Match(ps, path[:i], true) == Exclude {
			return true
		}
	}
	return Match(ps, path, isDir) == Exclude
}
