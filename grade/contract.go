package grade

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// ErrBadContract is matched (errors.Is) by every error ParseContract
// returns for a document that is not a contract it can grade against.
var ErrBadContract = errors.New("bad contract")

// ParseContract reads a serialized contract and checks what grading
// relies on: a template, evidence records whose lines, quotes and dates
// agree, and scope dates. name is the input's name in errors, which carry
// its line and column where there is one. A trailing newline (as ka2
// build prints) is fine.
func ParseContract(name string, data []byte) (*contract.Document, error) {
	bad := func(off int, format string, args ...any) error {
		d := &diag.Diagnostic{Pos: diag.Pos{Path: name}, Message: "contract: " + fmt.Sprintf(format, args...), Err: ErrBadContract}
		if off >= 0 {
			d.Line, d.Col = position(data, off)
		}
		return d
	}
	if e := jsontext.Exact(data); e != nil {
		what := "invalid text: "
		if e.Repeated {
			what = e.Describe() + ": "
		}
		return nil, &diag.Diagnostic{Pos: diag.Pos{Path: name, Line: e.Line, Col: e.Col}, Message: "contract: " + what + e.Msg, Hint: diag.Fix(e.Hint), Err: ErrBadContract}
	}
	var c contract.Document
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&c); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, bad(len(data), "not JSON: the document ends early")
		case errors.As(err, &se):
			return nil, bad(int(se.Offset)-1, "not JSON: %v", se)
		case errors.As(err, &te):
			return nil, bad(int(te.Offset)-1, "field %s holds %s, want %s", te.Field, te.Value, te.Type)
		}
		return nil, bad(-1, "not JSON: %v", err)
	}
	if dec.More() {
		return nil, bad(int(dec.InputOffset()), "more than one JSON value")
	}
	if c.Template == "" {
		return nil, bad(-1, "no template: this is not a ka2 contract")
	}
	for i, r := range c.Evidence {
		where := fmt.Sprintf("evidence[%d] (%s)", i, r.SourceID)
		if r.SourceID == "" {
			return nil, bad(-1, "evidence[%d]: no source_id", i)
		}
		if r.LineStart < 1 || r.LineEnd < r.LineStart {
			return nil, bad(-1, "%s: lines %d-%d are not a range of body lines", where, r.LineStart, r.LineEnd)
		}
		if n := strings.Count(r.Quote, "\n") + 1; n != r.LineEnd-r.LineStart+1 {
			return nil, bad(-1, "%s: the quote has %d line(s) but lines %d-%d are %d", where, n, r.LineStart, r.LineEnd, r.LineEnd-r.LineStart+1)
		}
		for _, d := range []string{r.ValidFrom, r.ValidUntil} {
			if d == "" {
				continue
			}
			if _, err := corpus.ParseDate(d); err != nil {
				return nil, bad(-1, "%s: %v", where, err)
			}
		}
	}
	if c.Scope != nil {
		for _, d := range c.Scope.Dates {
			if _, err := corpus.ParseDate(d); err != nil {
				return nil, bad(-1, "scope: %v", err)
			}
		}
	}
	return &c, nil
}

// position turns a byte offset into a 1-based line and column (in code
// points).
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, utf8.RuneCount(before) + 1
}
