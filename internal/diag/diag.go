// Package diag is the one shape every ka2 problem report shares: where it
// is, what is wrong, and how to fix it. Every parser, the linter, the
// contract check and the pipeline check report *Diagnostic values; each
// front end words their hints for its own user.
package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Pos is a place in a file. Line and Col are 1-based (Col counts code
// points); 0 means unknown. Path is slash-separated.
type Pos struct {
	Path string
	Line int
	Col  int
}

// String formats p as "path:line:col", leaving out what is unknown.
func (p Pos) String() string {
	var b strings.Builder
	b.WriteString(p.Path)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
		if p.Col > 0 {
			b.WriteString(":" + strconv.Itoa(p.Col))
		}
	}
	return b.String()
}

// Compare orders positions by path, line and column.
func (p Pos) Compare(q Pos) int {
	return cmp.Or(strings.Compare(p.Path, q.Path), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
}

// Code is the stable machine name of a kind of problem. Tools branch on
// codes, never on messages.
type Code string

// Severity says how much a problem matters. A parser's problems are
// errors; the linter also reports warnings and info.
type Severity int

// The severities, from least to most severe. SeverityOff appears only in
// configuration, where it turns a check off; no diagnostic has it. The
// zero Severity is SeverityError, so a diagnostic built without one is an
// error.
const (
	SeverityOff     Severity = -3
	SeverityInfo    Severity = -2
	SeverityWarning Severity = -1
	SeverityError   Severity = 0
)

// String returns "error", "warning", "info" or "off".
func (s Severity) String() string {
	switch s {
	case SeverityOff:
		return "off"
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) {
	switch s {
	case SeverityOff, SeverityInfo, SeverityWarning, SeverityError:
		return []byte(s.String()), nil
	}
	return nil, fmt.Errorf("no such severity %d", int(s))
}

// UnmarshalText reads "error", "warning", "info" or "off".
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity reads a severity name: "error", "warning", "info", or "off".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "off":
		return SeverityOff, nil
	case "info":
		return SeverityInfo, nil
	case "warning":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return 0, fmt.Errorf("severity %q is not one of error, warning, info, off", s)
}

// Diagnostic is one problem in one place. It is an error, so a parser can
// return one (or a List) and callers find it with errors.As.
type Diagnostic struct {
	Pos
	Code     Code
	Severity Severity
	Message  string // what is wrong, lowercase, no position
	Hint     Hint   // how to fix it; may be zero
	// Err is a sentinel or cause the diagnostic wraps, for errors.Is; nil
	// for most.
	Err error
}

// Error formats d as "path:line:col: message; hint", leaving out what is
// unknown or empty, with the hint in its front-end-neutral wording.
func (d *Diagnostic) Error() string { return Format(d.Pos, d.Message, d.Hint.String()) }

// Unwrap returns the sentinel or cause d wraps.
func (d *Diagnostic) Unwrap() error { return d.Err }

// Compare orders diagnostics by position, then code, message and hint, so
// every list reads in the same order whatever order the checks ran in.
func (d *Diagnostic) Compare(e *Diagnostic) int {
	return cmp.Or(
		d.Pos.Compare(e.Pos),
		strings.Compare(string(d.Code), string(e.Code)),
		strings.Compare(d.Message, e.Message),
		strings.Compare(d.Hint.Text, e.Hint.Text),
	)
}

// Format writes "pos: msg; hint". An empty position and an empty hint are
// left out.
func Format(p Pos, msg, hint string) string {
	s := p.String()
	if s != "" {
		s += ": "
	}
	s += msg
	if hint != "" {
		s += "; " + hint
	}
	return s
}

// List is every problem found. Its Error prints one per line.
type List []*Diagnostic

// Error joins the problems, one per line.
func (l List) Error() string {
	msgs := make([]string, len(l))
	for i, d := range l {
		msgs[i] = d.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As and errors.Is reach each problem.
func (l List) Unwrap() []error {
	errs := make([]error, len(l))
	for i, d := range l {
		errs[i] = d
	}
	return errs
}

// Sort orders the list deterministically (see Diagnostic.Compare).
func (l List) Sort() {
	slices.SortStableFunc(l, (*Diagnostic).Compare)
}

// Err sorts the list and returns it as an error, or nil when it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Mark sorts the list and returns it as an error that also matches
// sentinel with errors.Is, or nil when the list is empty. errors.As still
// finds the List and each *Diagnostic.
func (l List) Mark(sentinel error) error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return marked{l, sentinel}
}

type marked struct {
	list     List
	sentinel error
}

func (m marked) Error() string   { return m.list.Error() }
func (m marked) Unwrap() []error { return []error{m.list, m.sentinel} }

// As returns every diagnostic in err's tree, in the order found: a lone
// *Diagnostic, each one in a List, and those wrapped further down.
func As(err error) List {
	var out List
	walk(err, func(e error) {
		if d, ok := e.(*Diagnostic); ok {
			out = append(out, d)
		}
	})
	return out
}

// walk calls f on err and every error it wraps, depth first.
func walk(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), f)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, f)
		}
	}
}

// Errors is several problems of one error type (a format's own located
// error), for a parser that reports each problem in a file: Error prints
// one per line, and errors.As and errors.Is reach each one.
type Errors[E error] []E

// Error joins the problems, one per line.
func (l Errors[E]) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns each problem.
func (l Errors[E]) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Wire is the one JSON shape of a positioned problem, whichever command
// or endpoint reports it (lint findings, pipeline diagnostics, verify
// problems, grade findings): the code, the severity, a flat position, the
// message and the hint worded for the front end. Path is what the
// reporter places problems in: a corpus file, a pipeline file, a JSON
// pointer into a contract, the answer; Line and Col are 0 where there is
// no line or column.
type Wire struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
}

// Wire returns d in the wire shape, its hint's settings worded by name
// (nil: SettingWords).
func (d *Diagnostic) Wire(name func(setting string) string) Wire {
	if name == nil {
		name = SettingWords
	}
	return Wire{Code: d.Code, Severity: d.Severity, Path: d.Path, Line: d.Line, Col: d.Col, Message: d.Message, Hint: d.Hint.Phrase(name)}
}

// Diagnostic is w read back.
func (w Wire) Diagnostic() Diagnostic {
	return Diagnostic{Pos: Pos{Path: w.Path, Line: w.Line, Col: w.Col}, Code: w.Code, Severity: w.Severity, Message: w.Message, Hint: Fix(w.Hint)}
}
