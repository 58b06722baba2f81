package lint

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/internal/suggest"
)

// directive matches a "# ka2lint:VERB ARGS" comment.
var directive = regexp.MustCompile(`(?:^|\s)(#\s*ka2lint:)(\S*)(.*)$`)

// scanDirectives reads the "# ka2lint:disable RULE-ID…" comments of the front
// matter into f.disabled, and reports directives it cannot honour.
//
// A directive names one or more rule IDs, separated by commas or spaces,
// optionally followed by " -- " and the reason for the exception:
//
//	# ka2lint:disable instruction_text -- deliberately hostile test fixture
//
// It turns the rules off for the whole file.
func (f *file) scanDirectives() {
	lines, first := f.frontMatter()
	for i, l := range lines {
		m := directive.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		line, col := first+i, utf8.RuneCountInString(l[:m[2]])+1
		verb, args := l[m[4]:m[5]], l[m[6]:m[7]]
		if verb != "disable" {
			f.add(ruleLintDirective, line, col, "unknown directive ka2lint:"+verb,
				"write # ka2lint:disable RULE-ID, e.g. # ka2lint:disable instruction_text")
			continue
		}
		args, _, _ = strings.Cut(args, "--")
		ids, at := directiveIDs(args, m[6])
		if len(ids) == 0 {
			f.add(ruleLintDirective, line, col, "ka2lint:disable names no rule",
				"name the rules to turn off for this file, e.g. # ka2lint:disable instruction_text")
			continue
		}
		for i, id := range ids {
			r, ok := RuleByID(id)
			if !ok {
				if r, ok = ruleByOldID(id); ok {
					idCol := utf8.RuneCountInString(l[:at[i]]) + 1
					f.addHint(ruleLintDirective, line, idCol, "ka2lint:disable names rule "+r.ID+" by its old ID "+quote(id), renamedHint(r))
					last := &f.findings[len(f.findings)-1]
					last.Fixes = []Fix{{Title: "write " + id + " as " + r.ID, Path: f.path, Line: line, Col: idCol, Old: id, New: r.ID}}
				}
			}
			if ok {
				if f.disabled == nil {
					f.disabled = map[string]bool{}
				}
				f.disabled[r.ID] = true
				continue
			}
			hint := "use a rule ID as ka2 lint prints it in brackets, e.g. instruction_text"
			if s := suggest.Closest(id, ruleIDs()); s != "" {
				hint = "did you mean " + s + "?"
			}
			f.add(ruleLintDirective, line, col, "ka2lint:disable names unknown rule "+quote(id), hint)
		}
	}
	if f.fmEnd == 0 {
		return
	}
	for i := f.fmEnd; i < len(f.raw); i++ {
		if j := strings.Index(f.raw[i], "ka2lint:"); j >= 0 {
			f.add(ruleLintDirective, i+1, utf8.RuneCountInString(f.raw[i][:j])+1,
				"a ka2lint comment in the body has no effect, and becomes part of every quote of this line",
				"move it into the front matter, between the '---' lines, as # ka2lint:disable RULE-ID")
		}
	}
}

// directiveIDs splits the rule IDs of a directive, separated by commas or
// white space, and returns each with its byte offset in the line (args
// starts at offset start).
func directiveIDs(args string, start int) (ids []string, at []int) {
	sep := func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }
	for i := 0; i < len(args); {
		r, n := utf8.DecodeRuneInString(args[i:])
		if sep(r) {
			i += n
			continue
		}
		j := strings.IndexFunc(args[i:], sep)
		if j < 0 {
			j = len(args) - i
		}
		ids, at = append(ids, args[i:i+j]), append(at, start+i)
		i += j
	}
	return ids, at
}

// quote wraps s in double quotes, like %q but without escaping non-ASCII
// text, which authors write in their own language.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
