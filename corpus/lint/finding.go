package lint

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Severity says how much a finding matters. Errors fail `ka2 lint`;
// warnings fail it only in strict mode; info never fails it.
type Severity int

// The severities, from least to most severe. SeverityOff appears only in
// configuration, where it turns a rule off; no finding has it.
const (
	SeverityOff Severity = iota - 1
	_
	SeverityInfo
	SeverityWarning
	SeverityError
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
	return nil, fmt.Errorf("lint: no such severity %d", int(s))
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

// ParseSeverity reads a severity name: "error", "warning", "info", or "off"
// (which turns a rule off).
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

// Location is a position in a file of the corpus. Line and Col are 1-based;
// Col counts Unicode code points; 0 means unknown.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// Finding is one problem in one place.
type Finding struct {
	Rule     string   `json:"rule"`     // the rule's stable ID, e.g. "overlap"
	Severity Severity `json:"severity"` // after configuration
	Path     string   `json:"path"`     // slash-separated, relative to the corpus root
	Line     int      `json:"line"`     // 1-based file line; 0 when the problem is the whole file
	Col      int      `json:"col"`      // 1-based column in code points; 0 when unknown
	Message  string   `json:"message"`  // what is wrong
	Hint     string   `json:"hint,omitempty"`
	// Related points at the other files a finding is about, such as the
	// other source of an overlap.
	Related []Location `json:"related,omitempty"`
}

// String formats f as the text format does:
// "path:line:col: severity: message; hint [rule]".
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Path)
	if f.Line > 0 {
		fmt.Fprintf(&b, ":%d", f.Line)
		if f.Col > 0 {
			fmt.Fprintf(&b, ":%d", f.Col)
		}
	}
	fmt.Fprintf(&b, ": %s: %s", f.Severity, f.text())
	fmt.Fprintf(&b, " [%s]", f.Rule)
	return b.String()
}

// text is the message followed by the hint.
func (f Finding) text() string {
	if f.Hint == "" {
		return f.Message
	}
	return f.Message + "; " + f.Hint
}

func compareFindings(a, b Finding) int {
	return cmp.Or(
		strings.Compare(a.Path, b.Path),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col),
		strings.Compare(a.Rule, b.Rule),
		strings.Compare(a.Message, b.Message),
		strings.Compare(a.Hint, b.Hint),
	)
}

// Report is the result of a lint run.
type Report struct {
	// Findings sorted by path, line, column, rule and message.
	Findings []Finding
	// Files is the number of policy files the report covers: every *.md
	// file, or only the changed ones with Options.ChangedOnly.
	Files int
}

// Count returns the number of findings of severity s.
func (r Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// HasErrors reports whether the report should fail a check: it has an
// error, or, when strict, a warning. Info findings never fail.
func (r Report) HasErrors(strict bool) bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityError || strict && f.Severity == SeverityWarning {
			return true
		}
	}
	return false
}

// Summary is a one-line count such as "2 errors, 1 warning, 0 info in 7
// files", for a person reading the text output.
func (r Report) Summary() string {
	return fmt.Sprintf("%s, %s, %d info in %s",
		plural(r.Count(SeverityError), "error"), plural(r.Count(SeverityWarning), "warning"),
		r.Count(SeverityInfo), plural(r.Files, "file"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Rebase returns a copy of r whose paths are prefixed with dir, a
// slash-separated path such as the corpus directory relative to the
// repository root, so that editors and code-scanning tools find the files.
// An empty dir or "." leaves the paths as they are.
func (r Report) Rebase(dir string) Report {
	if dir == "" || dir == "." {
		return r
	}
	out := Report{Files: r.Files, Findings: make([]Finding, len(r.Findings))}
	for i, f := range r.Findings {
		f.Path = path.Join(dir, f.Path)
		if f.Related != nil {
			rel := slices.Clone(f.Related)
			for j := range rel {
				rel[j].Path = path.Join(dir, rel[j].Path)
			}
			f.Related = rel
		}
		out.Findings[i] = f
	}
	return out
}

// Merge combines reports of several corpora, whose paths were already
// rebased onto their folders, into one sorted report.
func Merge(reports ...Report) Report {
	var out Report
	for _, r := range reports {
		out.Findings = append(out.Findings, r.Findings...)
		out.Files += r.Files
	}
	slices.SortFunc(out.Findings, compareFindings)
	return out
}
