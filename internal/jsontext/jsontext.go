// Package jsontext decides whether the text of a JSON document is exactly
// what encoding/json will read: it finds the two things encoding/json
// silently turns into U+FFFD instead of refusing, bytes that are not UTF-8
// and \u escapes of lone UTF-16 surrogates ("\ud800"), and says where they
// are. Every ka2 reader of JSON input calls Check before decoding, so that
// no input is changed without a word.
package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/strict"
)

// Error is invalid text in a JSON document.
type Error struct {
	// Offset is the byte offset of the bad byte or escape.
	Offset int
	// Line and Col are 1-based; Col counts code points, each invalid byte
	// as one.
	Line, Col int
	// Field is the path of the value (or, with Key, of the object whose
	// key) holding the text, e.g. "items[1].text"; "" for the top level.
	Field string
	// Pointer is Field as a JSON pointer (RFC 6901), e.g. "/items/1/text".
	Pointer string
	// Key is true when the text is in an object key rather than a value.
	Key bool
	// Msg says what is wrong; Hint how to fix it.
	Msg, Hint string
	// Repeated is true when the problem is a key its object repeats (see
	// Exact), false for invalid text.
	Repeated bool
}

// Error formats the problem as "line:col: field: msg; hint".
func (e *Error) Error() string {
	msg := e.Msg
	if f := e.Describe(); f != "" {
		msg = f + ": " + msg
	}
	return strings.TrimPrefix(diag.Format(diag.Pos{Line: e.Line, Col: e.Col}, msg, e.Hint), ":")
}

// Describe names where the text is: the field, "a key of FIELD", or "".
func (e *Error) Describe() string {
	switch {
	case e.Key && e.Field == "":
		return "a key"
	case e.Key:
		return "a key of " + e.Field
	}
	return e.Field
}

// Check returns the first invalid text in data, or nil. It does not check
// JSON syntax: a document it passes may still be malformed, which the
// decoder then reports.
func Check(data []byte) *Error {
	if utf8.Valid(data) && !mayHaveSurrogate(data) {
		return nil // the common case, without tracking paths
	}
	var s scanner
	return s.scan(data)
}

// Exact is Check, and it also refuses an object that repeats a key:
// encoding/json keeps the last value where other JSON readers keep the
// first, so a document read by ka2 and by another program would mean two
// things. It scans every byte; Check is for the input that the strict
// decoder reads next, which reports repeated keys itself.
func Exact(data []byte) *Error {
	s := scanner{keys: true}
	return s.scan(data)
}

// mayHaveSurrogate reports a "\uD8".."\uDF" sequence anywhere; a false
// positive (an escaped backslash before "ud800") only costs the full scan.
func mayHaveSurrogate(data []byte) bool {
	for {
		i := bytes.Index(data, []byte(`\u`))
		if i < 0 || i+3 >= len(data) {
			return false
		}
		if (data[i+2] == 'd' || data[i+2] == 'D') && strings.IndexByte("89abcdefABCDEF", data[i+3]) >= 0 {
			return true
		}
		data = data[i+2:]
	}
}

type frame struct {
	object    bool
	expectKey bool               // in an object, before the next key
	key       string             // in an object, the current key
	index     int                // in an array, the current element
	seen      map[string]seenKey // with scanner.keys: each key, by strict.FoldKey
}

type scanner struct {
	stack []*frame
	keys  bool // refuse repeated keys (Exact)
}

func (s *scanner) top() *frame {
	if len(s.stack) == 0 {
		return nil
	}
	return s.stack[len(s.stack)-1]
}

// path is the JSON path of the value being read, and the same as a JSON
// pointer.
func (s *scanner) path() (string, string) {
	var b, ptr strings.Builder
	for _, f := range s.stack {
		switch {
		case f.object && !f.expectKey:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
			ptr.WriteString("/" + pointerEscaper.Replace(f.key))
		case !f.object:
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
			ptr.WriteString("/" + strconv.Itoa(f.index))
		}
	}
	return b.String(), ptr.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// maxDepth is encoding/json's own nesting limit: a document nested deeper
// is one the decoder refuses, so the scan leaves it to the decoder rather
// than keep a frame for every level of a hostile run of brackets.
const maxDepth = 10000

func (s *scanner) scan(data []byte) *Error {
	for i := 0; i < len(data); {
		c := data[i]
		switch c {
		case '{', '[':
			if len(s.stack) == maxDepth {
				return nil
			}
			s.stack = append(s.stack, &frame{object: c == '{', expectKey: c == '{'})
		case '}', ']':
			if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
		case ',':
			if f := s.top(); f != nil && f.object {
				f.expectKey, f.key = true, ""
			} else if f != nil {
				f.index++
			}
		case ':':
			if f := s.top(); f != nil && f.object {
				f.expectKey = false
			}
		case '"':
			end, bad, msg, hint := str(data, i)
			f := s.top()
			isKey := f != nil && f.object && f.expectKey
			if bad >= 0 {
				e := &Error{Offset: bad, Msg: msg, Hint: hint, Key: isKey}
				if isKey {
					e.Field, e.Pointer = s.pathOfObject()
				} else {
					e.Field, e.Pointer = s.path()
				}
				e.Line, e.Col = position(data, bad)
				return e
			}
			if isKey {
				var k string
				if err := jsonUnquote(data[i:end], &k); err == nil {
					f.key = k
				}
				if e := s.repeated(data, f, i); e != nil {
					return e
				}
			}
			i = end
			continue
		default:
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(data[i:])
				if r == utf8.RuneError && n == 1 {
					e := &Error{Offset: i, Msg: fmt.Sprintf("invalid UTF-8 byte 0x%02x", c), Hint: "encode the text as UTF-8"}
					e.Field, e.Pointer = s.path()
					e.Line, e.Col = position(data, i)
					return e
				}
				i += n
				continue
			}
		}
		i++
	}
	return nil
}

// repeated records the key f.key read at off, and returns an *Error when
// f's object had it already, or a key that differs from it only in case,
// which encoding/json reads as the same field (only under scanner.keys).
func (s *scanner) repeated(data []byte, f *frame, off int) *Error {
	if !s.keys {
		return nil
	}
	fold := strict.FoldKey(f.key)
	first, ok := f.seen[fold]
	if !ok {
		if f.seen == nil {
			f.seen = map[string]seenKey{}
		}
		f.seen[fold] = seenKey{off, f.key}
		return nil
	}
	line, col := position(data, first.off)
	e := &Error{Offset: off, Key: true, Repeated: true,
		Msg:  fmt.Sprintf("key %q repeats the one at %d:%d", f.key, line, col),
		Hint: "keep one: JSON readers differ on which of the two values a repeated key means"}
	if first.key != f.key {
		e.Msg = fmt.Sprintf("key %q differs only in case from %q at %d:%d", f.key, first.key, line, col)
		e.Hint = "keep one: encoding/json reads keys that differ only in case as one field, other JSON readers as two"
	}
	e.Field, e.Pointer = s.pathOfObject()
	e.Line, e.Col = position(data, off)
	return e
}

// seenKey is where a key of an object was read, and how it was written.
type seenKey struct {
	off int
	key string
}

// pathOfObject is the path of the innermost object, whose key is being
// read.
func (s *scanner) pathOfObject() (string, string) {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	defer func() { s.stack = append(s.stack, f) }()
	return s.path()
}

// str reads the string literal starting at data[start] == '"'. It returns
// the offset after its closing quote and, for invalid text, the offset of
// the bad byte or escape with a message and hint (bad is -1 otherwise).
// An unterminated string ends at len(data), for the decoder to report.
func str(data []byte, start int) (end, bad int, msg, hint string) {
	const pairHint = `write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`
	for j := start + 1; j < len(data); {
		b := data[j]
		switch {
		case b == '"':
			return j + 1, -1, "", ""
		case b == '\\':
			if j+6 <= len(data) && data[j+1] == 'u' {
				r, ok := hex4(data[j+2 : j+6])
				switch {
				case ok && r >= 0xD800 && r < 0xDC00:
					if j+12 <= len(data) && data[j+6] == '\\' && data[j+7] == 'u' {
						if r2, ok := hex4(data[j+8 : j+12]); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
							j += 12
							continue
						}
					}
					return 0, j, fmt.Sprintf(`lone UTF-16 surrogate escape \u%s (a high surrogate without its low half)`, data[j+2:j+6]), pairHint
				case ok && r >= 0xDC00 && r <= 0xDFFF:
					return 0, j, fmt.Sprintf(`lone UTF-16 surrogate escape \u%s (a low surrogate without its high half)`, data[j+2:j+6]), pairHint
				case ok:
					j += 6
					continue
				}
			}
			j += 2
		case b < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRune(data[j:])
			if r == utf8.RuneError && n == 1 {
				return 0, j, fmt.Sprintf("invalid UTF-8 byte 0x%02x", b), "encode the text as UTF-8"
			}
			j += n
		}
	}
	return len(data), -1, "", ""
}

func hex4(b []byte) (rune, bool) {
	v, err := strconv.ParseUint(string(b), 16, 32)
	return rune(v), err == nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// jsonUnquote decodes a string literal that Check found valid.
func jsonUnquote(lit []byte, dst *string) error {
	return json.Unmarshal(lit, dst)
}

// Marshal is json.Marshal without HTML escaping: a type's MarshalJSON
// that calls json.Marshal would write `>` as \u003e even when its caller's
// encoder has SetEscapeHTML(false), and ka2's output keeps text as it is.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
