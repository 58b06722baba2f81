package lint

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// pass holds what the rules that compare files need: every file, and the
// sources that parsed, indexed.
type pass struct {
	opts    *Options
	byPath  map[string]*file
	sources []*corpus.Source // parsed sources, by path
	fileOf  map[*corpus.Source]*file
	byID    map[string][]*corpus.Source // by lang, then path
	ids     map[string]bool             // every declared source_id, parsed or not
	idList  []string                    // sorted keys of ids, built on first use
	groups  []group                     // built on first use

	findings []Finding
}

func newPass(files []*file, opts *Options) *pass {
	p := &pass{opts: opts, byPath: make(map[string]*file, len(files)),
		fileOf: make(map[*corpus.Source]*file, len(files)),
		byID:   map[string][]*corpus.Source{}, ids: map[string]bool{}}
	for _, f := range files {
		p.byPath[f.path] = f
		if f.declaredID != "" {
			p.ids[f.declaredID] = true
		}
		if f.src == nil {
			continue
		}
		p.sources = append(p.sources, f.src)
		p.fileOf[f.src] = f
		p.byID[f.src.ID] = append(p.byID[f.src.ID], f.src)
		p.ids[f.src.ID] = true
	}
	for _, ss := range p.byID {
		slices.SortFunc(ss, func(a, b *corpus.Source) int {
			return cmp.Or(strings.Compare(a.Lang, b.Lang), strings.Compare(a.Path, b.Path))
		})
	}
	return p
}

// add records a finding about source s at pos.
func (p *pass) add(r *Rule, s *corpus.Source, pos corpus.Pos, msg, hint string, related ...Location) {
	p.findings = append(p.findings, Finding{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: s.Path, Line: pos.Line, Col: pos.Col}, Code: diag.Code(r.ID), Severity: r.Severity, Message: msg, Hint: diag.Fix(hint)}, Related: related})
}

// addFix records a finding like add, with edits that resolve it.
func (p *pass) addFix(r *Rule, s *corpus.Source, pos corpus.Pos, msg, hint string, fixes []Fix, related ...Location) {
	p.add(r, s, pos, msg, hint, related...)
	p.findings[len(p.findings)-1].Fixes = fixes
}

// pick chooses where a finding about two sources is reported: at a, unless
// only b is in the report's scope, so that a problem between a changed and
// an unchanged file is reported at the changed one.
func (p *pass) pick(a, b *corpus.Source) (at, other *corpus.Source) {
	if !p.fileOf[a].inScope && p.fileOf[b].inScope {
		return b, a
	}
	return a, b
}

// pos returns the position of the first of keys set in s.
func (p *pass) pos(s *corpus.Source, keys ...string) corpus.Pos {
	return p.fileOf[s].pos(keys...)
}

// loc is pos as a Location, for Finding.Related.
func (p *pass) loc(s *corpus.Source, keys ...string) Location {
	pos := p.pos(s, keys...)
	return Location{Path: s.Path, Line: pos.Line, Col: pos.Col}
}

// sortedIDs returns every declared source_id, sorted.
func (p *pass) sortedIDs() []string {
	if p.idList == nil {
		p.idList = make([]string, 0, len(p.ids))
		for id := range p.ids {
			p.idList = append(p.idList, id)
		}
		slices.Sort(p.idList)
	}
	return p.idList
}

// group is the sources that answer one subject in one language, sorted by
// valid_from, then source_id, lang and path. A source without lang applies
// to every language, so it belongs to every language's group of its
// subjects.
type group struct {
	subject, lang string
	sources       []*corpus.Source
}

// subjectGroups returns the groups, sorted by subject and lang.
func (p *pass) subjectGroups() []group {
	if p.groups != nil {
		return p.groups
	}
	bySubject := map[string][]*corpus.Source{}
	for _, s := range p.sources {
		for i, subj := range s.Subjects {
			if !slices.Contains(s.Subjects[:i], subj) {
				bySubject[subj] = append(bySubject[subj], s)
			}
		}
	}
	subjects := make([]string, 0, len(bySubject))
	for subj := range bySubject {
		subjects = append(subjects, subj)
	}
	slices.Sort(subjects)
	p.groups = []group{}
	for _, subj := range subjects {
		ss := bySubject[subj]
		slices.SortFunc(ss, corpus.CompareOldestFirst)
		for _, l := range corpus.Lanes(ss) {
			p.groups = append(p.groups, group{subject: subj, lang: l.Lang, sources: l.Sources})
		}
	}
	return p.groups
}

// langsMeet reports whether sources in languages a and b can answer the same
// question: the same lang, or one without lang (which applies to all).
func langsMeet(a, b string) bool { return a == b || a == "" || b == "" }

// supersedesEither reports whether a names b in supersedes or b names a.
func supersedesEither(a, b *corpus.Source) bool {
	return slices.Contains(a.Supersedes, b.ID) || slices.Contains(b.Supersedes, a.ID)
}
