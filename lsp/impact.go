package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
)

// impactResult is what an open buffer's unsaved edit does to the
// regression cases: golden.Impact run on the saved corpus and on the
// saved corpus with this one buffer over it. Other open buffers' unsaved
// edits are not part of it, so each file's impact is its own.
type impactResult struct {
	// changed says the buffer differs from the file as saved; without a
	// change there is nothing to report.
	changed bool
	// saved holds the saved file's valid_from and valid_until lines, to
	// put the code lens on the lines the edit touched.
	saved map[string]string
	// unavailable says why no report could be made (a corpus or the case
	// files do not load); "" when report is set.
	unavailable string
	report      *golden.ImpactReport
}

// impactEntry is an impact cached for one revision of a buffer.
type impactEntry struct {
	rev int
	res *impactResult
}

// errNoCases is the impact of a server without case files: none.
var errNoCases = errors.New("no case files configured")

// impactFor returns the impact of the buffer rel at revision rev, whose
// text is text: from the cache when it holds that revision, else built
// (once ctx is done, the build stops and its error is returned; nothing
// is cached). A build that a change on disk overtook is not cached
// either.
func (s *Server) impactFor(ctx context.Context, rel, text string, rev int) (*impactResult, error) {
	s.mu.Lock()
	st, gen := s.settings, s.gen
	e, ok := s.impacts[rel]
	s.mu.Unlock()
	if len(st.Cases) == 0 {
		return nil, errNoCases
	}
	if ok && e.rev == rev {
		return e.res, nil
	}
	if s.opts.impactStart != nil {
		s.opts.impactStart(ctx)
	}
	suite, err := s.caseSuite(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res, err := buildImpact(ctx, st, rel, text, suite, err)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.revs[rel] == rev && s.gen == gen { // not when the buffer moved on or closed, or the disk changed, meanwhile
		s.impacts[rel] = impactEntry{rev: rev, res: res}
	}
	s.mu.Unlock()
	return res, nil
}

// buildImpact loads the saved corpus and the corpus with text at rel, and
// compares every case's output with each; suite is the case files, or
// suiteErr why they do not load.
func buildImpact(ctx context.Context, st Settings, rel, text string, suite *golden.Suite, suiteErr error) (*impactResult, error) {
	rootFS, done, err := corpus.OpenFolder(st.Corpus)
	if err != nil {
		return &impactResult{changed: true, unavailable: "the corpus folder cannot be opened: " + firstLine(err)}, nil
	}
	defer done()
	res := &impactResult{changed: true, saved: map[string]string{}}
	if data, err := fs.ReadFile(rootFS, rel); err == nil {
		if string(data) == text {
			return &impactResult{}, nil
		}
		for _, l := range lines(string(data)) {
			for _, k := range []string{"valid_from", "valid_until"} {
				if strings.HasPrefix(l, k+":") {
					res.saved[k] = strings.TrimSpace(l)
				}
			}
		}
	}
	base, err := corpus.LoadContext(ctx, st.filter(rootFS))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.unavailable = "the saved corpus does not load: " + firstLine(err)
		return res, nil
	}
	next, err := corpus.LoadContext(ctx, st.filter(overlay{base: rootFS, files: map[string]string{rel: text}}))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.unavailable = "the corpus with this edit does not load: " + firstLine(err)
		return res, nil
	}
	if suiteErr != nil {
		res.unavailable = "the case files do not load (ka2 regress says why): " + firstLine(suiteErr)
		return res, nil
	}
	// One case at a time: the editor's machine has other work to do, and
	// the cache keeps this to one build per revision.
	rep, err := golden.Impact(ctx, suite, base, next, 1)
	if err != nil {
		return nil, err
	}
	res.report = rep
	return res, nil
}

// firstLine is an error's first line, for a one-line message.
func firstLine(err error) string {
	l, _, _ := strings.Cut(err.Error(), "\n")
	return l
}

// names lists up to limit case names, then how many more.
func names(cases []golden.CaseImpact, limit int) string {
	var ns []string
	for i, c := range cases {
		if i == limit {
			ns = append(ns, fmt.Sprintf("and %d more", len(cases)-limit))
			break
		}
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, ", ")
}

// lensTitle words an impact for a code lens.
func (r *impactResult) lensTitle() string {
	switch {
	case r.unavailable != "":
		return "impact unknown: " + r.unavailable
	case len(r.report.Changed) == 0:
		return fmt.Sprintf("no regression case changes (of %d)", r.report.Cases)
	case len(r.report.Changed) == 1:
		return "1 case changes: " + r.report.Changed[0].Name
	}
	return fmt.Sprintf("%d cases change: %s", len(r.report.Changed), names(r.report.Changed, 5))
}

// hoverText words an impact for hover: each changed case with where it
// is and its summary.
func (r *impactResult) hoverText(st Settings) string {
	switch {
	case !r.changed:
		return "Impact: the file is saved; edit valid_from or valid_until to see which regression cases change."
	case r.unavailable != "":
		return "Impact of the unsaved edit: unknown, " + r.unavailable + "."
	case len(r.report.Changed) == 0:
		return fmt.Sprintf("Impact of the unsaved edit: none of %d regression cases changes.", r.report.Cases)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Impact of the unsaved edit: %d of %d regression cases change:\n", len(r.report.Changed), r.report.Cases)
	for i, c := range r.report.Changed {
		if i == 10 {
			fmt.Fprintf(&b, "- and %d more (ka2 impact lists them)\n", len(r.report.Changed)-10)
			break
		}
		fmt.Fprintf(&b, "- %s (%s:%d): %s\n", c.Name, st.show(c.File), c.Line, c.Summary)
	}
	return strings.TrimSpace(b.String())
}

// codeLens is an LSP CodeLens.
type codeLens struct {
	Range   lspRange `json:"range"`
	Command *command `json:"command,omitempty"`
}

type command struct {
	Title   string `json:"title"`
	Command string `json:"command"`
}

type codeLensParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

// codeLenses puts the impact of an unsaved edit on the valid_from and
// valid_until lines it changed (on valid_from when the edit is elsewhere
// in the file). A saved file, or a server without case files, has none.
func codeLenses(v *view, res *impactResult) []codeLens {
	out := []codeLens{}
	if res == nil || !res.changed {
		return out
	}
	at := map[string]int{}
	for i := 1; i < v.fmEnd; i++ {
		for _, k := range []string{"valid_from", "valid_until"} {
			if strings.HasPrefix(v.lines[i], k+":") {
				at[k] = i
			}
		}
	}
	var keys []string
	for _, k := range []string{"valid_from", "valid_until"} {
		if i, ok := at[k]; ok && strings.TrimSpace(v.lines[i]) != res.saved[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		if _, ok := at["valid_from"]; !ok {
			return out
		}
		keys = []string{"valid_from"}
	}
	title := res.lensTitle()
	for _, k := range keys {
		i := at[k]
		out = append(out, codeLens{Range: lspRange{Start: position{Line: i}, End: position{Line: i, Character: utf16Col(v.lines[i], len([]rune(v.lines[i]))+1)}},
			Command: &command{Title: title}})
	}
	return out
}
