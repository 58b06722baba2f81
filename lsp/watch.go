package lsp

// What the server reads from disk besides the open buffers, and how it
// learns that it changed. It reads three parts: the project file and the
// .ka2ignore beside it (the settings), the case files, and the corpus's
// policy files and .ka2ignore files. A client that can watch files for
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

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/project"
)

// part is a set of the parts of what the server reads from disk.
type part uint8

const (
	partProject part = 1 << iota // ka2.yaml and the .ka2ignore beside it
	partCases                    // the case files
	partCorpus                   // the corpus's policy files and .ka2ignore files
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
	return out
}

// affected says which parts a change of the file p touches. A deleted
// folder counts for the part it is in.
func (st Settings) affected(p string, deleted bool) part {
	var k part
	name := filepath.Base(p)
	if (name == project.FileName || name == corpus.IgnoreFile) && filepath.Dir(p) == st.projectDir() {
		k |= partProject
	}
	for _, c := range st.Cases {
		if _, ok := below(c, p); ok && (strings.HasSuffix(name, ".yaml") || deleted) {
			k |= partCases
		}
	}
	if _, ok := below(st.Corpus, p); ok && (strings.HasSuffix(name, ".md") || name == corpus.IgnoreFile || deleted) {
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
	for _, name := range []string{project.FileName, corpus.IgnoreFile} {
		proj.stat(filepath.Join(st.projectDir(), name))
	}
	cases := newStamper()
	for _, c := range st.Cases {
		cases.walk(c, func(name string) bool { return strings.HasSuffix(name, ".yaml") })
	}
	corp := newStamper()
	corp.walk(st.Corpus, func(name string) bool { return strings.HasSuffix(name, ".md") || name == corpus.IgnoreFile })
	return stamps{project: proj.Sum64(), cases: cases.Sum64(), corpus: corp.Sum64()}
}

// stamper digests files' paths, sizes and modification times.
type stamper struct{ hash.Hash64 }

func newStamper() stamper { return stamper{fnv.New64a()} }

func (h stamper) file(p string, info fs.FileInfo) {
	fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
}

// stat adds the file p, when there is one.
func (h stamper) stat(p string) {
	if info, err := os.Stat(p); err == nil {
		h.file(p, info)
	}
}

// walk adds the files below root whose names keep keeps.
func (h stamper) walk(root string, keep func(name string) bool) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			fmt.Fprintf(h, "%s\x00unreadable\n", p)
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case !d.IsDir() && keep(d.Name()):
			if info, err := d.Info(); err == nil {
				h.file(p, info)
			}
		}
		return nil
	})
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

// filesChanged handles workspace/didChangeWatchedFiles.
func (s *Server) filesChanged(ctx context.Context, changes []fileEvent) {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	var k part
	for _, c := range changes {
		if p := uriPath(c.URI); p != "" {
			k |= st.affected(filepath.Clean(p), c.Type == fileDeleted)
		}
	}
	s.reload(ctx, k)
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
// changed case file drops the loaded case files; any change drops the
// cached impacts. It lints the corpus again and publishes the
// diagnostics when the corpus or the settings changed, and asks the
// client to fetch the code lenses again.
func (s *Server) reload(ctx context.Context, k part) {
	if k&partProject != 0 {
		s.mu.Lock()
		p := s.params
		s.mu.Unlock()
		st, err := resolveSettings(p)
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
