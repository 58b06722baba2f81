package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/datetext"
	"github.com/ka2/ka2/internal/diag"
)

var ruleQuestionDate = &Rule{
	ID:       "question_date",
	Severity: diag.SeverityWarning,
	Summary:  "a case's question names a date its scope does not ask",
	Doc: `A case's contract carries the evidence that applies on its dates; the question is
passed to the generator as written. When the question names a date (2026-09-14,
14 September 2026, March 2025, 2026年9月14日) on which none of the case's dates
falls, the generator is asked about one date and given the evidence for
another, and the golden pins that mismatch. Ask the date the question names,
or reword the question. A year alone ("the 2026 rules") is not read as a date.

Bad:

	- name: beijing-2026
	  question: What is the lodging limit on 2026-09-14?
	  date: 2025-09-14

Good:

	- name: beijing-2026
	  question: What is the lodging limit on 2026-09-14?
	  date: 2026-09-14`,
}

// QuestionRef is a question asked outside the corpus, by a case file or a
// request, with the dates its scope asks, at a position in that file.
type QuestionRef struct {
	Path      string // slash-separated, as the caller reports it
	Line, Col int    // 1-based; Col in code points
	Question  string
	Dates     []corpus.Date
}

// CheckQuestionDates reports each date a ref's question names on which
// none of its dates falls, under the rule question_date at the severity
// cfg gives it (nil: the default). The findings are sorted.
func CheckQuestionDates(refs []QuestionRef, cfg *Config) []Finding {
	var out []Finding
	for _, ref := range refs {
		sev := cfg.severity(ruleQuestionDate, ref.Path)
		if sev == diag.SeverityOff {
			continue
		}
		for _, m := range datetext.Find(ref.Question) {
			if slices.ContainsFunc(ref.Dates, m.Contains) {
				continue
			}
			named := m.String()
			if m.Text != named {
				named += fmt.Sprintf(" (%q)", m.Text)
			}
			asked := make([]string, len(ref.Dates))
			for i, d := range ref.Dates {
				asked[i] = d.String()
			}
			out = append(out, Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: ref.Path, Line: ref.Line, Col: ref.Col},
				Code: diag.Code(ruleQuestionDate.ID), Severity: sev,
				Message: fmt.Sprintf("the question names %s, but the case asks %s: its evidence is for those dates", named, strings.Join(asked, ", ")),
				Hint:    diag.Fix("ask the date the question names, or reword the question")}})
		}
	}
	slices.SortFunc(out, compareFindings)
	return out
}
