package yamlerr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Error is a problem Decode finds in YAML that yaml.v3 itself accepts:
// something yaml.v3 would skip or read differently from what the text
// says. Line and Col are 1-based positions in the text given to Decode.
type Error struct {
	Line, Col int
	Msg       string // what is wrong, without the position
	Hint      string // how to fix it
}

func (e *Error) Error() string {
	return fmt.Sprintf("line %d, column %d: %s; %s", e.Line, e.Col, e.Msg, e.Hint)
}

// Decode reads src as exactly one YAML document. yaml.v3 stops at a
// document end line ("...") or at a second "---" line and silently drops
// everything after it, and it reads an explicit tag (!!binary, !!str,
// !custom) as an instruction to convert a value; ka2's formats use neither,
// so either is an *Error at its position, rather than text ka2 ignores.
// One "---" before the document's content is allowed: it drops nothing.
//
// Text without a document (empty, or only comments) gives a node of kind
// 0, as yaml.Unmarshal does. A syntax error is yaml.v3's own error, for
// Locate.
//
// A panic inside yaml.v3 becomes an error: no input file may crash ka2.
func Decode(src []byte) (doc *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	return decode(src)
}

func decode(src []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	marker := findMarker(src)
	tagged := firstTagged(&doc)
	switch {
	case marker != nil && (tagged == nil || marker.Line <= tagged.Line):
		return nil, marker
	case tagged != nil:
		return nil, &Error{Line: tagged.Line, Col: tagged.Column,
			Msg:  fmt.Sprintf("YAML tag %s is not allowed", tagged.Tag),
			Hint: "remove the tag and write the value as plain text"}
	}
	// Without a marker yaml.v3 may still stop early ("[]0" reads as []):
	// whatever follows the document must be nothing at all.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, &Error{Line: extra.Line, Col: extra.Column, Msg: "a second YAML document starts here",
			Hint: "keep one YAML document in the file, or move what follows to its own file"}
	}
	return &doc, nil
}

// firstTagged returns the first node, in document order, written with an
// explicit tag, or nil. Aliases are not followed: their anchor is checked
// where it is written.
func firstTagged(n *yaml.Node) *yaml.Node {
	if n.Style&yaml.TaggedStyle != 0 {
		return n
	}
	for _, c := range n.Content {
		if t := firstTagged(c); t != nil {
			return t
		}
	}
	return nil
}

// findMarker finds a document marker that ends the first document: any
// "..." line, and any "---" line but one before the document's content.
// A line starting with "---" or "..." followed by a blank or the line's
// end is a marker wherever it is, even inside a quoted or block scalar
// (yaml.v3's scanner checks for one at column 0 before anything else), so
// lines are enough; they are broken where YAML breaks them.
func findMarker(src []byte) *Error {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	content := false
	for line := 1; len(src) > 0; line++ {
		end, next := lineEnd(src)
		l := src[:end]
		src = src[next:]
		if m := markerOf(l); m != "" {
			switch {
			case m == "---" && !content:
				content = true
				continue
			case m == "---":
				return &Error{Line: line, Col: 1, Msg: "a second YAML document starts here",
					Hint: "keep one YAML document in the file: remove the '---' line, or move what follows to its own file"}
			default:
				return &Error{Line: line, Col: 1, Msg: "a YAML document end line '...' ends the reading here, so what follows it would be ignored",
					Hint: "remove the '...' line"}
			}
		}
		t := bytes.TrimLeft(l, " \t")
		if len(t) > 0 && t[0] != '#' && t[0] != '%' {
			content = true
		}
	}
	return nil
}

// markerOf returns "---" or "..." when line is a document marker.
func markerOf(l []byte) string {
	if len(l) < 3 || !(bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) {
		return ""
	}
	if len(l) > 3 && l[3] != ' ' && l[3] != '\t' {
		return ""
	}
	return string(l[:3])
}

// lineEnd returns the length of the first line of src and where the next
// one starts. YAML breaks lines at LF, CR, CRLF, NEL, LS and PS.
func lineEnd(src []byte) (end, next int) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			return i, i + 1
		case c == '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				return i, i + 2
			}
			return i, i + 1
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(src[i:])
			if r == 0x85 || r == 0x2028 || r == 0x2029 {
				return i, i + size
			}
			i += size
			continue
		}
		i++
	}
	return len(src), len(src)
}
