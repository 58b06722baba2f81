package golden

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// The line form of a contract golden. ka2 build prints each text of a
// contract (an evidence record's quote, above all: the policy's body lines)
// as one JSON string, so a one-word edit of a 42-line policy would change
// one very long line of a golden in a pull request. A golden stores each
// text that spans lines as the JSON array of its lines instead, split after
// each \n escape, and reading joins the array back with \n: a policy edit
// changes the lines of the golden it touched, and the bytes the golden
// pins stay exactly the contract's.
//
// The form is applied only where the contract definition declares text
// (textPaths); the output schema says each of those is a string, so an
// array there can only be a text's lines. The split and the join work on
// the raw bytes of the JSON string token, never on its decoded value:
// every escape stays as ka2 build wrote it, and joining gives the token
// back byte for byte (an empty string, a final newline, \r\n or a lone \r
// included). A text without a line break stays a string, so a golden of
// one-line texts is what older ka2 wrote, and a golden older ka2 wrote (a
// string at every text, indented or compact) is read as it always was.

// textPaths is where a contract holds text: a node is a text itself, an
// object whose keys lead on, or an array whose items do.
type textPaths struct {
	text  bool
	keys  map[string]*textPaths
	items *textPaths
}

var (
	textLeaf = &textPaths{text: true}
	// itemsWith is a list field whose objects hold their text at key.
	itemsWith = func(key string) *textPaths {
		return &textPaths{items: &textPaths{keys: map[string]*textPaths{key: textLeaf}}}
	}
	// defaultPaths are the default definition's, for an Outcome built
	// without a builder.
	defaultPaths = sync.OnceValue(func() *textPaths { return pathsOf(contract.Default().Fields) })
)

// textPathsOf returns where contracts of def hold text that may span
// lines, by the context type of each of its fields (a definition names its
// fields; assemble writes what is inside them): the instruction, the
// example's question and answer, the text of each memory and tool output
// item, each evidence record's quote, and the question. The template id,
// the scope and the evidence records' addresses, dates, unit, role and
// serves hold no line breaks and are left as they are. A nil def is the
// default definition.
func textPathsOf(def *contract.Definition) *textPaths {
	if def == nil {
		return defaultPaths()
	}
	return pathsOf(def.Fields)
}

func pathsOf(fields []contract.Field) *textPaths {
	top := &textPaths{keys: map[string]*textPaths{}}
	for _, f := range fields {
		switch provenance.Kind(f.ContextType) {
		case provenance.KindInstruction, provenance.KindQuestion:
			top.keys[f.Name] = textLeaf
		case provenance.KindExample:
			top.keys[f.Name] = &textPaths{keys: map[string]*textPaths{"question": textLeaf, "answer": textLeaf}}
		case provenance.KindEvidence:
			top.keys[f.Name] = itemsWith("quote")
		case provenance.KindMemory, provenance.KindToolOutput:
			top.keys[f.Name] = itemsWith("text")
		}
	}
	return top
}

// store returns the bytes a golden file holds for a contract, b as ka2
// build prints it (compact JSON and a newline): each text that spans
// lines split into the array of its lines, then indented by two spaces,
// one field or array element per line (json.Indent moves tokens, never
// re-encodes them: no key order, escape or number changes), and a newline.
// Bytes that are not JSON are returned as they are.
func (p *textPaths) store(b []byte) []byte {
	c := bytes.TrimSuffix(b, []byte("\n"))
	if !json.Valid(c) {
		return b
	}
	var out bytes.Buffer
	// The split form is valid JSON (each piece of a string token is one),
	// so Indent cannot fail.
	_ = json.Indent(&out, p.rewrite(c, true), "", "  ")
	out.WriteByte('\n')
	return out.Bytes()
}

// join returns golden with each array of strings at a text path joined
// back into one string token (its pieces' raw bytes with \n between them),
// every other byte as it is: the golden as older ka2 stored it, which
// Matches compacts to the contract and Summarize, Diff and RecordChanges
// read. A golden that is not JSON, or holds no such array (an older
// golden, an error golden), is returned as it is. An empty array, or one
// with a non-string in it, is no text's lines and stays, so that golden
// then differs from the build.
func (p *textPaths) join(golden []byte) []byte {
	if !json.Valid(golden) {
		return golden
	}
	return p.rewrite(golden, false)
}

// rewrite copies the JSON value b (valid JSON), splitting (split) or
// joining (!split) the texts at p's paths.
func (p *textPaths) rewrite(b []byte, split bool) []byte {
	w := lineWriter{in: b, split: split, out: make([]byte, 0, len(b)+len(b)/16)}
	w.value(p)
	w.out = append(w.out, w.in[w.i:]...) // white space after the value
	return w.out
}

// lineWriter walks one valid JSON value, copying it to out.
type lineWriter struct {
	in    []byte
	i     int
	out   []byte
	split bool
}

// space copies the white space at w.i.
func (w *lineWriter) space() {
	for w.i < len(w.in) && isSpace(w.in[w.i]) {
		w.out = append(w.out, w.in[w.i])
		w.i++
	}
}

// isSpace reports whether c is JSON's white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// value copies the value at w.i; p is where it sits (nil: no text below).
func (w *lineWriter) value(p *textPaths) {
	w.space()
	switch w.in[w.i] {
	case '{':
		w.out = append(w.out, '{')
		w.i++
		for {
			w.space()
			if w.in[w.i] == '}' {
				break
			}
			if w.in[w.i] == ',' {
				w.out = append(w.out, ',')
				w.i++
				w.space()
			}
			key := w.stringToken()
			w.out = append(w.out, key...)
			w.space()
			w.out = append(w.out, ':') // valid JSON: the colon is next
			w.i++
			var next *textPaths
			if p != nil {
				// The key's raw bytes, not its decoded value: ka2 writes
				// keys without escapes, and both directions see the same
				// bytes, so a key spelled with an escape is simply no path.
				next = p.keys[string(key[1:len(key)-1])]
			}
			w.value(next)
			w.space()
		}
		w.out = append(w.out, '}')
		w.i++
	case '[':
		if p != nil && p.text && !w.split && w.joinLines() {
			return
		}
		var items *textPaths
		if p != nil {
			items = p.items
		}
		w.out = append(w.out, '[')
		w.i++
		for {
			w.space()
			if w.in[w.i] == ']' {
				break
			}
			if w.in[w.i] == ',' {
				w.out = append(w.out, ',')
				w.i++
			}
			w.value(items)
			w.space()
		}
		w.out = append(w.out, ']')
		w.i++
	case '"':
		tok := w.stringToken()
		if p != nil && p.text && w.split {
			w.out = appendLines(w.out, tok)
			return
		}
		w.out = append(w.out, tok...)
	default: // a number, true, false or null
		start := w.i
		for w.i < len(w.in) && !isSpace(w.in[w.i]) && w.in[w.i] != ',' && w.in[w.i] != ']' && w.in[w.i] != '}' {
			w.i++
		}
		w.out = append(w.out, w.in[start:w.i]...)
	}
}

// stringToken returns the string token at w.i, quotes included, and moves
// past it.
func (w *lineWriter) stringToken() []byte {
	start := w.i
	w.i++
	for w.in[w.i] != '"' {
		if w.in[w.i] == '\\' {
			w.i++ // the escaped byte; \uXXXX's digits hold no quote or backslash
		}
		w.i++
	}
	w.i++
	return w.in[start:w.i]
}

// appendLines appends the string token tok as the JSON array of its
// lines when it holds a \n escape: each piece between two \n escapes, as
// written, in quotes. A token without one is appended as it is.
func appendLines(out, tok []byte) []byte {
	body := tok[1 : len(tok)-1]
	var cuts []int // the offsets in body of each \n escape
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' {
			if body[i+1] == 'n' {
				cuts = append(cuts, i)
			}
			i++
		}
	}
	if len(cuts) == 0 {
		return append(out, tok...)
	}
	out = append(out, '[')
	from := 0
	for _, c := range append(cuts, len(body)) {
		if from > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, body[from:c]...)
		out = append(out, '"')
		from = c + 2
	}
	return append(out, ']')
}

// joinLines replaces the array at w.i with the one string token its
// elements make, joined by \n escapes, when it is an array of one or more
// strings; otherwise it leaves w as it was and returns false.
func (w *lineWriter) joinLines() bool {
	start, i := w.i, w.i+1
	var pieces [][]byte
	for {
		for isSpace(w.in[i]) {
			i++
		}
		switch w.in[i] {
		case ']':
			if len(pieces) == 0 {
				return false
			}
			w.out = append(w.out, '"')
			for k, piece := range pieces {
				if k > 0 {
					w.out = append(w.out, `\n`...)
				}
				w.out = append(w.out, piece...)
			}
			w.out = append(w.out, '"')
			w.i = i + 1
			return true
		case ',':
			i++
		case '"':
			w.i = i
			tok := w.stringToken()
			pieces = append(pieces, tok[1:len(tok)-1])
			i = w.i
		default:
			w.i = start
			return false
		}
	}
}

// ReadGolden reads the case's golden file through readGolden: its bytes,
// and the output they pin (see Pins).
func (c *Case) ReadGolden() (stored, pinned []byte, err error) { return c.readGolden(c.golden, nil) }

// readGolden reads t (the case's golden or its pending golden; through a
// run's folders when not nil) with readStored and returns the file's
// bytes and the output they pin, each line array joined back (join),
// which is what Summarize, Diff and RecordChanges are given.
func (c *Case) readGolden(t inTree, folders *goldenFolders) (stored, pinned []byte, err error) {
	if stored, err = readStored(t, folders); err != nil {
		return nil, nil, err
	}
	return stored, c.textPaths().join(stored), nil
}

// readStored is the one reader of a golden file: every golden of every
// format ka2 has written is read through it. A run calls it directly, and
// joins the bytes (Pins) only when they are not in the stored form
// (Outcome.inStoredForm).
func readStored(t inTree, folders *goldenFolders) ([]byte, error) {
	if stored, ok := folders.read(t); ok {
		return stored, nil
	}
	return t.read()
}

// Pins returns what the bytes of a golden file pin, for a case whose
// contract definition is def (nil: the default one): the golden with each
// text's array of lines joined back into its one JSON string, every other
// byte as it is. For a golden in the stored form, an older one (each text
// one string, indented or compact) and an error golden alike, the result
// compacted is byte for byte what ka2 build printed (an error golden is
// returned unchanged). Anything that reads a golden's content reads it
// through Pins, except a run's check that a golden is exactly in the
// stored form (Outcome.inStoredForm), which says nothing of other bytes.
func Pins(golden []byte, def *contract.Definition) []byte {
	return textPathsOf(def).join(golden)
}

// isErrorReport reports whether b is an error report (`ka2 build
// --error-format json`: an object with the one key error), which a golden
// holds byte for byte, never in the line form.
func isErrorReport(b []byte) bool {
	var top map[string]json.RawMessage
	return json.Unmarshal(b, &top) == nil && len(top) == 1 && top["error"] != nil
}

// isStored reports whether golden is byte for byte what store(b) returns
// for b, a contract as ka2 build prints it, in one pass that builds no
// copy of either: the walk writes the stored form of b as store does
// (each text that spans lines split into its lines, indented as
// json.Indent indents it, and a newline) and compares each byte with
// golden as it goes. A golden in the stored form, the one --update writes,
// then matches without Pins and json.Compact. False says only that golden
// is not in that form: an older or hand-written one may still pin b, and
// the caller asks Pins then, so the answer is the same either way. The
// walk only adds white space between tokens and splits texts at their \n
// escapes, which Pins joins back and Compact removes; and it accepts only
// valid JSON in b (as json.Valid does: the grammar, escapes and no control
// characters in strings; UTF-8 is not checked), so the golden is JSON too.
//
// The figure: ka2perf regress -n 20000, against Pins and Compact for every
// golden: see the comment at runCase's use.
func (p *textPaths) isStored(b, golden []byte) bool {
	c, ok := bytes.CutSuffix(b, []byte("\n"))
	if !ok || len(c) == 0 {
		return false
	}
	w := storedMatcher{in: c, golden: golden}
	return w.value(p, 0) && w.i == len(c) && w.lit("\n") && w.j == len(golden)
}

// maxDepth is how deep the walk nests before it leaves the golden to
// Pins: encoding/json's own limit, which no contract comes near.
const maxDepth = 10000

// storedMatcher walks a compact JSON value (in) and checks that golden
// holds its stored form from j on.
type storedMatcher struct {
	in, golden []byte
	i, j       int
}

// lit checks that golden holds s at j, and moves past it.
func (w *storedMatcher) lit(s string) bool {
	if len(w.golden)-w.j < len(s) || string(w.golden[w.j:w.j+len(s)]) != s {
		return false
	}
	w.j += len(s)
	return true
}

// raw is lit for bytes of in.
func (w *storedMatcher) raw(b []byte) bool {
	if !bytes.HasPrefix(w.golden[w.j:], b) {
		return false
	}
	w.j += len(b)
	return true
}

// newline checks for the line break and the indent of depth levels that
// json.Indent writes before an element or a closing bracket.
func (w *storedMatcher) newline(depth int) bool {
	if !w.lit("\n") {
		return false
	}
	for range depth {
		if !w.lit("  ") {
			return false
		}
	}
	return true
}

// value checks the value at i, at depth, with p where it sits (nil: no
// text below). Compact input has no white space between tokens; anything
// else ends the walk with false.
func (w *storedMatcher) value(p *textPaths, depth int) bool {
	if w.i >= len(w.in) || depth >= maxDepth {
		return false
	}
	switch open := w.in[w.i]; open {
	case '{', '[':
		if open == '[' && p != nil && p.text {
			// An array where the schema says a text: Pins would join it,
			// so this is for Pins to decide (no contract holds one).
			return false
		}
		close := byte('}')
		if open == '[' {
			close = ']'
		}
		w.i++
		if !w.raw([]byte{open}) {
			return false
		}
		if w.i < len(w.in) && w.in[w.i] == close { // empty: json.Indent keeps {} and []
			w.i++
			return w.raw([]byte{close})
		}
		for {
			if !w.newline(depth + 1) {
				return false
			}
			var next *textPaths
			if open == '{' {
				key, ok := w.stringToken()
				if !ok || !w.raw(key) || w.i >= len(w.in) || w.in[w.i] != ':' || !w.lit(": ") {
					return false
				}
				w.i++
				if p != nil {
					next = p.keys[string(key[1:len(key)-1])]
				}
			} else if p != nil {
				next = p.items
			}
			if !w.value(next, depth+1) || w.i >= len(w.in) {
				return false
			}
			switch w.in[w.i] {
			case ',':
				w.i++
				if !w.lit(",") {
					return false
				}
			case close:
				w.i++
				return w.newline(depth) && w.raw([]byte{close})
			default:
				return false
			}
		}
	case '"':
		tok, ok := w.stringToken()
		if !ok {
			return false
		}
		if p == nil || !p.text {
			return w.raw(tok)
		}
		return w.lines(tok, depth)
	default: // a number, true, false or null
		start := w.i
		for w.i < len(w.in) && !isSpace(w.in[w.i]) && w.in[w.i] != ',' && w.in[w.i] != ']' && w.in[w.i] != '}' {
			w.i++
		}
		return isScalar(w.in[start:w.i]) && w.raw(w.in[start:w.i])
	}
}

// lines checks a text's string token as store writes it: the token itself
// when it holds no \n escape, else the array of its lines (appendLines),
// indented.
func (w *storedMatcher) lines(tok []byte, depth int) bool {
	body := tok[1 : len(tok)-1]
	from, split := 0, false
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if body[i+1] == 'n' {
			if !split && !w.lit("[") {
				return false
			}
			if split && !w.lit(",") {
				return false
			}
			split = true
			if !w.newline(depth+1) || !w.lit(`"`) || !w.raw(body[from:i]) || !w.lit(`"`) {
				return false
			}
			from = i + 2
		}
		i++
	}
	if !split {
		return w.raw(tok)
	}
	return w.lit(",") && w.newline(depth+1) && w.lit(`"`) && w.raw(body[from:]) && w.lit(`"`) &&
		w.newline(depth) && w.lit("]")
}

// stringToken returns the string token at i, quotes included, and moves
// past it; false when in ends first or there is no string at i.
func (w *storedMatcher) stringToken() ([]byte, bool) {
	start := w.i
	if w.i >= len(w.in) || w.in[w.i] != '"' {
		return nil, false
	}
	for w.i++; w.i < len(w.in); w.i++ {
		switch c := w.in[w.i]; {
		case c == '"':
			w.i++
			return w.in[start:w.i], true
		case c < 0x20: // JSON has no raw control characters in a string
			return nil, false
		case c == '\\':
			w.i++
			if w.i >= len(w.in) {
				return nil, false
			}
			switch w.in[w.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(w.in)-w.i <= 4 || !isHex(w.in[w.i+1]) || !isHex(w.in[w.i+2]) || !isHex(w.in[w.i+3]) || !isHex(w.in[w.i+4]) {
					return nil, false
				}
				w.i += 4
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isScalar reports whether b is a JSON number, true, false or null.
func isScalar(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		from := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		return i > from
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}
