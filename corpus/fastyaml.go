package corpus

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/yamlerr"
)

// decodeFrontMatter decodes the front matter text into doc as
// yamlerr.Decode does. The common form — "key: value" lines at the left
// margin, with plain, quoted or one-line [a, b] values, blank lines and
// comments — is read by hand, giving the same nodes (kind, style, tag for
// null, value, line, column, children) as yaml.v3; anything else goes to
// yaml.v3, so results and errors are the same either way (see
// FuzzFrontMatterFastPath). Call release once the nodes below doc are no
// longer used: the fast path's nodes are reused.
//
// Measured against yaml.v3 alone after a Source came to hold its body as
// one string (2026-12-02, 2 shared cores): `go test ./corpus -bench
// 'BenchmarkLoad$' -benchtime 2x -count 4` (100,000 sources) allocates
// 392 MB and 4.0 M objects per load with it, 1,707 MB and 17.8 M
// without, and takes 13–20 s against 18–27 s; `ka2perf load` on 100,000
// generated sources, 4 runs interleaved with a build without it, spends
// 2.1–2.4 s of user CPU against 5.2–5.6 s, and ends at 356–370 MB of RSS
// against 513–531 MB: 0.44× the CPU and 0.70× the memory.
func decodeFrontMatter(text string, doc *yaml.Node) (release func(), err error) {
	if !slowYAML.Load() {
		if n, arena, ok := fastFrontMatter(text); ok {
			*doc = *n
			return arena.release, nil
		}
	}
	n, err := yamlerr.Decode([]byte(text))
	if err != nil {
		return func() {}, err
	}
	*doc = *n
	return func() {}, nil
}

// slowYAML turns the fast path off, for the tests that compare the two.
var slowYAML atomic.Bool

// nodeArena hands out the nodes of one front matter, and takes them back.
type nodeArena struct {
	nodes []yaml.Node
	ptrs  []*yaml.Node // the mapping's children
}

// arenas keeps the arenas of front matters parsed, for the next ones: the
// nodes of one file are garbage as soon as it is parsed. Measured with
// `ka2perf load` on 100,000 generated sources, 4 runs interleaved with a
// build that makes a new arena for every file (2026-12-02): with the pool
// the load ends at 356–370 MB of RSS against 450–486 MB (0.77×), and
// spends 2.1–2.4 s of user CPU against 2.4–3.2 s.
var arenas = sync.Pool{New: func() any { return &nodeArena{} }}

func (a *nodeArena) alloc(n yaml.Node) *yaml.Node {
	if len(a.nodes) == cap(a.nodes) {
		// Earlier nodes stay where they are: make a new block for more.
		a.nodes = make([]yaml.Node, 0, max(32, 2*cap(a.nodes)))
	}
	a.nodes = append(a.nodes, n)
	return &a.nodes[len(a.nodes)-1]
}

func (a *nodeArena) release() {
	if cap(a.nodes) > 256 {
		return
	}
	clear(a.nodes)
	clear(a.ptrs)
	a.nodes, a.ptrs = a.nodes[:0], a.ptrs[:0]
	arenas.Put(a)
}

// fastFrontMatter parses the simple form of front matter, or reports
// false for anything it does not read exactly as yaml.v3 does.
func fastFrontMatter(text string) (*yaml.Node, *nodeArena, bool) {
	if !utf8.ValidString(text) {
		return nil, nil, false
	}
	a := arenas.Get().(*nodeArena)
	n, ok := a.parse(text)
	if !ok {
		a.release()
		return nil, nil, false
	}
	return n, a, true
}

func (a *nodeArena) parse(text string) (*yaml.Node, bool) {
	alloc := a.alloc
	m := alloc(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
	m.Content = a.ptrs[:0]
	line := 0
	for len(text) > 0 || line == 0 {
		line++
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			l, text = text, ""
		}
		trimmed := strings.TrimLeft(l, " ")
		if trimmed == "" || trimmed[0] == '#' {
			if strings.IndexByte(trimmed, '\t') >= 0 || !printable(trimmed) {
				return nil, false
			}
			continue
		}
		if len(trimmed) != len(l) {
			return nil, false // indented: a continuation or a nested block
		}
		// The key: a plain word at the left margin, then ": ".
		k := 0
		for k < len(l) && isKeyByte(l[k], k == 0) {
			k++
		}
		// yaml.v3 takes a plain word for a key only within 1024
		// characters of its start; leave a longer one to it.
		if k == 0 || k > 1000 || k+1 >= len(l) || l[k] != ':' || l[k+1] != ' ' {
			return nil, false
		}
		key := alloc(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: l[:k], Line: line, Column: 1})
		if isNullWord(key.Value) {
			key.Tag = "!!null"
		}
		pos := k + 1
		for pos < len(l) && l[pos] == ' ' {
			pos++
		}
		if pos == len(l) {
			return nil, false // an empty value: leave it to yaml.v3
		}
		col := pos + 1 // the key and the blanks are ASCII
		var v *yaml.Node
		var rest string
		var ok bool
		switch l[pos] {
		case '[':
			v, rest, ok = flowSequence(l[pos:], line, col, alloc)
		case '"', '\'':
			var q yaml.Node
			q, rest, ok = quoted(l[pos:], line, col)
			if ok {
				v = alloc(q)
			}
		default:
			var val string
			val, ok = plainBlock(l[pos:])
			if ok {
				v = alloc(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val, Line: line, Column: col})
				if isNullWord(val) {
					v.Tag = "!!null"
				}
			}
		}
		if !ok || !endOfLine(rest) {
			return nil, false
		}
		if len(m.Content) == 0 {
			m.Line, m.Column = line, 1
		}
		m.Content = append(m.Content, key, v)
	}
	a.ptrs = m.Content
	if len(m.Content) == 0 {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: m.Line, Column: 1, Content: []*yaml.Node{m}}, true
}

// isKeyByte: keys are ASCII words starting with a letter.
func isKeyByte(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		return true
	case first:
		return false
	}
	return '0' <= c && c <= '9' || c == '_' || c == '-'
}

// isNullWord reports the plain scalars yaml.v3 resolves to null.
func isNullWord(s string) bool {
	return s == "~" || s == "null" || s == "Null" || s == "NULL"
}

// endOfLine accepts what may follow a value: blanks, then nothing or a
// comment after at least one blank.
func endOfLine(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	if t == "" {
		return true
	}
	return t[0] == '#' && len(t) < len(rest) && strings.IndexByte(t, '\t') < 0 && printable(t)
}

// plainBlock reads a plain scalar that fills the rest of a block line,
// up to a comment; it returns the value without trailing blanks.
func plainBlock(s string) (string, bool) {
	if !plainStart(s) {
		return "", false
	}
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '#':
			if s[i-1] != ' ' {
				return "", false
			}
			end = i
			i = len(s)
		case c == ':' || c == '\t' || c < 0x20 || c == 0x7f:
			return "", false
		}
	}
	v := strings.TrimRight(s[:end], " ")
	if !printable(v) || !printable(s[end:]) {
		return "", false
	}
	return v, true
}

// plainStart: a plain scalar here starts with an ASCII letter or digit or
// a printable non-ASCII character.
func plainStart(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if c >= utf8.RuneSelf {
		r, _ := utf8.DecodeRuneInString(s)
		return printableRune(r)
	}
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// quoted reads a quoted scalar without escapes at the start of s and
// returns it and what follows it.
func quoted(s string, line, col int) (yaml.Node, string, bool) {
	q := s[0]
	end := strings.IndexByte(s[1:], q)
	if end < 0 {
		return yaml.Node{}, "", false
	}
	val := s[1 : 1+end]
	rest := s[2+end:]
	if strings.IndexByte(val, '\\') >= 0 || strings.IndexByte(val, '\t') >= 0 || !printable(val) ||
		(q == '\'' && strings.HasPrefix(rest, "'")) {
		return yaml.Node{}, "", false
	}
	style := yaml.DoubleQuotedStyle
	if q == '\'' {
		style = yaml.SingleQuotedStyle
	}
	return yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: val, Line: line, Column: col}, rest, true
}

// flowSequence reads a one-line [a, "b", c] at the start of s and
// returns it and what follows it.
func flowSequence(s string, line, col int, alloc func(yaml.Node) *yaml.Node) (*yaml.Node, string, bool) {
	seq := alloc(yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: line, Column: col})
	i := 1
	col++
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
			col++
		}
	}
	skip()
	if i < len(s) && s[i] == ']' {
		return seq, s[i+1:], true
	}
	for {
		if i >= len(s) {
			return nil, "", false
		}
		switch s[i] {
		case '"', '\'':
			n, rest, ok := quoted(s[i:], line, col)
			if !ok {
				return nil, "", false
			}
			seq.Content = append(seq.Content, alloc(n))
			w := len(s) - i - len(rest)
			col += utf8.RuneCountInString(s[i : i+w])
			i += w
		default:
			if !plainStart(s[i:]) {
				return nil, "", false
			}
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				switch c := s[j]; {
				case c == ':' || c == '#' || c == '[' || c == '{' || c == '}' || c == '"' || c == '\'' ||
					c == '\t' || c < 0x20 || c == 0x7f:
					return nil, "", false
				}
				j++
			}
			val := strings.TrimRight(s[i:j], " ")
			if !printable(val) {
				return nil, "", false
			}
			n := alloc(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val, Line: line, Column: col})
			if isNullWord(val) {
				n.Tag = "!!null"
			}
			seq.Content = append(seq.Content, n)
			col += utf8.RuneCountInString(s[i:j])
			i = j
		}
		skip()
		if i >= len(s) {
			return nil, "", false
		}
		switch s[i] {
		case ']':
			return seq, s[i+1:], true
		case ',':
			i++
			col++
			skip()
			if i < len(s) && (s[i] == ']' || s[i] == ',') {
				return nil, "", false // an empty item: leave it to yaml.v3
			}
		default:
			return nil, "", false
		}
	}
}

// printable reports whether every character of s is one YAML reads as a
// printable character with no special meaning in the middle of a line.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				if r < utf8.RuneSelf {
					if r < 0x20 && r != '\t' || r == 0x7f {
						return false
					}
					continue
				}
				if !printableRune(r) {
					return false
				}
			}
			return true
		} else if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// printableRune: YAML's printable non-ASCII characters, without the byte
// order mark and the characters YAML takes for line breaks.
func printableRune(r rune) bool {
	switch {
	case r == 0xFEFF, r == 0x2028, r == 0x2029:
		return false
	case 0xA0 <= r && r <= 0xD7FF, 0xE000 <= r && r <= 0xFFFD, 0x10000 <= r && r <= 0x10FFFF:
		return true
	}
	return false
}
