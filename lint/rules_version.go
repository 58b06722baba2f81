package lint

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

var ruleVersionNotBumped = &Rule{
	ID:       "version_not_bumped",
	Severity: diag.SeverityWarning,
	Summary:  "the body changed since the base revision, but version did not",
	Doc: `version labels what a contract quoted: two contracts that cite travel-v2 at
version v2 must have quoted the same text. When a file's body differs from the
same file at the base revision (Options.Base: the revision changes are compared
with) and its version is the same, bump the version. The rule runs only when a
base is given, and only on files that exist at the base and parse there.

Bad: at the base revision the file said 600; now it says 650, still v1.

	version: v1
	---
	The lodging limit is 650 CNY per room-night.

Good: the version says the text changed.

	version: v2
	---
	The lodging limit is 650 CNY per room-night.`,
	file: checkVersionNotBumped,
}

func checkVersionNotBumped(r *Rule, f *file) {
	if f.src == nil || f.opts.Base == nil {
		return
	}
	data, err := fs.ReadFile(f.opts.Base, f.path)
	if err != nil {
		return // new at this revision, or not readable there: nothing to compare
	}
	old, err := corpus.Parse(f.path, data)
	if err != nil || old.Version != f.src.Version || old.Text() == f.src.Text() {
		return
	}
	pos := f.pos("version")
	hint := "bump version, so that contracts quoting the old text and the new one tell them apart"
	var fixes []Fix
	if next := nextVersion(f.src.Version); next != "" {
		hint = fmt.Sprintf("bump version, e.g. version: %s, so that contracts quoting the old text and the new one tell them apart", next)
		fixes = []Fix{{Title: "set version: " + next, Path: f.path, Key: "version", Value: next}}
	}
	f.add(r, pos.Line, pos.Col, fmt.Sprintf("the body changed since the base revision, but version is still %s", f.src.Version), hint)
	f.findings[len(f.findings)-1].Fixes = fixes
}

// nextVersion increments the number a version label ends with: v2 → v3,
// 1.4 → 1.5. It is "" when the label does not end in a number.
func nextVersion(v string) string {
	i := len(v)
	for i > 0 && '0' <= v[i-1] && v[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(v[i:])
	if i == len(v) || err != nil {
		return ""
	}
	next := strconv.Itoa(n + 1)
	return v[:i] + strings.Repeat("0", max(0, len(v)-i-len(next))) + next // keep 2026-03 → 2026-04 zero-padded
}
