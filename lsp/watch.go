package lsp

// What the server reads from disk besides the open buffers, and how it
// learns that it changed. It reads three parts: the project file and the
// .ka2ignore beside it (the settings; a ka2.yaml created in a folder
// between the workspace folder and the project file's, or above the
// workspace folder without one, counts too), the case files and the
// contract definitions and content files they name, and the corpus's
// policy files and .ka2ignore files with the .ka2lint.yaml found from
// the corpus folder up. A client that can watch files for
// the server (dynamic registration of workspace/didChangeWatchedFiles) is
// asked to, and reports changes; for any other client the server compares
// a stamp of each part (every file's path, size and modification time)
// with the one it last read, on each hover, code lens and references
// request. Either way a change goes through reload, the one place the
// server forgets what it read.

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/lint"
	"github.com/ka2/ka2/project"
)

// part is a set of the parts of what the server reads from disk.
type part uint8

const (
	partProject part = 1 << iota // ka2.yaml (where Find looks for it) and the .ka2ignore beside it
	partCases                    // the case files and the contract files they name
	partCorpus                   // the corpus's policy files and .ka2ignore files, and .ka2lint.yaml
)

// watchID names the server's registration of watched files, to replace
// it when the settings change.
const watchID = "ka2-watched-files"

// fileDeleted is FileChangeType Deleted.
const fileDeleted = 3

// projectDir is the folder of the project file, or the workspace folder
// without one (where a new ka2.yaml would be found).
func (st Settings) projectDir() string {
	if st.Project != "" {
		return filepath.Clean(filepath.Dir(st.Project)) // Find's sub/../ka2.yaml is ka2.yaml to a watcher
	}
	return st.root
}

// projectDirs are the folders where project.Find looks for a ka2.yaml,
// nearest first: the workspace folder and each one above it, up to the
// project file's folder, or to the top without one. A ka2.yaml created
// (or deleted) in any of them changes which file the settings come from.
func (st Settings) projectDirs() []string {
	if st.Project == "" {
		return upward(st.root, "")
	}
	start := st.root
	if start == "" {
		start = st.projectDir()
	}
	return upward(start, st.projectDir())
}

// lintDirs are the folders where lint.FindConfigOS looks for a
// .ka2lint.yaml: the corpus folder and each one above it. All of them,
// not only up to the one found: a file above it does not change the
// diagnostics, and reading it again costs one lint, not a wrong answer.
func (st Settings) lintDirs() []string { return upward(st.Corpus, "") }

// upward lists dir and each folder above it, up to stop (included) or
// the top of the file system.
func upward(dir, stop string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	for d := filepath.Clean(dir); ; {
		out = append(out, d)
		parent := filepath.Dir(d)
		if d == stop || parent == d {
			return out
		}
		d = parent
	}
}

// watchers are the globs of the files the server reads: absolute globs,
// or globs relative to a folder when the client takes them.
func (st Settings) watchers(relative bool) []fileSystemWatcher {
	var out []fileSystemWatcher
	add := func(dir, pattern string) {
		if dir == "" {
			return
		}
		if relative {
			out = append(out, fileSystemWatcher{GlobPattern: relativePattern{BaseURI: fileURI(dir), Pattern: pattern}})
			return
		}
		out = append(out, fileSystemWatcher{GlobPattern: strings.TrimSuffix(filepath.ToSlash(dir), "/") + "/" + pattern})
	}
	add(st.projectDir(), project.FileName)
	add(st.projectDir(), corpus.IgnoreFile)
	for _, c := range st.Cases {
		if strings.HasSuffix(c, ".yaml") {
			add(filepath.Dir(c), filepath.Base(c)) // one case file
			continue
		}
		add(c, "**/*.yaml")
	}
	add(st.Corpus, "**/*.md")
	add(st.Corpus, "**/"+corpus.IgnoreFile)
	// Single files last, so that the globs above keep their places: the
	// other folders a ka2.yaml would be found in, the contract files,
	// and where a .ka2lint.yaml would be found.
	for _, d := range st.projectDirs() {
		if d != st.projectDir() {
			add(d, project.FileName)
		}
	}
	for _, f := range st.contracts {
		add(filepath.Dir(f), filepath.Base(f))
	}
	for _, d := range st.lintDirs() {
		add(d, lint.ConfigFile)
	}
	return out
}

// affected says which parts a change of the file p touches. A deleted
// folder counts for the part it is in.
func (st Settings) affected(p string, deleted bool) part {
	var k part
	name, dir := filepath.Base(p), filepath.Dir(p)
	switch {
	case name == project.FileName && slices.Contains(st.projectDirs(), dir),
		name == corpus.IgnoreFile && dir == st.projectDir():
		k |= partProject
	}
	for _, c := range st.Cases {
		if _, ok := below(c, p); ok && (strings.HasSuffix(name, ".yaml") || deleted) {
			k |= partCases
		}
	}
	for _, f := range st.contracts {
		if _, ok := below(p, f); f == p || ok && deleted {
			k |= partCases
		}
	}
	if _, ok := below(st.Corpus, p); ok && (strings.HasSuffix(name, ".md") || name == corpus.IgnoreFile || deleted) {
		k |= partCorpus
	}
	if name == lint.ConfigFile && slices.Contains(st.lintDirs(), dir) {
		k |= partCorpus
	}
	return k
}

// stamps are digests of the three parts as they are on disk.
type stamps struct{ project, cases, corpus uint64 }

// stamps reads the parts' stamps: one stat per file, and a walk of the
// case and corpus folders (folders starting with "." left out). What it
// covers is a superset of what is read, so it may see a change that
// does not matter, never miss one that does (short of a rewrite that
// keeps a file's size and modification time).
func (st Settings) stamps() stamps {
	proj := newStamper()
	for _, d := range st.projectDirs() {
		proj.stat(filepath.Join(d, project.FileName))
	}
	proj.stat(filepath.Join(st.projectDir(), corpus.IgnoreFile))
	cases := newStamper()
	for _, c := range st.Cases {
		cases.walk(c, isCaseFile)
	}
	for _, f := range st.contracts {
		cases.stat(f)
	}
	return stamps{project: proj.Sum64(), cases: cases.Sum64(), corpus: st.corpusStamp()}
}

// corpusStamp is the corpus part's stamp: its policy files and
// .ka2ignore files, and the .ka2lint.yaml files lint could find.
func (st Settings) corpusStamp() uint64 {
	corp := newStamper()
	corp.walk(st.Corpus, func(name string) bool { return strings.HasSuffix(name, ".md") || name == corpus.IgnoreFile })
	for _, d := range st.lintDirs() {
		corp.stat(filepath.Join(d, lint.ConfigFile))
	}
	return corp.Sum64()
}

// isCaseFile keeps the names of files that may be case files.
func isCaseFile(name string) bool { return strings.HasSuffix(name, ".yaml") }

// stamper digests files' paths, sizes and modification times.
type stamper struct{ hash.Hash64 }

func newStamper() stamper { return stamper{fnv.New64a()} }

func (h stamper) file(p string, info fs.FileInfo) {
	fmt.Fprintf(h, "%s\x00%v\n", p, corpus.StampOf(info))
}

// stat adds the file p, when there is one.
func (h stamper) stat(p string) {
	if info, err := os.Stat(p); err == nil {
		h.file(p, info)
	}
}

// walk adds the files below root whose names keep keeps.
func (h stamper) walk(root string, keep func(name string) bool) {
	walkFiles(root, keep, func(p string, d fs.DirEntry, err error) {
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\n", p)
			return
		}
		if info, err := d.Info(); err == nil {
			h.file(p, info)
		}
	})
}

// walkFiles calls visit with each file below root (root itself when it
// is a file) whose name keep keeps, leaving out folders starting with
// "."; an entry that cannot be read comes with its error.
func walkFiles(root string, keep func(name string) bool, visit func(p string, d fs.DirEntry, err error)) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			visit(p, d, err)
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case !d.IsDir() && keep(d.Name()):
			visit(p, d, nil)
		}
		return nil
	})
}

// contractFiles lists what golden.Load reads besides the case files in
// cases: each contract definition a case names and the content file it
// names, absolute and sorted; nil when no case names one. A case file
// or definition that does not parse adds what it can: once it is fixed,
// it changed, and the list is made again.
func contractFiles(cases []string) []string {
	defs := map[string]bool{}
	for _, c := range cases {
		walkFiles(c, isCaseFile, func(p string, _ fs.DirEntry, err error) {
			if err != nil {
				return
			}
			data, err := inputfile.ReadFile(p, inputfile.MaxSize)
			if err != nil {
				return
			}
			f, err := golden.ParseFile(p, data)
			if err != nil {
				return
			}
			for _, c := range f.Cases {
				if c.Config.Contract != "" {
					defs[filepath.Clean(filepath.FromSlash(c.Config.Contract))] = true
				}
			}
		})
	}
	var out []string
	for d := range defs {
		out = append(out, d)
		if name := contentName(d); name != "" {
			out = append(out, filepath.Join(filepath.Dir(d), filepath.FromSlash(name)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// contentName is the content file the contract definition def names in
// "content" (contract.LoadDefinition looks for it beside def), or "" when
// def cannot be read or names none. contract.LoadDefinition says what is
// wrong with it; this only finds the file to watch.
func contentName(def string) string {
	data, err := inputfile.ReadFile(def, inputfile.MaxSize)
	if err != nil {
		return ""
	}
	doc, err := strict.ParseJSON(data)
	if err != nil {
		return ""
	}
	top := strict.Root(doc)
	if top == nil || top.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		if k, v := top.Content[i], top.Content[i+1]; k.Value == "content" && v.Tag == "!!str" {
			return v.Value
		}
	}
	return ""
}

// changed lists the parts whose stamps differ.
func (a stamps) changed(b stamps) part {
	var k part
	if a.project != b.project {
		k |= partProject
	}
	if a.cases != b.cases {
		k |= partCases
	}
	if a.corpus != b.corpus {
		k |= partCorpus
	}
	return k
}

// watch asks the client to watch the files the server reads, when it
// can be asked.
func (s *Server) watch() {
	s.mu.Lock()
	st, can, relative := s.settings, s.canWatch, s.relGlobs
	s.mu.Unlock()
	if !can {
		return
	}
	id, err := s.conn.request("client/registerCapability", map[string]any{"registrations": []registration{{
		ID: watchID, Method: "workspace/didChangeWatchedFiles",
		RegisterOptions: map[string]any{"watchers": st.watchers(relative)},
	}}})
	if err != nil {
		s.logf("watch files: %v", err)
	}
	s.mu.Lock()
	s.watching, s.registerID = err == nil, id
	s.mu.Unlock()
}

// response reads the client's answer to a request of the server's own.
// Only a refused registration matters: the server then checks the disk
// itself, from what it last read.
func (s *Server) response(ctx context.Context, m *message) {
	if m.ID == nil || m.Error == nil {
		return
	}
	s.mu.Lock()
	refused := s.watching && idKey(*m.ID) == s.registerID
	if refused {
		s.watching = false
	}
	s.mu.Unlock()
	if refused {
		s.logf("the client does not watch files (%s); checking them on each request instead", m.Error.Message)
		s.checkDisk(ctx)
	}
}

// filesChanged handles workspace/didChangeWatchedFiles. The change of a
// policy file the server has just read on save is left out (see saved).
func (s *Server) filesChanged(ctx context.Context, changes []fileEvent) {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	var k part
	for _, c := range changes {
		p := uriPath(c.URI)
		if p == "" {
			continue
		}
		p = filepath.Clean(p)
		if c.Type != fileDeleted && s.sameAsSaved(p) {
			continue
		}
		k |= st.affected(p, c.Type == fileDeleted)
	}
	s.reload(ctx, k)
}

// saved handles didSave of the file at uri, with the text saved when the
// client sent it: the saved corpus changed, so it is read again (reload).
// The client will report the same change of the file again, when it
// watches files, or it shows in the corpus's stamp, when it does not;
// so that the save is read once, the server keeps the text it read (the
// notification of the file is left out while the file on disk still
// holds it) or the corpus's stamp taken before reading (any change after
// it still differs from it).
func (s *Server) saved(ctx context.Context, uri string, text *string) {
	s.mu.Lock()
	st, watching := s.settings, s.watching
	s.mu.Unlock()
	var corp uint64
	if !watching {
		corp = st.corpusStamp()
	}
	if rel, ok := s.relPath(uri); ok {
		s.mu.Lock()
		if text != nil {
			s.docs[rel] = *text
		}
		if t, open := s.docs[rel]; open {
			s.bump(rel)
			if watching {
				s.justSaved[filepath.Clean(uriPath(uri))] = t
			}
		}
		s.mu.Unlock()
	}
	if !watching {
		s.mu.Lock()
		s.disk.corpus = corp
		s.mu.Unlock()
	}
	s.reload(ctx, partCorpus)
}

// sameAsSaved says whether p was read on save and still holds the text
// read then; either way the text is forgotten, so that only the one
// notification of the save is left out.
func (s *Server) sameAsSaved(p string) bool {
	s.mu.Lock()
	text, ok := s.justSaved[p]
	delete(s.justSaved, p)
	s.mu.Unlock()
	if !ok {
		return false
	}
	data, err := inputfile.ReadFile(p, inputfile.MaxSize)
	return err == nil && string(data) == text
}

// checkDisk, for a client that does not watch files, compares the disk
// with what the server last read, and reloads what changed. It costs a
// stat per case file and policy file.
func (s *Server) checkDisk(ctx context.Context) {
	s.mu.Lock()
	st, watching, was := s.settings, s.watching, s.disk
	s.mu.Unlock()
	if watching {
		return
	}
	now := st.stamps()
	k := was.changed(now)
	if k == 0 {
		return
	}
	s.mu.Lock()
	s.disk = now
	s.mu.Unlock()
	s.reload(ctx, k)
}

// reload forgets what the server read of the parts k: a changed project
// file decides the settings again (and then everything is read again); a
// changed case file or contract file drops the loaded case files, and
// finds the contract files again (to watch those the case files name
// now); any change drops the cached impacts. It lints the corpus again and publishes the
// diagnostics when the corpus or the settings changed, and asks the
// client to fetch the code lenses again.
func (s *Server) reload(ctx context.Context, k part) {
	if k&partProject != 0 {
		s.mu.Lock()
		p := s.params
		s.mu.Unlock()
		st, err := resolveSettings(p, s.trust())
		for _, sk := range st.skipped {
			s.logSkipped(sk)
		}
		if bad := (badProject{}); errors.As(err, &bad) {
			err = fmt.Errorf("%w (fix %s; until then the language server keeps the settings it had)", bad.error, project.FileName)
		}
		if err != nil {
			s.logf("%v", err)
			if err := s.conn.notify("window/showMessage", showMessageParams{Type: messageError, Message: "ka2: " + err.Error()}); err != nil {
				s.logf("show message: %v", err)
			}
			k &^= partProject
		} else {
			s.setSettings(st)
			k |= partCases | partCorpus
		}
	} else if k&partCases != 0 {
		s.mu.Lock()
		st := s.settings
		s.mu.Unlock()
		if files := contractFiles(st.Cases); !slices.Equal(files, st.contracts) {
			st.contracts = files
			s.setSettings(st)
		}
	}
	if k == 0 {
		return
	}
	s.mu.Lock()
	s.gen++
	clear(s.impacts)
	if k&partCases != 0 {
		s.suite = nil
	}
	lensRefresh := s.lensRefresh
	s.mu.Unlock()
	if k&partCorpus != 0 {
		s.refresh(ctx)
	}
	if lensRefresh {
		s.refreshLenses()
	}
}

// setSettings puts new settings in place. Open buffers are kept by path
// when the corpus folder moves (those left outside it are dropped), the
// diagnostics published under the old folder are cleared, and the
// client is asked to watch the new settings' files.
func (s *Server) setSettings(st Settings) {
	s.mu.Lock()
	old := s.settings
	s.settings = st
	var gone []string
	if old.Corpus != st.Corpus {
		docs := map[string]string{}
		for rel, text := range s.docs {
			if nrel, ok := below(st.Corpus, filepath.Join(old.Corpus, filepath.FromSlash(rel))); ok {
				docs[nrel] = text
			}
		}
		s.docs = docs
		clear(s.revs)
		clear(s.dirty)
		for rel := range s.docs {
			s.bump(rel)
		}
		for p := range s.published {
			gone = append(gone, fileURI(filepath.Join(old.Corpus, filepath.FromSlash(p))))
		}
		clear(s.published)
	}
	watching := s.watching
	s.mu.Unlock()
	slices.Sort(gone)
	for _, uri := range gone {
		if err := s.conn.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Diagnostics: []diagnostic{}}); err != nil {
			s.logf("publish diagnostics: %v", err)
		}
	}
	if watching {
		unreg := map[string]any{"unregisterations": []registration{{ID: watchID, Method: "workspace/didChangeWatchedFiles"}}} // sic, LSP's spelling
		if _, err := s.conn.request("client/unregisterCapability", unreg); err != nil {
			s.logf("watch files: %v", err)
		}
		s.watch()
	}
}

// loadedCases is the case files as golden.Load read them, or why they
// did not load.
type loadedCases struct {
	suite *golden.Suite
	err   error
}

// caseSuite returns the configured case files as ka2 regress reads them
// (golden.Load: every file, checked, or the problems of all): the one way
// the server reads cases, for impact, hover and references. It is cached
// until a case file changes; errNoCases without case files.
func (s *Server) caseSuite(ctx context.Context) (*golden.Suite, error) {
	s.mu.Lock()
	st, cached, gen := s.settings, s.suite, s.gen
	s.mu.Unlock()
	if len(st.Cases) == 0 {
		return nil, errNoCases
	}
	if cached != nil {
		return cached.suite, cached.err
	}
	// Impact builds every case with the two corpora it compares, and
	// references select with the corpus as the editor has it: the corpora
	// the case files name are not loaded; an empty one stands in.
	empty, err := corpus.New(nil)
	if err != nil {
		return nil, err
	}
	suite, err := golden.Load(ctx, st.Cases, golden.LoadOptions{Corpus: empty})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	s.mu.Lock()
	if s.gen == gen { // not when a case file changed meanwhile
		s.suite = &loadedCases{suite: suite, err: err}
	}
	s.mu.Unlock()
	return suite, err
}
