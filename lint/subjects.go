package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/suggest"
)

var ruleUnknownSubject = &Rule{
	ID:       "unknown_subject",
	Severity: diag.SeverityError,
	Summary:  "a case file or request names a subject no source has",
	Doc: `A regression case (or a request) asks about subjects; a subject that no source
of the corpus has selects nothing, and the build fails with an unknown_subject
error — usually a typo, or a source that was renamed. The hint names the
closest subject the corpus has. Case files are checked when the linter is given
them (ka2 lint --cases), against the subjects of the corpora it lints.

Bad, when the corpus has lodging:

	cases:
	  - name: beijing-2026
	    subject: lodgings

Good:

	cases:
	  - name: beijing-2026
	    subject: lodging`,
}

// SubjectRef is a subject named outside the corpus, by a case file or a
// request, at a position in that file.
type SubjectRef struct {
	Path      string // slash-separated, as the caller reports it
	Line, Col int    // 1-based; Col in code points
	Subject   string
}

// CheckSubjects reports each ref whose subject is not in known (sorted),
// with the closest known subject as a did-you-mean, under the rule
// unknown_subject at the severity cfg gives it (nil: the default). The
// findings are sorted.
func CheckSubjects(refs []SubjectRef, known []string, cfg *Config) []Finding {
	var out []Finding
	var hints *corpus.SubjectHints // made for the first unknown subject, once
	for _, ref := range refs {
		if _, ok := slices.BinarySearch(known, ref.Subject); ok {
			continue
		}
		sev := cfg.severity(ruleUnknownSubject, ref.Path)
		if sev == diag.SeverityOff {
			continue
		}
		hint := diag.Fix("name a subject of a source; the corpus has " + listSome(known))
		var fixes []Fix
		// A parent or a last segment of hierarchical subjects names the
		// subjects it stands for; otherwise a typo names the closest.
		if hints == nil {
			hints = corpus.NewSubjectHints(known)
		}
		meant, closest := hints.Meant(ref.Subject)
		if len(meant) == 0 && closest != "" {
			meant = []string{closest}
		}
		if len(meant) > 0 {
			hint = diag.Hint{Kind: diag.HintDidYouMean, Text: "did you mean " + suggest.OneOf(meant, 8) + "?", Suggestion: meant[0]}
			for _, s := range meant {
				fixes = append(fixes, Fix{Title: "change to " + s, Path: ref.Path, Line: ref.Line, Col: ref.Col, Old: ref.Subject, New: s})
			}
		}
		out = append(out, Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: ref.Path, Line: ref.Line, Col: ref.Col},
			Code: diag.Code(ruleUnknownSubject.ID), Severity: sev,
			Message: fmt.Sprintf("subject %s: no source has it", ref.Subject), Hint: hint}, Fixes: fixes})
	}
	slices.SortFunc(out, compareFindings)
	return out
}

// listSome lists up to eight items, then says how many more there are.
func listSome(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	if len(items) <= 8 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:8], ", "), len(items)-8)
}
