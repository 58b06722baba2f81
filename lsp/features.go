package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/lint"
	"github.com/ka2/ka2/selector"
)

// view is an open document as the features read it.
type view struct {
	rel   string
	text  string
	lines []string
	fmEnd int            // 0-based line of the closing '---'; 0 without front matter
	src   *corpus.Source // nil when the buffer does not parse
	snap  *snapshot
	rev   int // the buffer's revision, for the impact cache
}

// open returns the document at uri, or nil when it is not an open policy
// file of the corpus.
func (s *Server) open(uri string) *view {
	rel, ok := s.relPath(uri)
	if !ok {
		return nil
	}
	s.mu.Lock()
	text, ok := s.docs[rel]
	snap, rev := s.snap, s.revs[rel]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	if snap == nil {
		snap = &snapshot{texts: map[string]string{}}
	}
	v := &view{rel: rel, text: text, lines: lines(text), snap: snap, rev: rev}
	if len(v.lines) > 0 && strings.TrimRight(v.lines[0], " \t") == "---" {
		for i := 1; i < len(v.lines); i++ {
			if strings.TrimRight(v.lines[i], " \t") == "---" {
				v.fmEnd = i
				break
			}
		}
	}
	v.src, _ = corpus.Parse(rel, []byte(text))
	return v
}

// inFrontMatter reports whether 0-based line is a front matter line.
func (v *view) inFrontMatter(line int) bool { return v.fmEnd > 0 && line > 0 && line < v.fmEnd }

// keyOf returns the top-level key a front matter line belongs to: its own,
// or that of the key line above it for a continued list.
func (v *view) keyOf(line int) string {
	for i := line; i > 0; i-- {
		l := v.lines[i]
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '-' || l[0] == '#' {
			continue
		}
		k, _, _ := strings.Cut(l, ":")
		return strings.TrimSpace(k)
	}
	return ""
}

// wordAt returns the source_id-like word under the 0-based UTF-16 column.
func wordAt(line string, char int) (word string, start, end int) {
	b := byteOffset(line, char)
	isWord := func(c byte) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	start, end = b, b
	for start > 0 && isWord(line[start-1]) {
		start--
	}
	for end < len(line) && isWord(line[end]) {
		end++
	}
	return line[start:end], start, end
}

// isSubjectByte reports whether r may appear in a subject.
func isSubjectByte(r rune) bool {
	return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-' || r == '/'
}

// hover describes the source of an open file when the cursor is on its
// front matter: the interval in words, whether it applies today, what it
// supersedes and what supersedes it, its other languages, and, with case
// files configured, how many cases select it and, on valid_from or
// valid_until, which cases the unsaved edit changes. The impact is built
// (or found cached) off the read loop, so the answer is deferred.
func (s *Server) hover(ctx context.Context, p positionParams) any {
	v := s.open(p.TextDocument.URI)
	if v == nil || !v.inFrontMatter(p.Position.Line) {
		return nil
	}
	if v.src == nil {
		return hover{Contents: markupContent{Kind: "markdown", Value: "This file's front matter does not parse yet: see its diagnostics."}}
	}
	text := s.describe(v)
	cases, err := s.cases(ctx)
	if err != nil {
		text += "\n\nThe case files do not load (ka2 regress says why): " + firstLine(err) + "."
	}
	if len(cases) > 0 {
		now := selectingCases(cases, v.snap.sources, v.src)
		text += fmt.Sprintf("\n\nSelected by %d of %d regression cases.", len(now), len(cases))
	}
	if k := v.keyOf(p.Position.Line); len(cases) == 0 || k != "valid_from" && k != "valid_until" {
		return hover{Contents: markupContent{Kind: "markdown", Value: text}}
	}
	return deferred(func(ctx context.Context) (any, *rpcError) {
		res, err := s.impactFor(ctx, v.rel, v.text, v.rev)
		switch {
		case ctx.Err() != nil:
			return nil, &rpcError{Code: codeRequestCancelled, Message: "request cancelled"}
		case err == nil:
			s.mu.Lock()
			st := s.settings
			s.mu.Unlock()
			text += "\n\n" + res.hoverText(st)
		case !errors.Is(err, errNoCases):
			text += "\n\nImpact of the unsaved edit: unknown, " + err.Error() + "."
		}
		return hover{Contents: markupContent{Kind: "markdown", Value: text}}, nil
	})
}

// codeLens answers textDocument/codeLens: the impact of the unsaved edit
// on the valid_from and valid_until lines, deferred like hover's.
func (s *Server) codeLens(p codeLensParams) any {
	v := s.open(p.TextDocument.URI)
	if v == nil || v.fmEnd == 0 {
		return []codeLens{}
	}
	return deferred(func(ctx context.Context) (any, *rpcError) {
		res, err := s.impactFor(ctx, v.rel, v.text, v.rev)
		switch {
		case ctx.Err() != nil:
			return nil, &rpcError{Code: codeRequestCancelled, Message: "request cancelled"}
		case errors.Is(err, errNoCases):
			return []codeLens{}, nil
		case err != nil:
			res = &impactResult{changed: true, unavailable: err.Error()}
		}
		return codeLenses(v, res), nil
	})
}

// describe is what hover says of any source: its id, the interval in
// words, today, supersedes both ways and its other languages.
func (s *Server) describe(v *view) string {
	src := v.src
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** %s", src.ID, src.Version)
	if src.Lang != "" {
		fmt.Fprintf(&b, " (%s)", src.Lang)
	}
	if src.IsSupplement() {
		b.WriteString(", a supplement")
	}
	b.WriteString("\n\n")
	b.WriteString(intervalWords(src) + "\n\n")
	today := s.today()
	if src.AppliesOn(today) {
		fmt.Fprintf(&b, "Applies today (%s).\n\n", today)
	} else {
		fmt.Fprintf(&b, "Does not apply today (%s).\n\n", today)
	}
	if len(src.Supersedes) > 0 {
		fmt.Fprintf(&b, "Supersedes: %s.\n\n", strings.Join(src.Supersedes, ", "))
	}
	var by, langs []string
	for _, o := range v.snap.sources {
		if o.Path == src.Path {
			continue
		}
		if slices.Contains(o.Supersedes, src.ID) && !slices.Contains(by, o.ID) {
			by = append(by, o.ID)
		}
		if o.ID == src.ID && o.Lang != src.Lang {
			langs = append(langs, fmt.Sprintf("%s (%s)", cmp.Or(o.Lang, "every language"), o.Path))
		}
	}
	slices.Sort(by)
	slices.Sort(langs)
	if len(by) > 0 {
		fmt.Fprintf(&b, "Superseded by: %s.\n\n", strings.Join(by, ", "))
	}
	if len(langs) > 0 {
		fmt.Fprintf(&b, "Other languages: %s.\n\n", strings.Join(langs, ", "))
	}
	return strings.TrimSpace(b.String())
}

// intervalWords says when src applies, half-open as every ka2 output
// writes an interval: "Applies on [2026-01-01, open)."
func intervalWords(src *corpus.Source) string {
	if src.ValidUntil.IsZero() {
		return "Applies on " + src.Validity().String() + "."
	}
	return "Applies on " + src.Validity().String() + ": valid_until " + src.ValidUntil.String() + " is the first day it no longer applies."
}

// cases are the configured case files' cases (see caseSuite): none
// without case files, and none, with the reason, when they do not load.
func (s *Server) cases(ctx context.Context) ([]*golden.Case, error) {
	suite, err := s.caseSuite(ctx)
	switch {
	case errors.Is(err, errNoCases):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return suite.Cases, nil
}

// selections returns, for each case, the selected sources' paths, or nil
// when the sources do not form a corpus.
func selections(cases []*golden.Case, sources []*corpus.Source) [][]string {
	c, err := corpus.New(sources)
	if err != nil {
		return nil
	}
	ix := selector.NewIndex(c)
	out := make([][]string, len(cases))
	for i, cs := range cases {
		sel, err := ix.Select(selector.Query{Subjects: cs.Subjects, Dates: cs.Dates, Lang: cs.Lang})
		if err != nil {
			continue
		}
		for _, src := range sel.Sources {
			out[i] = append(out[i], src.Path)
		}
	}
	return out
}

// selectingCases names the cases that select src.
func selectingCases(cases []*golden.Case, sources []*corpus.Source, src *corpus.Source) []string {
	var out []string
	for i, sel := range selections(cases, sources) {
		if slices.Contains(sel, src.Path) {
			out = append(out, cases[i].Name)
		}
	}
	return out
}

// completion offers keys at the start of a front matter line, and values
// for the key of the line: subjects, source ids, languages, dates, roles.
func (s *Server) completion(p positionParams) any {
	v := s.open(p.TextDocument.URI)
	if v == nil || !v.inFrontMatter(p.Position.Line) {
		return completionList{Items: []completionItem{}}
	}
	l := v.lines[p.Position.Line]
	before := l[:byteOffset(l, p.Position.Character)]
	var items []completionItem
	if !strings.Contains(before, ":") && !strings.HasPrefix(before, " ") && !strings.HasPrefix(before, "-") {
		for _, k := range corpus.KnownKeys() {
			items = append(items, completionItem{Label: k, Kind: completionKindKeyword, InsertText: k + ": ", InsertTextFormat: insertPlainText})
		}
		return completionList{Items: items}
	}
	set := func(kind int, detail string, values ...string) {
		slices.Sort(values)
		for _, x := range slices.Compact(values) {
			if x != "" {
				items = append(items, completionItem{Label: x, Kind: kind, Detail: detail})
			}
		}
	}
	var subjects, ids, langs []string
	for _, o := range v.snap.sources {
		subjects = append(subjects, o.Subjects...)
		ids = append(ids, o.ID)
		langs = append(langs, o.Lang)
	}
	switch v.keyOf(p.Position.Line) {
	case "subjects", "subject":
		set(completionKindValue, "subject in the corpus", subjects...)
		// A client's word ends at '/', so it would replace only the last
		// segment typed (travel/lo + travel/lodging → travel/travel/lodging):
		// replace the whole subject typed so far.
		typed := len(before) - len(strings.TrimRightFunc(before, isSubjectByte))
		at := lspRange{Start: position{Line: p.Position.Line, Character: p.Position.Character - typed}, End: p.Position}
		for i := range items {
			items[i].TextEdit = &textEdit{Range: at, NewText: items[i].Label}
		}
	case "supersedes":
		set(completionKindRef, "source_id in the corpus", ids...)
	case "source_id":
		set(completionKindRef, "source_id in the corpus (a translation shares it)", ids...)
	case "lang":
		set(completionKindValue, "language in the corpus", append(langs, "en", "zh")...)
	case "role":
		set(completionKindValue, "applies together with the others of its subjects", corpus.RoleSupplement)
	case "valid_from", "valid_until":
		today := s.today().String()
		items = append(items,
			completionItem{Label: today, Kind: completionKindValue, Detail: "today"},
			completionItem{Label: "YYYY-MM-DD", Kind: completionKindSnippet, Detail: "a date",
				InsertText: "${1:" + today[:4] + "}-${2:" + today[5:7] + "}-${3:01}", InsertTextFormat: insertSnippet})
	}
	if items == nil {
		items = []completionItem{}
	}
	return completionList{Items: items}
}

// definition goes from a supersedes id to the files of that source, and
// from a cite range to its body lines.
func (s *Server) definition(p positionParams) any {
	v := s.open(p.TextDocument.URI)
	if v == nil || !v.inFrontMatter(p.Position.Line) {
		return []location{}
	}
	l := v.lines[p.Position.Line]
	word, _, _ := wordAt(l, p.Position.Character)
	switch v.keyOf(p.Position.Line) {
	case "supersedes":
		return s.sourceLocations(v.snap, word, "")
	case "cite":
		if v.src == nil {
			return []location{}
		}
		start, end, ok := strings.Cut(word, "-")
		if !ok {
			end = start
		}
		var a, z int
		if _, err := fmt.Sscanf(start, "%d", &a); err != nil {
			return []location{}
		}
		if _, err := fmt.Sscanf(end, "%d", &z); err != nil || a < 1 || z < a || z > v.src.NumLines() {
			return []location{}
		}
		first, last := v.src.BodyLine+a-2, v.src.BodyLine+z-2
		return []location{{URI: p.TextDocument.URI, Range: lspRange{Start: position{Line: first},
			End: position{Line: last, Character: utf16Col(v.lines[last], utf8.RuneCountInString(v.lines[last])+1)}}}}
	}
	return []location{}
}

// sourceLocations are the source_id lines of the files of source id,
// except the file skip.
func (s *Server) sourceLocations(snap *snapshot, id, skip string) []location {
	out := []location{}
	for _, o := range snap.sources {
		if o.ID != id || o.Path == skip {
			continue
		}
		pos, _ := o.Keys.Get("source_id")
		out = append(out, location{URI: s.uriOf(o.Path), Range: rangeAt(snap.texts[o.Path], pos.Line, pos.Col)})
	}
	return out
}

// references lists, from anywhere in a source's front matter, the files
// of the sources that supersede it and, with case files configured, the
// regression cases that select it (with the corpus as the editor has it),
// each at the line where the case starts.
func (s *Server) references(ctx context.Context, p positionParams) any {
	v := s.open(p.TextDocument.URI)
	if v == nil || v.src == nil || !v.inFrontMatter(p.Position.Line) {
		return []location{}
	}
	out := []location{}
	for _, o := range v.snap.sources {
		if !slices.Contains(o.Supersedes, v.src.ID) {
			continue
		}
		pos, _ := o.Keys.Get("supersedes")
		out = append(out, location{URI: s.uriOf(o.Path), Range: rangeAt(v.snap.texts[o.Path], pos.Line, pos.Col)})
	}
	cases, err := s.cases(ctx)
	if err != nil {
		s.logf("references: %v", err)
	}
	texts := map[string]string{}
	for i, sel := range selections(cases, v.snap.sources) {
		if !slices.Contains(sel, v.src.Path) {
			continue
		}
		c := cases[i]
		text, ok := texts[c.File]
		if !ok {
			data, _ := os.ReadFile(filepath.FromSlash(c.File))
			text = string(data)
			texts[c.File] = text
		}
		out = append(out, location{URI: fileURI(filepath.FromSlash(c.File)), Range: rangeAt(text, c.Line, 0)})
	}
	return out
}

// codeActions turns the fixes of the findings on the requested lines into
// quick fixes, and offers the units other sources of the same subjects
// declare for an amount without a unit.
func (s *Server) codeActions(p codeActionParams) any {
	v := s.open(p.TextDocument.URI)
	out := []codeAction{}
	if v == nil {
		return out
	}
	for _, f := range v.snap.report.Findings {
		if f.Path != v.rel || f.Line-1 < p.Range.Start.Line || f.Line-1 > p.Range.End.Line {
			continue
		}
		fixes := f.Fixes
		if f.Rule() == lint.AmountWithoutUnit && v.src != nil {
			fixes = append(fixes, unitFixes(v.snap, v.src)...)
		}
		for _, fx := range fixes {
			edit, ok := s.editFor(v.snap, fx)
			if !ok {
				continue
			}
			out = append(out, codeAction{Title: fx.Title, Kind: "quickfix", Diagnostics: []diagnostic{s.toDiagnostic(v.snap, f)},
				Edit: workspaceEdit{Changes: map[string][]textEdit{s.uriOf(fx.Path): {edit}}}})
		}
	}
	return out
}

// unitFixes offers the units declared by other sources about a subject of
// src, most sources first.
func unitFixes(snap *snapshot, src *corpus.Source) []lint.Fix {
	count := map[string]int{}
	for _, o := range snap.sources {
		if o.Unit == "" || o.Path == src.Path {
			continue
		}
		for _, subj := range src.Subjects {
			if o.HasSubject(subj) || o.ID == src.ID {
				count[o.Unit]++
				break
			}
		}
	}
	units := make([]string, 0, len(count))
	for u := range count {
		units = append(units, u)
	}
	slices.SortFunc(units, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	var out []lint.Fix
	for _, u := range units {
		out = append(out, lint.Fix{Title: "add unit: " + u, Path: src.Path, Key: "unit", Value: u})
	}
	return out
}

// editFor turns a lint fix into a text edit of the file as the editor has
// it.
func (s *Server) editFor(snap *snapshot, fx lint.Fix) (textEdit, bool) {
	text, ok := snap.texts[fx.Path]
	if !ok {
		return textEdit{}, false
	}
	ls := lines(text)
	if fx.Key == "" {
		if fx.Line < 1 || fx.Line > len(ls) {
			return textEdit{}, false
		}
		l := ls[fx.Line-1]
		start := utf16Col(l, fx.Col)
		b := byteOffset(l, start)
		if !strings.HasPrefix(l[b:], fx.Old) {
			return textEdit{}, false
		}
		end := utf16Col(l, utf8.RuneCountInString(l[:b+len(fx.Old)])+1)
		return textEdit{Range: lspRange{Start: position{Line: fx.Line - 1, Character: start}, End: position{Line: fx.Line - 1, Character: end}}, NewText: fx.New}, true
	}
	if len(ls) == 0 || strings.TrimRight(ls[0], " \t") != "---" {
		return textEdit{}, false
	}
	value := fx.Value
	if strings.ContainsAny(value, ":#[]{},&*!|>'\"%@`") || strings.TrimSpace(value) != value {
		value = `"` + strings.ReplaceAll(value, `"`, `\"`) + `"`
	}
	for i := 1; i < len(ls); i++ {
		l := ls[i]
		if strings.TrimRight(l, " \t") == "---" {
			return textEdit{Range: lspRange{Start: position{Line: i}, End: position{Line: i}}, NewText: fx.Key + ": " + value + "\n"}, true
		}
		rest, ok := strings.CutPrefix(l, fx.Key+":")
		if !ok {
			continue
		}
		end := len(l)
		if j := strings.Index(rest, " #"); j >= 0 {
			end = len(fx.Key) + 1 + j
		}
		return textEdit{Range: lspRange{Start: position{Line: i}, End: position{Line: i, Character: utf16Col(l, utf8.RuneCountInString(l[:end])+1)}},
			NewText: fx.Key + ": " + value}, true
	}
	return textEdit{}, false
}
