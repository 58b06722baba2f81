package lint

import (
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/diag"
)

// Rule is one check. Its ID is stable: configuration, inline disable
// comments and tools that read the output refer to it.
type Rule struct {
	ID       string        // stable machine name, e.g. "overlap"
	Severity diag.Severity // default severity; configuration may change it
	Summary  string        // one line: what the rule finds
	Doc      string        // what the rule checks, why it matters and how to fix it

	// At most one of the following says how the rule runs; a rule with
	// none is reported by Run itself (unreadable files, disable comments).
	codes  []diag.Code        // parse problems the rule reports
	file   func(*Rule, *file) // a check of one file, run for each file in scope
	corpus func(*Rule, *pass) // a check that compares the files that parsed
}

// Rules returns every rule, sorted by ID. The slice is a copy; the rules are
// shared and must not be modified.
func Rules() []*Rule {
	return slices.Clone(allRules)
}

// RuleByID returns the rule with the given ID.
func RuleByID(id string) (*Rule, bool) {
	i, ok := slices.BinarySearchFunc(allRules, id, func(r *Rule, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return nil, false
	}
	return allRules[i], true
}

// ruleByOldID returns the rule that the previous release called id: rule
// IDs were kebab-case ("coverage-gap") before codes became snake_case
// ("coverage_gap"). Configuration and disable comments accept the old IDs
// for one release, and report each as renamed; remove this with them.
func ruleByOldID(id string) (*Rule, bool) {
	if !strings.Contains(id, "-") {
		return nil, false
	}
	return RuleByID(strings.ReplaceAll(id, "-", "_"))
}

// CodeRenamedRule is the code of a warning that a configuration file
// names a rule by the ID the previous release gave it (see ruleByOldID).
const CodeRenamedRule diag.Code = "renamed_rule"

// renamedHint is the hint of a rule named by its old ID: the new ID, as a
// suggestion an editor can apply.
func renamedHint(r *Rule) diag.Hint {
	return diag.Hint{Kind: diag.HintDidYouMean, Text: "write " + r.ID + "; the old ID is accepted until the next release", Suggestion: r.ID}
}

// ruleIDs lists every rule ID, sorted.
func ruleIDs() []string {
	ids := make([]string, len(allRules))
	for i, r := range allRules {
		ids[i] = r.ID
	}
	return ids
}

// allRules is sorted by ID in init.
var allRules = []*Rule{
	// Errors: the file does not parse, or the corpus is inconsistent.
	ruleUnreadable, ruleInvalidUTF8, ruleFrontMatter, ruleUnknownKey, ruleMissingKey,
	ruleBadValue, ruleInvalidDate, ruleEmptyInterval, ruleCiteOutsideBody, ruleEmptyBody, ruleParseError,
	ruleDuplicateSource, ruleUnknownSupersedes, ruleSupersedesCycle, ruleUnknownSubject, ruleOverlap,
	ruleShortFormLosesScope, // what build's short form refuses
	// Warnings: selection would pick surprising evidence.
	ruleSupersedesBoundary, ruleQuestionDate, ruleCoverageGap, ruleAmountWithoutUnit,
	ruleMissingScopeOrDate, ruleInstructionText, ruleTranslationMismatch, ruleLintDirective,
	ruleVersionNotBumped,
	// Info: hygiene.
	ruleTrailingWhitespace, ruleCRLF, ruleBOM, ruleFutureSource,
}

// ruleForCode maps each corpus parse problem to the rule that reports it.
var ruleForCode = map[diag.Code]*Rule{}

func init() {
	slices.SortFunc(allRules, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
	for _, r := range allRules {
		for _, c := range r.codes {
			ruleForCode[c] = r
		}
	}
}
