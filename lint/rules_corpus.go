package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/suggest"
)

// The rules that compare files. They run over the files that parsed.

var ruleDuplicateSource = &Rule{
	ID:       "duplicate_source",
	Severity: diag.SeverityError,
	Summary:  "two files use the same source_id for one language",
	Doc: `A source_id names one source per language: an address such as travel-v2:1-3
must lead to exactly one file. Two files with the same source_id need different
lang values; a file without lang applies to every language, so it clashes with
any other file of its source_id.`,
	corpus: checkDuplicateSource,
}

var ruleUnknownSupersedes = &Rule{
	ID:       "unknown_supersedes",
	Severity: diag.SeverityError,
	Summary:  "supersedes names a source_id no file declares",
	Doc: `supersedes lists the source_ids a source replaces. An entry that names no source
is usually a typo, and it hides the chain of versions from the linter. The hint
names the closest existing source_id.`,
	corpus: checkUnknownSupersedes,
}

var ruleSupersedesCycle = &Rule{
	ID:       "supersedes_cycle",
	Severity: diag.SeverityError,
	Summary:  "supersedes entries form a cycle",
	Doc: `A source cannot replace a source that, directly or through others, replaces it.
The message shows the cycle; remove the entry that points backwards. It is
reported at every file in the cycle.`,
	corpus: checkSupersedesCycle,
}

var ruleOverlap = &Rule{
	ID:       "overlap",
	Severity: diag.SeverityError,
	Summary:  "two sources for one subject and language apply on the same dates",
	Doc: `When two sources answer the same subject in the same language and their validity
intervals overlap, a question about a date in the overlap selects both, and the
contract carries a conflict. It is an error: a change that makes two amounts
apply at once fails lint, and so the pull request that makes it. The message
names both files and the overlapping dates. If the newer source replaces the older, add supersedes to it and end the
older one where the newer begins (pairs linked by supersedes are reported by
supersedes_boundary instead). If the two apply together by design — shared
rules beside each city's own policy — mark the one that adds to the other with
role: supplement; supplements are never reported. The finding is placed at the
source that starts later; a disable comment or an override in either file
silences it.

Bad: shared.md and shanghai.md both apply to meals-shanghai on [2026-01-01,
open), and the shared rules are meant to apply beside the city's own:

	# shared.md
	source_id: meals-shared
	subjects: [meals-shanghai, meals-chengdu]
	valid_from: 2026-01-01
	# shanghai.md
	source_id: meals-shanghai
	subjects: [meals-shanghai]
	valid_from: 2026-01-01

Good: shared.md says so.

	# shared.md
	source_id: meals-shared
	subjects: [meals-shanghai, meals-chengdu]
	valid_from: 2026-01-01
	role: supplement`,
	corpus: checkOverlap,
}

var ruleSupersedesBoundary = &Rule{
	ID:       "supersedes_boundary",
	Severity: diag.SeverityWarning,
	Summary:  "a superseded source does not end where its successor begins",
	Doc: `When B supersedes A, A's valid_until should be B's valid_from: then every date
belongs to exactly one of them (intervals are half-open). A later valid_until (or
none) makes both apply; an earlier one leaves dates that neither covers. The hint
names the date to set. A source without lang is compared with successors in
every language. When the successor starts no later than the source it replaces,
no valid_until can separate them (it would leave the older source no day): the
hint says to move the successor's valid_from instead.

Bad: fuel-v2 supersedes fuel-v1 but starts first.

	# fuel-v1.md                       # fuel-v2.md
	valid_from: 2026-01-01             valid_from: 2025-10-01
	                                   supersedes: [fuel-v1]

Good: fuel-v2 starts on 2026-01-01 or later, and fuel-v1 ends that day.`,
	corpus: checkSupersedesBoundary,
}

var ruleCoverageGap = &Rule{
	ID:       "coverage_gap",
	Severity: diag.SeverityWarning,
	Summary:  "a subject has dates between two versions that no source covers",
	Doc: `For each subject and language, the sources' validity intervals should leave no
hole between the first valid_from and the last valid_until: a question about a
date in the hole finds no evidence. The message names the dates and the two
sources around them. Pairs linked by supersedes are reported by
supersedes_boundary instead. A source with role: supplement covers no date: it
adds to the others and answers nothing alone. If a pause is intended, disable
the rule for the file.

Bad: only the shared rules (role: supplement) apply to cg-meals on
[2025-07-01, 2025-09-01).

	# meals-v1.md              # shared.md               # meals-v2.md
	valid_from: 2025-01-01     valid_from: 2025-01-01    valid_from: 2025-09-01
	valid_until: 2025-07-01    role: supplement

Good: meals-v1.md ends where meals-v2.md begins (valid_until: 2025-09-01).`,
	corpus: checkCoverageGap,
}

var ruleTranslationMismatch = &Rule{
	ID:       "translation_mismatch",
	Severity: diag.SeverityWarning,
	Summary:  "translations of one source differ in validity, supersedes, amounts or currency",
	Doc: `Files with the same source_id and different lang values are translations of one
source. They must apply on the same dates (valid_from, valid_until) and replace
the same sources (supersedes); otherwise a question in one language selects other
evidence than the same question in another. Their bodies must also state the
same amounts, in the order written, and name the same currencies (in the body
or the unit key: CNY, RMB, yuan, 元 and ¥ are one currency): otherwise the
answer depends on the language of the question.

Bad: the English file says 200, the Chinese one 210.

	# meals-en.md                    # meals-zh.md
	source_id: meals                 source_id: meals
	lang: en                         lang: zh
	---                              ---
	Up to 200 CNY per day.           每天最多 210 元。

Good: both say 200 (每天最多 200 元。).`,
	corpus: checkTranslationMismatch,
}

func checkDuplicateSource(r *Rule, p *pass) {
	for _, id := range p.sortedIDs() {
		ss := p.byID[id]
		for j := 1; j < len(ss); j++ {
			for i := range j {
				if !langsMeet(ss[i].Lang, ss[j].Lang) {
					continue
				}
				at, other := p.pick(ss[j], ss[i])
				p.add(r, at, p.pos(at, "source_id"),
					fmt.Sprintf("source_id %s%s is also used by %s%s", id, langNote(at.Lang), other.Path, langNote(other.Lang)),
					"give each source its own source_id, or set a different lang on each translation (a file without lang applies to every language)",
					p.loc(other, "source_id"))
			}
		}
	}
}

// langNote describes a source's language for a message.
func langNote(lang string) string {
	if lang == "" {
		return " (no lang)"
	}
	return " (lang " + lang + ")"
}

func checkUnknownSupersedes(r *Rule, p *pass) {
	for _, s := range p.sources {
		for i, id := range s.Supersedes {
			if p.ids[id] || slices.Contains(s.Supersedes[:i], id) {
				continue
			}
			hint := "check the source_id, or remove the entry"
			pos := p.fileOf[s].locate("supersedes", id)
			var fixes []Fix
			if sug := suggest.Closest(id, p.sortedIDs()); sug != "" {
				hint = "did you mean " + sug + "?"
				fixes = []Fix{{Title: "change " + id + " to " + sug, Path: s.Path, Line: pos.Line, Col: pos.Col, Old: id, New: sug}}
			}
			p.addFix(r, s, pos, fmt.Sprintf("supersedes names %s, but no file has that source_id", id), hint, fixes)
		}
	}
}

func checkSupersedesCycle(r *Rule, p *pass) {
	// The graph of source_ids, with an edge from each source to the ones it
	// supersedes, over the sources that parsed.
	next := map[string][]string{}
	for _, s := range p.sources {
		for _, t := range s.Supersedes {
			if len(p.byID[t]) > 0 && !slices.Contains(next[s.ID], t) {
				next[s.ID] = append(next[s.ID], t)
			}
		}
	}
	for _, ts := range next {
		slices.Sort(ts)
	}
	comp := components(p.sortedIDs(), next)
	cyclic := func(id string) bool {
		c, ok := comp[id]
		return ok && (c.size > 1 || slices.Contains(next[id], id))
	}
	for _, s := range p.sources {
		if !cyclic(s.ID) {
			continue
		}
		for _, t := range s.Supersedes {
			if !cyclic(t) || comp[t].index != comp[s.ID].index {
				continue
			}
			loop := append([]string{s.ID}, shortestPath(t, s.ID, next, func(id string) bool {
				return comp[id].index == comp[s.ID].index
			})...)
			p.add(r, s, p.fileOf[s].locate("supersedes", t),
				"supersedes forms a cycle: "+strings.Join(loop, " → "),
				"a source cannot replace one that replaces it; remove the entry that points back to an older source")
			break
		}
	}
}

// component is a strongly connected component of the supersedes graph.
type component struct{ index, size int }

// components finds the strongly connected components of the graph (Tarjan's
// algorithm), visiting nodes in the given order so the result is stable.
func components(nodes []string, next map[string][]string) map[string]component {
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	out := map[string]component{}
	n := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range next[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var members []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				members = append(members, w)
				if w == v {
					break
				}
			}
			for _, w := range members {
				out[w] = component{index: index[v], size: len(members)}
			}
		}
	}
	for _, v := range nodes {
		if _, seen := index[v]; !seen && len(next[v]) > 0 {
			visit(v)
		}
	}
	return out
}

// shortestPath returns the nodes on a shortest path from "from" to "to"
// (both included) through nodes that pass keep.
func shortestPath(from, to string, next map[string][]string, keep func(string) bool) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if v == to {
			var path []string
			for ; v != ""; v = prev[v] {
				path = append(path, v)
			}
			slices.Reverse(path)
			return path
		}
		for _, w := range next[v] {
			if _, seen := prev[w]; !seen && keep(w) {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []string{from, to}
}

func checkSupersedesBoundary(r *Rule, p *pass) {
	for _, s := range p.sources {
		for i, id := range s.Supersedes {
			if id == s.ID || slices.Contains(s.Supersedes[:i], id) {
				continue
			}
			for _, old := range p.byID[id] {
				if !langsMeet(old.Lang, s.Lang) || old.ValidUntil == s.ValidFrom {
					continue
				}
				var what string
				hint := fmt.Sprintf("set valid_until: %s in %s", s.ValidFrom, old.Path)
				switch {
				case !old.ValidFrom.Before(s.ValidFrom):
					// Ending old where s begins would leave it no day at
					// all: never hint at an empty interval.
					what = fmt.Sprintf("it starts on %s, no earlier than its successor, so no valid_until can end it where the successor begins", old.ValidFrom)
					hint = fmt.Sprintf("the successor starts no later than the source it replaces: give %s a valid_from after %s in %s, or remove %s from its supersedes if it does not replace it",
						s.ID, old.ValidFrom, s.Path, old.ID)
				case old.ValidUntil.IsZero():
					what = fmt.Sprintf("has no valid_until, so both apply on %s", corpus.Span{From: s.ValidFrom})
				case s.ValidFrom.Before(old.ValidUntil):
					what = fmt.Sprintf("its valid_until is %s, so both apply on %s",
						old.ValidUntil, corpus.Span{From: s.ValidFrom, Until: old.ValidUntil})
				default:
					what = fmt.Sprintf("its valid_until is %s, so neither applies on %s",
						old.ValidUntil, corpus.Span{From: old.ValidUntil, Until: s.ValidFrom})
				}
				msg := fmt.Sprintf("%s (%s) is superseded by %s (%s) from %s, but %s",
					old.ID, old.Path, s.ID, s.Path, s.ValidFrom, what)
				oldPos := p.pos(old, "valid_until", "valid_from")
				newPos := p.fileOf[s].locate("supersedes", id)
				var fixes []Fix
				if old.ValidFrom.Before(s.ValidFrom) { // never an empty interval
					fixes = []Fix{{Title: fmt.Sprintf("set valid_until: %s in %s", s.ValidFrom, old.Path), Path: old.Path, Key: "valid_until", Value: s.ValidFrom.String()}}
				}
				if at, _ := p.pick(old, s); at == old {
					p.addFix(r, old, oldPos, msg, hint, fixes, Location{Path: s.Path, Line: newPos.Line, Col: newPos.Col})
				} else {
					p.addFix(r, s, newPos, msg, hint, fixes, Location{Path: old.Path, Line: oldPos.Line, Col: oldPos.Col})
				}
			}
		}
	}
}

// fmtUntil formats a valid_until for a message.
func fmtUntil(d corpus.Date) string {
	if d.IsZero() {
		return "open-ended"
	}
	return d.String()
}

func checkOverlap(r *Rule, p *pass) {
	type pair struct{ a, b *corpus.Source } // a starts no later than b
	subjects := map[pair][]string{}
	var order []pair
	for _, g := range p.subjectGroups() {
		var active []*corpus.Source
		for _, s := range g.sources {
			if s.IsSupplement() {
				continue // applies together with the others by design
			}
			active = slices.DeleteFunc(active, func(a *corpus.Source) bool {
				return !a.ValidUntil.IsZero() && !s.ValidFrom.Before(a.ValidUntil)
			})
			for _, a := range active {
				if a.ID == s.ID || supersedesEither(a, s) {
					continue
				}
				k := pair{a, s}
				if _, ok := subjects[k]; !ok {
					order = append(order, k)
				}
				if !slices.Contains(subjects[k], g.subject) {
					subjects[k] = append(subjects[k], g.subject)
				}
			}
			active = append(active, s)
		}
	}
	for _, k := range order {
		a, b := k.a, k.b
		var until corpus.Date
		switch {
		case a.ValidUntil.IsZero():
			until = b.ValidUntil
		case b.ValidUntil.IsZero():
			until = a.ValidUntil
		case a.ValidUntil.Before(b.ValidUntil):
			until = a.ValidUntil
		default:
			until = b.ValidUntil
		}
		span := "on " + corpus.Span{From: b.ValidFrom, Until: until}.String()
		subj := "subject " + subjects[k][0]
		if len(subjects[k]) > 1 {
			subj = "subjects " + strings.Join(subjects[k], ", ")
		}
		at, other := p.pick(b, a)
		// Ending a where b begins must leave a a day at least: never hint
		// at an empty interval.
		var hint string
		var fixes []Fix
		if a.ValidFrom.Before(b.ValidFrom) {
			hint = fmt.Sprintf("if %s replaces %s, add supersedes: [%s] to it and set valid_until: %s in %s; if they apply together by design, set role: supplement in the one that adds to the other; otherwise narrow one of the intervals",
				b.ID, a.ID, a.ID, b.ValidFrom, a.Path)
			fixes = []Fix{{Title: fmt.Sprintf("set valid_until: %s in %s", b.ValidFrom, a.Path), Path: a.Path, Key: "valid_until", Value: b.ValidFrom.String()}}
		} else {
			hint = fmt.Sprintf("both start on %s: if one replaces the other, give it a later valid_from and add supersedes; if they apply together by design, set role: supplement in the one that adds to the other; otherwise narrow one of the intervals",
				b.ValidFrom)
		}
		for _, s := range []*corpus.Source{at, other} {
			fixes = append(fixes, Fix{Title: "set role: supplement in " + s.Path, Path: s.Path, Key: "role", Value: corpus.RoleSupplement})
		}
		p.addFix(r, at, p.pos(at, "valid_from"),
			fmt.Sprintf("validity overlaps %s (%s): both apply to %s %s", other.ID, other.Path, subj, span),
			hint, fixes, p.loc(other, "valid_from"))
	}
}

func checkCoverageGap(r *Rule, p *pass) {
	for _, g := range p.subjectGroups() {
		var reach corpus.Date // first day not yet covered
		var last *corpus.Source
		// A supplement adds to the sources of its subjects; it answers no
		// date on its own, so it covers none.
		sources := slices.DeleteFunc(slices.Clone(g.sources), (*corpus.Source).IsSupplement)
		for i, s := range sources {
			if i > 0 && reach.Before(s.ValidFrom) && !supersedesEither(last, s) {
				lang := ""
				if last.Lang != "" || s.Lang != "" {
					lang = " in lang " + g.lang
				}
				at, other := p.pick(s, last)
				atKey, otherKey := "valid_from", "valid_until"
				if at == last {
					atKey, otherKey = otherKey, atKey
				}
				p.add(r, at, p.pos(at, atKey),
					fmt.Sprintf("no source covers subject %s%s on %s: %s (%s) ends before, %s (%s) starts after",
						g.subject, lang, corpus.Span{From: reach, Until: s.ValidFrom}, last.ID, last.Path, s.ID, s.Path),
					fmt.Sprintf("set valid_until: %s in %s, or add a source for the gap; if the gap is intended, disable coverage_gap for this file",
						s.ValidFrom, last.Path),
					p.loc(other, otherKey))
			}
			if s.ValidUntil.IsZero() {
				break // open-ended: everything after is covered
			}
			if i == 0 || reach.Before(s.ValidUntil) {
				reach, last = s.ValidUntil, s
			}
		}
	}
}

func checkTranslationMismatch(r *Rule, p *pass) {
	for _, id := range p.sortedIDs() {
		ss := p.byID[id]
		for j := 1; j < len(ss); j++ {
			for i := range j {
				a, b := ss[i], ss[j]
				if a.Lang == "" || b.Lang == "" || a.Lang == b.Lang {
					continue
				}
				at, other := p.pick(b, a)
				var diffs, keys []string
				if at.ValidFrom != other.ValidFrom {
					diffs = append(diffs, fmt.Sprintf("valid_from %s vs %s", at.ValidFrom, other.ValidFrom))
					keys = append(keys, "valid_from")
				}
				if at.ValidUntil != other.ValidUntil {
					diffs = append(diffs, fmt.Sprintf("valid_until %s vs %s", fmtUntil(at.ValidUntil), fmtUntil(other.ValidUntil)))
					keys = append(keys, "valid_until")
				}
				if x, y := sortedSet(at.Supersedes), sortedSet(other.Supersedes); !slices.Equal(x, y) {
					diffs = append(diffs, fmt.Sprintf("supersedes [%s] vs [%s]", strings.Join(x, ", "), strings.Join(y, ", ")))
					keys = append(keys, "supersedes")
				}
				if x, y := bodyAmounts(at), bodyAmounts(other); !slices.Equal(x, y) {
					diffs = append(diffs, fmt.Sprintf("amounts [%s] vs [%s]", strings.Join(x, ", "), strings.Join(y, ", ")))
				}
				if x, y := bodyCurrencies(at), bodyCurrencies(other); !slices.Equal(x, y) {
					diffs = append(diffs, fmt.Sprintf("currencies [%s] vs [%s]", strings.Join(x, ", "), strings.Join(y, ", ")))
				}
				if len(diffs) == 0 {
					continue
				}
				keys = append(keys, "source_id")
				p.add(r, at, p.pos(at, keys...),
					fmt.Sprintf("%s (lang %s) and its translation %s (lang %s) differ: %s",
						at.Path, at.Lang, other.Path, other.Lang, strings.Join(diffs, "; ")),
					"translations must apply on the same dates, replace the same sources and state the same amounts: make them agree, or give them different source_ids if they are different policies",
					p.loc(other, keys...))
			}
		}
	}
}

// sortedSet returns the distinct items of list, sorted.
func sortedSet(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return slices.Compact(out)
}

// bodyAmounts lists the monetary amounts of s's body, in the order written.
func bodyAmounts(s *corpus.Source) []string {
	var out []string
	for _, l := range s.Lines() {
		out = append(out, corpus.MoneyAmounts(l)...)
	}
	return out
}

// bodyCurrencies lists the currencies s's body and unit name, sorted.
func bodyCurrencies(s *corpus.Source) []string {
	set := map[string]bool{}
	corpus.Currencies(s.Unit, set)
	for _, l := range s.Lines() {
		corpus.Currencies(l, set)
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
