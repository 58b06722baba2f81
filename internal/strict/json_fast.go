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
//
// The nodes of a tree, and the Content lists of its arrays and objects,
// are carved from arrays sized by a count of the text's values
// (countValues) rather than allocated one by one: a request of ten values
// took some twenty allocations.
func fastJSON(data []byte) (*yaml.Node, bool) {
	return fastJSONIn(data, countValues(data)+1) // and the document node
}

// fastChunk bounds the nodes, and the Content pointers, carved at once:
// text the fast path gives up on (a megabyte of '[') costs no more than
// the nodes it reads before it does.
const fastChunk = 128

// fastJSONIn is fastJSON expecting n nodes: the document and the values.
func fastJSONIn(data []byte, n int) (*yaml.Node, bool) {
	// The first chunk of pointers is also the stack of the items of the
	// arrays and objects being read: a tree of n nodes never has n items
	// on it.
	k := min(n, fastChunk)
	ptrs := make([]*yaml.Node, 0, 2*k)
	p := fastParser{data: data, cur: newCursor(data), leftNodes: n, leftPtrs: n - k,
		nodes: make([]yaml.Node, 0, k), content: ptrs[:0:k], stack: ptrs[k:k]}
	p.leftNodes -= k
	p.space()
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	if p.off != len(data) {
		return nil, false
	}
	doc := p.alloc()
	*doc = yaml.Node{Kind: yaml.DocumentNode, Line: v.Line, Column: v.Column}
	p.stack = append(p.stack, v)
	p.close(doc, 0)
	return doc, true
}

// chunk is the size of the next array carved from, for need items now
// and left expected after them.
func chunk(need, left int) int { return need + min(max(left, 0), fastChunk) }

// countValues counts the values of a JSON text the fast path reads: each
// string (keys included), number, literal, array and object. On text it
// does not read the count may be wrong; the parser then allocates what
// does not fit.
func countValues(data []byte) int {
	n := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			n++
			for i++; i < len(data) && data[i] != '"'; i++ {
			}
		case c == '{' || c == '[':
			n++
		case c == '-' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z'):
			n++
			for i+1 < len(data) && (data[i+1] == '.' || data[i+1] == '+' || data[i+1] == '-' ||
				('0' <= data[i+1] && data[i+1] <= '9') || ('a' <= data[i+1] && data[i+1] <= 'z') || data[i+1] == 'E') {
				i++
			}
		}
	}
	return n
}

// fastMaxDepth is far below encoding/json's own limit, so a text deeper
// than it goes to the slow path and gets that path's error if any.
const fastMaxDepth = 512

type fastParser struct {
	data []byte
	// text is data as a string, made by the first str: every string of
	// the tree, keys included, is a slice of it, one allocation where
	// each took its own (BenchmarkHandlerContract 55 → 49 allocs/op, a
	// request of six strings, measured while the service's plain requests
	// still went through this path; go test ./serve -run '^$' -bench
	// 'BenchmarkHandlerContract$').
	text string
	off  int
	// cur positions the nodes, made in increasing offset order.
	cur cursor
	// nodes and content are where nodes and Content lists are carved
	// from; stack holds the items read of the arrays and objects open.
	nodes          []yaml.Node
	content, stack []*yaml.Node
	// leftNodes and leftPtrs are how many nodes and Content pointers the
	// count expects beyond the arrays carved so far.
	leftNodes, leftPtrs int
}

// alloc returns a zero node.
func (p *fastParser) alloc() *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		c := chunk(1, p.leftNodes-1)
		p.nodes, p.leftNodes = make([]yaml.Node, 0, c), p.leftNodes-c
	}
	p.nodes = p.nodes[:len(p.nodes)+1]
	return &p.nodes[len(p.nodes)-1]
}

func (p *fastParser) node(kind yaml.Kind, tag, value string, start int) *yaml.Node {
	n := p.alloc()
	n.Kind, n.Tag, n.Value = kind, tag, value
	n.Line, n.Column = p.cur.pos(start)
	return n
}

// close sets n's Content to the items on the stack from mark on, and
// takes them off. A container without items keeps a nil Content, as the
// token stream's parser leaves it.
func (p *fastParser) close(n *yaml.Node, mark int) {
	items := p.stack[mark:]
	if len(items) == 0 {
		return
	}
	if len(p.content)+len(items) > cap(p.content) {
		c := chunk(len(items), p.leftPtrs-len(items))
		p.content, p.leftPtrs = make([]*yaml.Node, 0, c), p.leftPtrs-c
	}
	at := len(p.content)
	p.content = append(p.content, items...)
	// Capped, so that appending to one list never writes into the next.
	n.Content = p.content[at:len(p.content):len(p.content)]
	p.stack = p.stack[:mark]
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
		return m, p.items(m, '}', func() bool {
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
			p.stack = append(p.stack, k)
			return p.item(depth + 1)
		})
	case c == '[':
		p.off++
		s := p.node(yaml.SequenceNode, "!!seq", "", start)
		return s, p.items(s, ']', func() bool { return p.item(depth + 1) })
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

// item reads a value at depth onto the stack of items.
func (p *fastParser) item(depth int) bool {
	v, ok := p.value(depth)
	p.stack = append(p.stack, v)
	return ok
}

// items reads the items of the object or array n after its opening
// bracket, each with item, through the closing bracket close: items
// separated by commas, none after the last. n's Content is what item puts
// on the stack.
func (p *fastParser) items(n *yaml.Node, close byte, item func() bool) bool {
	mark := len(p.stack)
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
			p.close(n, mark)
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
	if p.text == "" {
		p.text = string(p.data)
	}
	start := p.off + 1
	p.off = i + 1
	return p.text[start:i], true
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
