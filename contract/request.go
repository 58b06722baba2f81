package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/provenance"
)

// RequestFile is a build request written as JSON, as `ka2 build --request`
// reads it. Every key is optional; what a key sets replaces the
// corresponding build flag, and what it leaves out keeps the flag's value.
// Unknown keys are an error.
//
//	{"subject": "lodging", "dates": ["2026-09-14"], "question": "…", "lang": "en",
//	 "items": [{"type": "tool_output", "source": "tool:order_lookup", "text": "…"}],
//	 "promote": [{"item": 0, "to": "evidence"}]}
type RequestFile struct {
	// Subject and Subjects name the question's subject(s); give one of them.
	Subject  string   `json:"subject,omitempty"`
	Subjects []string `json:"subjects,omitempty"`
	// Dates are the asked dates, YYYY-MM-DD.
	Dates    []string `json:"dates,omitempty"`
	Question string   `json:"question,omitempty"`
	Lang     string   `json:"lang,omitempty"`
	// Short and RequireEvidence are the --short and --require-evidence
	// flags; nil leaves the flag as it is.
	Short           *bool `json:"short,omitempty"`
	RequireEvidence *bool `json:"require_evidence,omitempty"`
	// Items are extra typed items (see Request.Items); Promote transforms
	// them by their 0-based index in Items (see Request.Promote).
	Items   []RequestItem `json:"items,omitempty"`
	Promote []Promotion   `json:"promote,omitempty"`
}

// RequestItem is one extra item of a request: its type (instruction,
// memory or tool_output), its source and its exact text.
type RequestItem struct {
	Type   provenance.Kind `json:"type"`
	Source string          `json:"source"`
	Text   string          `json:"text"`
}

// SubjectList returns the subjects the request names, or nil.
func (f *RequestFile) SubjectList() []string {
	if f.Subject != "" {
		return []string{f.Subject}
	}
	return f.Subjects
}

// Candidates returns the request's items as candidate items for
// Request.Items.
func (f *RequestFile) Candidates() []provenance.Item {
	out := make([]provenance.Item, len(f.Items))
	for i, it := range f.Items {
		out[i] = provenance.NewItem(it.Type, it.Source, it.Text, noTime)
	}
	return out
}

// CheckRemote refuses the request if it comes from a remote caller and
// asks for what the policy p (nil: provenance.DefaultPolicy()) does not
// grant remote callers: an item whose type or source the policy's remote
// section does not list, or a promotion to a type it does not list. The
// refusal is the *provenance.Error (errors.Is(err, provenance.ErrRefused)
// and provenance.ErrRemote hold), wrapped with the item's index. A
// request from the operator (`ka2 build --request`) is not checked.
func (f *RequestFile) CheckRemote(p *provenance.Policy) error {
	if p == nil {
		p = provenance.DefaultPolicy()
	}
	for i, it := range f.Items {
		if err := p.CheckRemote(it.Type, it.Source); err != nil {
			return fmt.Errorf("request items[%d] (%s from %s): %w", i, it.Type, it.Source, err)
		}
	}
	for j, pr := range f.Promote {
		if pr.Item < 0 || pr.Item >= len(f.Items) {
			continue // ParseRequestFile refuses it
		}
		it := f.Items[pr.Item]
		if err := p.CheckRemotePromote(it.Type, it.Source, pr.To); err != nil {
			return fmt.Errorf("request promote[%d] (items[%d], %s from %s, to %s): %w", j, pr.Item, it.Type, it.Source, pr.To, err)
		}
	}
	return nil
}

// RequestError is a problem in a request file: where it is, what is wrong
// and how to fix it. errors.Is(err, ErrBadRequest) holds for it.
type RequestError struct {
	Path string
	// Line and Col are 1-based; Col counts code points. 0 means unknown.
	Line, Col int
	// Field is the JSON path of the value concerned, e.g. "items[1].type".
	Field string
	Msg   string
	Hint  string
}

// Error formats the problem as "path:line:col: field: msg; hint".
func (e *RequestError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Is reports ErrBadRequest.
func (e *RequestError) Is(target error) bool { return target == ErrBadRequest }

// requestShape is the keys a request may have; a nil shape is a value of
// any form.
type requestShape struct {
	keys    map[string]*requestShape
	element *requestShape // for an array of objects
}

var requestKeys = func() *requestShape {
	item := &requestShape{keys: map[string]*requestShape{"type": nil, "source": nil, "text": nil}}
	promote := &requestShape{keys: map[string]*requestShape{"item": nil, "to": nil}}
	return &requestShape{keys: map[string]*requestShape{
		"subject": nil, "subjects": nil, "dates": nil, "question": nil, "lang": nil,
		"short": nil, "require_evidence": nil,
		"items":   {element: item},
		"promote": {element: promote},
	}}
}()

// ParseRequestFile reads a JSON request. name is used in error messages.
// The file must hold one JSON object, in valid UTF-8, with no unknown or
// repeated keys; every problem is a *RequestError with its line and column.
func ParseRequestFile(name string, data []byte) (*RequestFile, error) {
	p := &requestParser{name: name, data: data, pos: map[string]int{}}
	if err := CheckText(name, data); err != nil {
		return nil, err
	}
	if err := p.scan(); err != nil {
		return nil, err
	}
	var f RequestFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := p.lastField(int(te.Offset))
			if field == "" {
				field = fieldPath(te.Field)
			}
			return nil, p.at(field, fmt.Sprintf("want %s, not a JSON %s", goType(te.Type.String()), te.Value), "")
		}
		return nil, p.errAt(-1, "", err.Error(), "")
	}
	if err := p.check(&f); err != nil {
		return nil, err
	}
	return &f, nil
}

type requestParser struct {
	name string
	data []byte
	pos  map[string]int // field path → byte offset of its key or element
}

func (p *requestParser) errAt(off int, field, msg, hint string) *RequestError {
	e := &RequestError{Path: p.name, Field: field, Msg: msg, Hint: hint}
	if off >= 0 && off <= len(p.data) {
		before := p.data[:off]
		e.Line = bytes.Count(before, []byte("\n")) + 1
		e.Col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	}
	return e
}

// at is errAt at the recorded position of field.
func (p *requestParser) at(field, msg, hint string) *RequestError {
	off, ok := p.pos[field]
	if !ok {
		off = -1
	}
	return p.errAt(off, field, msg, hint)
}

// lastField is the recorded field that starts last before off: the key
// whose value a decoding error at off is in.
func (p *requestParser) lastField(off int) string {
	best, at := "", -1
	for f, o := range p.pos {
		if o < off && (o > at || o == at && len(f) > len(best)) {
			best, at = f, o
		}
	}
	return best
}

// scan walks the tokens of the request, checking its shape: one object,
// known keys only, no key twice. It records where each key is.
func (p *requestParser) scan() error {
	dec := json.NewDecoder(bytes.NewReader(p.data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return p.syntax(dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return p.errAt(int(dec.InputOffset())-1, "", "the request must be a JSON object {…}", `write {"subject": …, "dates": […], "question": …}`)
	}
	if err := p.object(dec, "", requestKeys); err != nil {
		return err
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		rest := p.data[end:]
		return p.errAt(end+len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")), "", "there is more after the request object", "keep one JSON object in the file")
	}
	return nil
}

func (p *requestParser) syntax(dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.errAt(int(se.Offset), "", "invalid JSON: "+se.Error(), "")
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.errAt(len(p.data), "", "the request ends early", "close every { and [")
	}
	return p.errAt(int(dec.InputOffset()), "", "invalid JSON: "+err.Error(), "")
}

// object reads the keys and values of an object whose '{' was read.
func (p *requestParser) object(dec *json.Decoder, path string, shape *requestShape) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return p.syntax(dec, err)
		}
		key, _ := tok.(string)
		start := keyStart(p.data, int(dec.InputOffset()))
		field := key
		if path != "" {
			field = path + "." + key
		}
		child, known := shape.keys[key]
		if !known {
			return p.errAt(start, path, fmt.Sprintf("unknown key %q", key), "the keys are "+strings.Join(slices.Sorted(maps.Keys(shape.keys)), ", "))
		}
		if seen[key] {
			return p.errAt(start, path, fmt.Sprintf("key %q appears twice", key), "keep one")
		}
		seen[key] = true
		p.pos[field] = start
		if err := p.value(dec, field, child); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return p.syntax(dec, err)
	}
	return nil
}

// value reads one value; with a shape, arrays of objects are walked.
func (p *requestParser) value(dec *json.Decoder, path string, shape *requestShape) error {
	tok, err := dec.Token()
	if err != nil {
		return p.syntax(dec, err)
	}
	d, isDelim := tok.(json.Delim)
	if !isDelim {
		return nil
	}
	if shape != nil && shape.element != nil && d == '[' {
		for i := 0; dec.More(); i++ {
			elem := path + "[" + strconv.Itoa(i) + "]"
			p.pos[elem] = int(dec.InputOffset())
			t, err := dec.Token()
			if err != nil {
				return p.syntax(dec, err)
			}
			if od, ok := t.(json.Delim); ok && od == '{' {
				p.pos[elem] = int(dec.InputOffset()) - 1
				if err := p.object(dec, elem, shape.element); err != nil {
					return err
				}
			} else if ok && od == '[' {
				if err := p.skip(dec, 1); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // ']'
		if err != nil {
			return p.syntax(dec, err)
		}
		return nil
	}
	return p.skip(dec, 1)
}

// skip reads the rest of a value whose opening delimiter was read.
func (p *requestParser) skip(dec *json.Decoder, depth int) error {
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return p.syntax(dec, err)
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// check finds values that are well-formed JSON but not a request.
func (p *requestParser) check(f *RequestFile) error {
	if f.Subject != "" && len(f.Subjects) > 0 {
		return p.at("subjects", `give "subject" or "subjects", not both`, "")
	}
	for i, s := range f.Subjects {
		if strings.TrimSpace(s) == "" {
			return p.at("subjects", fmt.Sprintf("subject %d is empty", i), "")
		}
	}
	for _, d := range f.Dates {
		if _, err := corpus.ParseDate(d); err != nil {
			return p.at("dates", err.Error(), "")
		}
	}
	for i, it := range f.Items {
		field := fmt.Sprintf("items[%d]", i)
		if !slices.Contains(requestKinds, it.Type) {
			return p.at(field, fmt.Sprintf("type %q: a request may add instruction, memory or tool_output items", it.Type),
				"evidence comes from the corpus, or from a tool_output item through promote")
		}
		if err := provenance.CheckSource(it.Source); err != nil {
			return p.at(field, err.Error(), "")
		}
		if strings.TrimSpace(it.Text) == "" {
			return p.at(field, "the text is empty", "")
		}
	}
	for j, pr := range f.Promote {
		field := fmt.Sprintf("promote[%d]", j)
		if pr.Item < 0 || pr.Item >= len(f.Items) {
			return p.at(field, fmt.Sprintf("item %d: the request has %d item(s), numbered from 0", pr.Item, len(f.Items)), "")
		}
		if _, err := provenance.ParseKind(string(pr.To)); err != nil {
			return p.at(field, "to: "+err.Error(), "")
		}
	}
	return nil
}

// keyStart finds the opening quote of the string that ends at end.
func keyStart(data []byte, end int) int {
	for j := end - 2; j >= 0; j-- {
		if data[j] != '"' {
			continue
		}
		n := 0
		for k := j - 1; k >= 0 && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
	}
	return max(0, end-1)
}

// CheckText refuses JSON input whose text encoding/json would silently
// change: bytes that are not UTF-8, and \u escapes of lone UTF-16
// surrogates, which it turns into U+FFFD. The problem is a *RequestError
// (errors.Is(err, ErrBadRequest)) with its line, column and field; name is
// the input's name for the message. Requests and contracts are checked
// with it before they are decoded.
func CheckText(name string, data []byte) error {
	e := jsontext.Check(data)
	if e == nil {
		return nil
	}
	return &RequestError{Path: name, Line: e.Line, Col: e.Col, Field: e.Describe(), Msg: "invalid text: " + e.Msg, Hint: e.Hint}
}

// fieldPath turns encoding/json's "items.0.type" into "items[0].type".
func fieldPath(f string) string {
	parts := strings.Split(f, ".")
	var b strings.Builder
	for i, s := range parts {
		if _, err := strconv.Atoi(s); err == nil && i > 0 {
			b.WriteString("[" + s + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// goType names a Go type as a JSON reader would.
func goType(t string) string {
	switch {
	case t == "string" || t == "provenance.Kind":
		return "a string"
	case t == "bool":
		return "true or false"
	case t == "int":
		return "a whole number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "an object"
}
