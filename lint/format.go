package lint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/textsafe"
)

// Formats lists the output formats Formatter knows, in the order the CLI
// documents them.
func Formats() []string { return []string{"text", "json", "github", "sarif"} }

// Formatter returns the writer for the named format: "text", "json",
// "github" or "sarif".
func Formatter(name string) (func(io.Writer, Report) error, bool) {
	switch name {
	case "text":
		return WriteText, true
	case "json":
		return WriteJSON, true
	case "github":
		return WriteGitHub, true
	case "sarif":
		return WriteSARIF, true
	}
	return nil, false
}

// sorted returns the findings in report order, without modifying r.
func sorted(r Report) []Finding {
	if slices.IsSortedFunc(r.Findings, compareFindings) {
		return r.Findings
	}
	fs := slices.Clone(r.Findings)
	slices.SortFunc(fs, compareFindings)
	return fs
}

// WriteText writes one line per finding,
//
//	path:line:col: severity: message; hint [rule-id]
//
// sorted by path, line and column: the form editors and grep understand.
// An empty report writes nothing; Report.Summary gives a closing line.
func WriteText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range sorted(r) {
		bw.WriteString(oneLine(f.String()))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// oneLine keeps a finding on one line even if a message quotes a line
// break, and escapes every other character that could reach a terminal
// as a control sequence (messages quote body lines).
func oneLine(s string) string {
	return textsafe.Escape(s)
}

// jsonReport is the JSON output: typed, with fixed field order.
type jsonReport struct {
	Files    int       `json:"files"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Infos    int       `json:"infos"`
	Findings []Finding `json:"findings"`
}

// WriteJSON writes the report as one indented JSON object:
//
//	{"files": N, "errors": N, "warnings": N, "infos": N,
//	 "findings": [{"rule", "severity", "path", "line", "col", "message", "hint", "related"}, …]}
//
// Findings are sorted as in WriteText; the output ends with a newline.
func WriteJSON(w io.Writer, r Report) error {
	out := jsonReport{Files: r.Files, Errors: r.Count(diag.SeverityError), Warnings: r.Count(diag.SeverityWarning),
		Infos: r.Count(diag.SeverityInfo), Findings: sorted(r)}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteGitHub writes one GitHub Actions workflow command per finding,
//
//	::error file=PATH,line=L,col=C,title=ka2 lint (RULE)::MESSAGE; HINT
//
// so that findings appear as annotations on the pull request. Errors are
// "error", warnings "warning" and info "notice". Paths must be relative to
// the repository root: see Report.Rebase.
func WriteGitHub(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range sorted(r) {
		level := "notice"
		switch f.Severity {
		case diag.SeverityError:
			level = "error"
		case diag.SeverityWarning:
			level = "warning"
		}
		fmt.Fprintf(bw, "::%s file=%s", level, ghProperty(f.Path))
		if f.Line > 0 {
			fmt.Fprintf(bw, ",line=%d", f.Line)
			if f.Col > 0 {
				fmt.Fprintf(bw, ",col=%d", f.Col)
			}
		}
		fmt.Fprintf(bw, ",title=%s::%s\n", ghProperty("ka2 lint ("+f.Rule()+")"), ghData(textsafe.Escape(f.text())))
	}
	return bw.Flush()
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
