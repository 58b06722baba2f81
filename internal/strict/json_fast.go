package strict

import (
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fastJSON builds ParseJSON's tree for the JSON texts a service receives
// on every request, in one pass and without encoding/json's token stream
// (which allocates an error for every scalar it reads). It takes only
// what it can read exactly as the token stream does: strings without
// escapes, control characters or invalid UTF-8, nesting at most
// fastMaxDepth deep. On anything else it returns false and ParseJSON
// reads the text the slow way, which also words every error.
func fastJSON(data []byte) (*yaml.Node, bool) {
	p := fastParser{data: data, cur: newCursor(data)}
	p.space()
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	if p.off != len(data) {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: v.Line, Column: v.Column, Content: []*yaml.Node{v}}, true
}

// fastMaxDepth is far below encoding/json's own limit, so a text deeper
// than it goes to the slow path and gets that path's error if any.
const fastMaxDepth = 512

type fastParser struct {
	data []byte
	off  int
	// cur positions the nodes, made in increasing offset order.
	cur cursor
}

func (p *fastParser) node(kind yaml.Kind, tag, value string, start int) *yaml.Node {
	n := &yaml.Node{Kind: kind, Tag: tag, Value: value}
	n.Line, n.Column = p.cur.pos(start)
	return n
}

func (p *fastParser) space() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case ' ', '\t', '\r', '\n':
			p.off++
		default:
			return
		}
	}
}

func (p *fastParser) value(depth int) (*yaml.Node, bool) {
	if p.off >= len(p.data) || depth > fastMaxDepth {
		return nil, false
	}
	start := p.off
	switch c := p.data[p.off]; {
	case c == '{':
		p.off++
		m := p.node(yaml.MappingNode, "!!map", "", start)
		ok := p.items('}', func() bool {
			kstart := p.off
			key, ok := p.str()
			if !ok {
				return false
			}
			k := p.node(yaml.ScalarNode, "!!str", key, kstart)
			k.Style = yaml.DoubleQuotedStyle
			p.space()
			if p.off >= len(p.data) || p.data[p.off] != ':' {
				return false
			}
			p.off++
			p.space()
			v, ok := p.value(depth + 1)
			m.Content = append(m.Content, k, v)
			return ok
		})
		return m, ok
	case c == '[':
		p.off++
		s := p.node(yaml.SequenceNode, "!!seq", "", start)
		ok := p.items(']', func() bool {
			v, ok := p.value(depth + 1)
			s.Content = append(s.Content, v)
			return ok
		})
		return s, ok
	case c == '"':
		text, ok := p.str()
		if !ok {
			return nil, false
		}
		n := p.node(yaml.ScalarNode, "!!str", text, start)
		n.Style = yaml.DoubleQuotedStyle
		return n, true
	case c == '-' || ('0' <= c && c <= '9'):
		if !p.number() {
			return nil, false
		}
		text := string(p.data[start:p.off])
		tag := "!!float"
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			tag = "!!int"
		}
		return p.node(yaml.ScalarNode, tag, text, start), true
	}
	for _, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
		if len(p.data)-p.off >= len(lit.text) && string(p.data[p.off:p.off+len(lit.text)]) == lit.text {
			p.off += len(lit.text)
			return p.node(yaml.ScalarNode, lit.tag, lit.text, start), true
		}
	}
	return nil, false
}

// items reads the items of an object or array after its opening bracket,
// each with item, through the closing bracket close: items separated by
// commas, none after the last.
func (p *fastParser) items(close byte, item func() bool) bool {
	p.space()
	if p.off < len(p.data) && p.data[p.off] == close {
		p.off++
		return true
	}
	for {
		p.space()
		if !item() {
			return false
		}
		p.space()
		if p.off >= len(p.data) {
			return false
		}
		switch p.data[p.off] {
		case ',':
			p.off++
		case close:
			p.off++
			return true
		default:
			return false
		}
	}
}

// str reads a string with no escape, no control character and valid
// UTF-8: its value is its bytes.
func (p *fastParser) str() (string, bool) {
	if p.off >= len(p.data) || p.data[p.off] != '"' {
		return "", false
	}
	i := p.off + 1
	ascii := true
	for ; i < len(p.data); i++ {
		c := p.data[i]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if i >= len(p.data) {
		return "", false
	}
	body := p.data[p.off+1 : i]
	if !ascii && !utf8.Valid(body) {
		return "", false // encoding/json replaces invalid bytes with U+FFFD
	}
	p.off = i + 1
	return string(body), true
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastParser) number() bool {
	d := p.data
	i := p.off
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	p.off = i
	return true
}
