package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gopkg.in/yaml.v3"
)

// JSONProblem is what is wrong with text ParseJSON cannot read.
type JSONProblem int

// The problems ParseJSON reports.
const (
	// JSONSyntax: the text is not JSON; Err is encoding/json's error.
	JSONSyntax JSONProblem = iota + 1
	// JSONEnd: the text ends inside a value.
	JSONEnd
	// JSONTrailing: there is more after the first value.
	JSONTrailing
)

// JSONError is text ParseJSON cannot read, and where: Offset is a byte
// offset into the text, Line and Col its 1-based line and column (Col
// counts code points).
type JSONError struct {
	Problem   JSONProblem
	Offset    int
	Line, Col int
	Err       error
}

func (e *JSONError) Error() string {
	switch e.Problem {
	case JSONEnd:
		return "the JSON text ends early"
	case JSONTrailing:
		return "there is more after the JSON value"
	}
	return "invalid JSON: " + e.Err.Error()
}

func (e *JSONError) Unwrap() error { return e.Err }

// ParseJSON reads one JSON value into a node tree as yaml.v3 builds one,
// so the Decoder checks it as it checks YAML: objects are mappings (every
// key kept, so repeated keys can be reported), arrays sequences, and the
// rest scalars tagged !!str, !!int, !!float, !!bool or !!null. Each node
// is positioned at its first character: a key at its opening quote, an
// object at its '{'. It returns a document node.
func ParseJSON(data []byte) (*yaml.Node, error) {
	// The fast path earns its place on what the service reads through
	// it: a request with items (contract's own fastRequest reads a plain
	// one) takes 0.56× the time through the handler, 72 allocations, not
	// 241, and 18.6 KB, not 26.3 KB (medians of three interleaved runs
	// with and without it of go test ./serve -run '^$' -bench
	// 'BenchmarkHandlerContractItems$' -benchmem, 2026-12-02). Most
	// contracts go the slow way: a quote's line breaks are escaped.
	if n, ok := fastJSON(data); ok {
		return n, nil
	}
	p := newJSONParser(data)
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	end := int(p.dec.InputOffset())
	if _, err := p.dec.Token(); err != io.EOF {
		rest := data[end:]
		return nil, p.errAt(JSONTrailing, end+len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")), nil)
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: v.Line, Column: v.Column, Content: []*yaml.Node{v}}, nil
}

type jsonParser struct {
	data []byte
	dec  *json.Decoder
	// cur positions the nodes, made in increasing offset order.
	cur cursor
}

// newJSONParser reads data with encoding/json's token stream, numbers
// kept as their text.
func newJSONParser(data []byte) *jsonParser {
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), cur: newCursor(data)}
	p.dec.UseNumber()
	return p
}

func (p *jsonParser) errAt(problem JSONProblem, off int, err error) *JSONError {
	e := &JSONError{Problem: problem, Offset: off, Err: err}
	e.Line, e.Col = LineCol(p.data, off)
	return e
}

// next reads a token and returns where it starts.
func (p *jsonParser) next() (json.Token, int, error) {
	start := int(p.dec.InputOffset())
	for start < len(p.data) && bytes.IndexByte([]byte(" \t\r\n,:"), p.data[start]) >= 0 {
		start++
	}
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// The token stream counts the offset from where it last
			// stopped, which can be before the separator and space that
			// precede the character it refuses.
			return nil, 0, p.errAt(JSONSyntax, max(int(se.Offset), start), err)
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, 0, p.errAt(JSONEnd, len(p.data), err)
		}
		return nil, 0, p.errAt(JSONSyntax, int(p.dec.InputOffset()), err)
	}
	return tok, start, nil
}

func (p *jsonParser) node(kind yaml.Kind, tag, value string, start int) *yaml.Node {
	n := &yaml.Node{Kind: kind, Tag: tag, Value: value}
	n.Line, n.Column = p.cur.pos(start)
	return n
}

// MaxJSONDepth is how deeply ParseJSON lets arrays and objects nest, as
// encoding/json does: a node per level of a hostile run of brackets
// (1 MiB of "[") would otherwise take hundreds of megabytes.
const MaxJSONDepth = 10000

func (p *jsonParser) value(depth int) (*yaml.Node, error) {
	tok, start, err := p.next()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth == MaxJSONDepth {
			return nil, p.errAt(JSONSyntax, start, fmt.Errorf("arrays and objects nested more than %d deep", MaxJSONDepth))
		}
		switch t {
		case '{':
			m := p.node(yaml.MappingNode, "!!map", "", start)
			for p.dec.More() {
				kt, kstart, err := p.next()
				if err != nil {
					return nil, err
				}
				k := p.node(yaml.ScalarNode, "!!str", kt.(string), kstart)
				k.Style = yaml.DoubleQuotedStyle
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				m.Content = append(m.Content, k, v)
			}
			if _, _, err := p.next(); err != nil { // '}'
				return nil, err
			}
			return m, nil
		case '[':
			s := p.node(yaml.SequenceNode, "!!seq", "", start)
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				s.Content = append(s.Content, v)
			}
			if _, _, err := p.next(); err != nil { // ']'
				return nil, err
			}
			return s, nil
		}
	case string:
		n := p.node(yaml.ScalarNode, "!!str", t, start)
		n.Style = yaml.DoubleQuotedStyle
		return n, nil
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
			tag = "!!int"
		}
		return p.node(yaml.ScalarNode, tag, t.String(), start), nil
	case bool:
		return p.node(yaml.ScalarNode, "!!bool", strconv.FormatBool(t), start), nil
	case nil:
		return p.node(yaml.ScalarNode, "!!null", "null", start), nil
	}
	// A closing delimiter where a value belongs: encoding/json reports
	// it as a syntax error before it gets here.
	return nil, p.errAt(JSONSyntax, start, errors.New("unexpected delimiter"))
}

// JSONKind names n's kind as JSON does: "a JSON string", "a JSON number",
// "a JSON object", … for messages about a value of the wrong type.
func JSONKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	}
	switch n.Tag {
	case "!!str":
		return "string"
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "bool"
	case "!!null":
		return "null"
	}
	return "value"
}
