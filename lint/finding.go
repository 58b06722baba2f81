package lint

import (
	"strconv"

	"encoding/json"
	"github.com/ka2/ka2/internal/plural"
	"path"
	"slices"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// Location is a position in a file of the corpus. Line and Col are 1-based;
// Col counts Unicode code points; 0 means unknown.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// Finding is one problem in one place: a diagnostic whose Code is the ID
// of the rule that found it, with the other places it is about.
type Finding struct {
	diag.Diagnostic
	// Related points at the other files a finding is about, such as the
	// other source of an overlap.
	Related []Location
	// Fixes are edits that resolve the finding, for an editor's code
	// actions; most findings have none. They are not part of the JSON
	// report.
	Fixes []Fix
}

// Fix is an edit that resolves a finding: set a front matter key, or
// replace a word at a position.
type Fix struct {
	Title string // what the edit does, e.g. "set valid_until: 2026-07-01 in a.md"
	Path  string // the file to edit, slash-separated, relative to the corpus root
	// Key and Value set a front matter key: its value is replaced, or the
	// key is added before the closing '---'.
	Key, Value string
	// When Key is empty, the text Old at Line and Col (1-based, Col in
	// code points) is replaced with New.
	Line, Col int
	Old, New  string
}

// Rule is the ID of the rule that found f, e.g. "overlap".
func (f Finding) Rule() string { return string(f.Code) }

// findingJSON is a finding's JSON shape: the one shape of a positioned
// problem (diag.Wire; the code is the rule's ID, the path relative to the
// corpus root, the severity after configuration) and the related places.
type findingJSON struct {
	diag.Wire
	Related []Location `json:"related,omitempty"`
	// Rule is where reports of the previous release put the code; it is
	// read (for one release), never written.
	Rule string `json:"rule,omitempty"`
}

// MarshalJSON writes f in the JSON report's shape.
func (f Finding) MarshalJSON() ([]byte, error) {
	return jsontext.Marshal(findingJSON{Wire: f.Diagnostic.Wire(nil), Related: f.Related})
}

// UnmarshalJSON reads a finding written by MarshalJSON, or by the previous
// release (its "rule" key for the code, and its kebab-case rule IDs, read
// as today's).
func (f *Finding) UnmarshalJSON(b []byte) error {
	var j findingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Code == "" {
		j.Code = diag.Code(j.Rule)
	}
	if r, ok := ruleByOldID(string(j.Code)); ok {
		j.Code = diag.Code(r.ID) // the previous release's kebab-case ID
	}
	*f = Finding{Diagnostic: j.Wire.Diagnostic(), Related: j.Related}
	return nil
}

// String formats f as the text format does:
// "path:line:col: severity: message; hint [rule]".
func (f Finding) String() string {
	return f.Pos.String() + ": " + f.Severity.String() + ": " + f.text() + " [" + f.Rule() + "]"
}

// text is the message followed by the hint.
func (f Finding) text() string {
	return diag.Format(diag.Pos{}, f.Message, f.Hint.String())
}

func compareFindings(a, b Finding) int { return a.Compare(&b.Diagnostic) }

// Report is the result of a lint run.
type Report struct {
	// Findings sorted by path, line, column, rule and message.
	Findings []Finding
	// Files is the number of policy files the report covers: every *.md
	// file, or only the changed ones with Options.ChangedOnly.
	Files int
	// Sources is the number of distinct source IDs among those files
	// that parsed (translations of one source count once).
	Sources int
	// Subjects are the subjects of the sources that parsed, sorted, for
	// checking the subjects that case files name (CheckSubjects).
	Subjects []string
}

// Count returns the number of findings of severity s.
func (r Report) Count(s diag.Severity) int {
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
		if f.Severity == diag.SeverityError || strict && f.Severity == diag.SeverityWarning {
			return true
		}
	}
	return false
}

// Summary is a one-line count such as "2 errors, 1 warning, 0 info in 7
// files", for a person reading the text output.
func (r Report) Summary() string {
	return r.Counts() + " in " + plural.Count(r.Files, "file", "files")
}

// Counts words the number of findings of each severity: "1 error, 2
// warnings, 0 info".
func (r Report) Counts() string {
	return plural.Count(r.Count(diag.SeverityError), "error", "errors") + ", " +
		plural.Count(r.Count(diag.SeverityWarning), "warning", "warnings") + ", " +
		strconv.Itoa(r.Count(diag.SeverityInfo)) + " info"
}

// Rebase returns a copy of r whose paths are prefixed with dir, a
// slash-separated path such as the corpus directory relative to the
// repository root, so that editors and code-scanning tools find the files.
// An empty dir or "." leaves the paths as they are.
func (r Report) Rebase(dir string) Report {
	if dir == "" || dir == "." {
		return r
	}
	out := Report{Files: r.Files, Sources: r.Sources, Subjects: r.Subjects, Findings: make([]Finding, len(r.Findings))}
	for i, f := range r.Findings {
		f.Path = path.Join(dir, f.Path)
		if f.Related != nil {
			rel := slices.Clone(f.Related)
			for j := range rel {
				rel[j].Path = path.Join(dir, rel[j].Path)
			}
			f.Related = rel
		}
		if f.Fixes != nil {
			fixes := slices.Clone(f.Fixes)
			for j := range fixes {
				fixes[j].Path = path.Join(dir, fixes[j].Path)
			}
			f.Fixes = fixes
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
		out.Sources += r.Sources
		out.Subjects = append(out.Subjects, r.Subjects...)
	}
	slices.Sort(out.Subjects)
	out.Subjects = slices.Compact(out.Subjects)
	slices.SortFunc(out.Findings, compareFindings)
	return out
}
