package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/lint"
	"github.com/ka2/ka2/project"
)

// Options are what the server takes from the world outside: the clock,
// the timer that debounces linting as you type, and where to log.
type Options struct {
	// Now is the clock, for future_source and "applies today"; nil is
	// time.Now.
	Now func() time.Time
	// AfterFunc calls f once d has passed, unless the returned stop is
	// called first; nil is time.AfterFunc. Tests inject one they fire by
	// hand.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Debounce is how long after the last change an open file is linted;
	// 0 means 300ms.
	Debounce time.Duration
	// Log receives messages about the server itself (not findings); nil
	// discards them.
	Log io.Writer
	// Trust says whose ka2.yaml, .ka2ignore and .ka2lint.yaml, found from
	// the workspace folder upward, are used; one it does not believe is
	// ignored, with a log message. nil is the user the server runs as
	// (and root), with no folder allowed beyond.
	Trust *project.Trust

	// impactStart, when set, is called as an impact build starts, with
	// its context: tests count builds and cancel one in flight.
	impactStart func(ctx context.Context)
	// lintStart, when set, is called as a lint of the corpus starts:
	// tests count lints.
	lintStart func()
}

// Settings say what the server lints.
type Settings struct {
	// Corpus is the folder of policy files, absolute.
	Corpus string `json:"corpus"`
	// Cases are case files or folders, absolute; empty when not
	// configured.
	Cases []string `json:"cases"`
	// Project is the project file (ka2.yaml) the settings came from, ""
	// without one.
	Project string `json:"project,omitempty"`

	project   *project.Config   // its exclusions narrow the corpus
	skipped   []project.Skipped // project files ignored for their owner
	root      string            // the workspace folder, for paths in messages
	contracts []string          // the contract files the case files name (watch.go)
}

// show writes an absolute path relative to the workspace folder, slash
// separated, when it is inside it.
func (st Settings) show(p string) string {
	if st.root != "" {
		if rel, err := filepath.Rel(st.root, filepath.FromSlash(p)); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// filter narrows the corpus folder's files to those the project's exclude
// globs and .ka2ignore leave, as the CLI does.
func (st Settings) filter(fsys fs.FS) fs.FS {
	if st.project == nil {
		return fsys
	}
	return st.project.Filter(st.Corpus, fsys)
}

// initOptions are the client's initializationOptions: paths relative to
// the first workspace folder.
type initOptions struct {
	Corpus string   `json:"corpus"`
	Cases  []string `json:"cases"`
}

type initializeParams struct {
	RootURI          string          `json:"rootUri"`
	RootPath         string          `json:"rootPath"`
	InitOptions      json.RawMessage `json:"initializationOptions"`
	WorkspaceFolders []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
	Capabilities struct {
		Workspace struct {
			CodeLens struct {
				RefreshSupport bool `json:"refreshSupport"`
			} `json:"codeLens"`
			DidChangeWatchedFiles struct {
				DynamicRegistration    bool `json:"dynamicRegistration"`
				RelativePatternSupport bool `json:"relativePatternSupport"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
	} `json:"capabilities"`
}

// badProject is a project file that does not load. Each caller of
// resolveSettings says what to do about it: at initialize, restart the
// server once it is fixed; later, the server keeps the settings it had.
type badProject struct{ error }

func (b badProject) Unwrap() error { return b.error }

// resolveSettings is the one place the server's settings are decided:
// initializationOptions over the project file (ka2.yaml in the workspace
// folder or the nearest folder above it, read as the CLI reads it) over
// the workspace folder itself. The project's exclusions apply to
// whichever corpus folder wins. A project file that does not load is an
// error: linting without it would lint other files than ka2 lint does.
func resolveSettings(p initializeParams, t *project.Trust) (Settings, error) {
	root := ""
	if len(p.WorkspaceFolders) > 0 {
		root = uriPath(p.WorkspaceFolders[0].URI)
	}
	if root == "" && p.RootURI != "" {
		root = uriPath(p.RootURI)
	}
	if root == "" {
		root = p.RootPath
	}
	var o initOptions
	if len(p.InitOptions) > 0 && string(p.InitOptions) != "null" {
		if err := json.Unmarshal(p.InitOptions, &o); err != nil {
			return Settings{}, fmt.Errorf("initializationOptions: %v; send {\"corpus\": \"FOLDER\", \"cases\": [\"FOLDER\"]}", err)
		}
	}
	s := Settings{root: root}
	if root != "" {
		found, skipped, err := project.Find(root, t)
		if err != nil {
			return Settings{}, err
		}
		s.skipped = skipped
		if found != "" {
			cfg, err := project.Load(found, t)
			if err != nil {
				return Settings{}, badProject{err}
			}
			s.Project, s.project = found, cfg
			s.skipped = append(s.skipped, cfg.Skipped...)
		}
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	switch {
	case o.Corpus != "":
		s.Corpus = abs(o.Corpus)
	case s.project != nil && s.project.Corpus != "":
		s.Corpus = s.project.Corpus
	default:
		s.Corpus = root
	}
	for _, c := range o.Cases {
		s.Cases = append(s.Cases, abs(c))
	}
	if len(o.Cases) == 0 && s.project != nil && s.project.Cases != "" {
		s.Cases = []string{s.project.Cases}
	}
	if s.Corpus == "" {
		return Settings{}, errors.New("no corpus folder: open a workspace folder, or send initializationOptions {\"corpus\": \"FOLDER\"}")
	}
	s.contracts = contractFiles(s.Cases)
	return s, nil
}

// Server is one language server session.
type Server struct {
	opts Options
	conn *conn

	mu          sync.Mutex
	params      initializeParams // the settings are decided again from these when ka2.yaml changes
	settings    Settings
	initialized bool
	shutdown    bool
	docs        map[string]string // open buffers by path relative to the corpus
	published   map[string]bool   // paths that have diagnostics on the client
	stopTimer   func() bool
	snap        *snapshot // the last lint of the corpus as the editor has it

	// Each open buffer has a revision, bumped on every open, change and
	// save; impacts are cached per revision.
	rev         int
	revs        map[string]int
	impacts     map[string]impactEntry
	dirty       map[string]bool    // buffers changed since the last debounced impact build
	stopWarm    context.CancelFunc // stops the debounced impact build under way
	lensRefresh bool               // the client takes workspace/codeLens/refresh

	// What the server read from disk (watch.go): the case files as golden
	// loads them, nil until needed and after they change; gen, bumped on
	// every change on disk, so that an impact built before it is not
	// cached; and how changes are learnt of.
	suite      *loadedCases
	gen        int
	canWatch   bool              // the client can be asked to watch files (dynamic registration)
	relGlobs   bool              // ... with globs relative to a folder
	watching   bool              // it was asked, and did not refuse: it reports changes
	registerID string            // the id of that request, to see its answer
	disk       stamps            // what was on disk when last read, for a client that does not watch
	justSaved  map[string]string // policy files read on save, by path: their text then (watch.go)

	inflight   map[string]context.CancelFunc // requests answered off the read loop, by id
	skipLogged map[string]bool               // settings files ignored for their owner, logged once
	wg         sync.WaitGroup
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// before shutdown: LSP says the server then exits with code 1.
var ErrExitWithoutShutdown = errors.New("lsp: exit before shutdown")

// Serve runs a server on r and w until the client sends exit, r ends or
// ctx is done.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	s := newServer(opts, newConn(r, w))
	defer func() {
		s.mu.Lock()
		if s.stopTimer != nil {
			s.stopTimer()
		}
		if s.stopWarm != nil {
			s.stopWarm()
		}
		for _, cancel := range s.inflight {
			cancel()
		}
		s.mu.Unlock()
		s.wg.Wait()
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		body, err := s.conn.read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			s.conn.reply(nil, nil, &rpcError{Code: codeParseError, Message: err.Error()})
			continue
		}
		if m.Method == "" {
			s.response(ctx, &m) // to a request of ours
			continue
		}
		if m.Method == "exit" {
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if !down {
				return ErrExitWithoutShutdown
			}
			return nil
		}
		result, rerr := s.handle(ctx, &m)
		if d, ok := result.(deferred); ok && m.ID != nil {
			s.answerLater(ctx, m.ID, d)
			continue
		}
		if m.ID != nil {
			if err := s.conn.reply(m.ID, result, rerr); err != nil {
				return err
			}
		}
	}
}

func newServer(opts Options, c *conn) *Server {
	return &Server{opts: opts, conn: c, docs: map[string]string{}, published: map[string]bool{},
		revs: map[string]int{}, impacts: map[string]impactEntry{}, dirty: map[string]bool{}, inflight: map[string]context.CancelFunc{},
		justSaved: map[string]string{}, skipLogged: map[string]bool{}}
}

// deferred answers a request off the read loop, so that a long one (an
// impact build) can be cancelled with $/cancelRequest while the loop
// reads on. What it reads of the server's state was taken when the
// request arrived, so a later change cannot mix into its answer.
type deferred func(ctx context.Context) (any, *rpcError)

// answerLater runs d with a context that $/cancelRequest for id, or the
// end of Serve, cancels.
func (s *Server) answerLater(ctx context.Context, id *json.RawMessage, d deferred) {
	rctx, cancel := context.WithCancel(ctx)
	key := idKey(*id)
	s.mu.Lock()
	s.inflight[key] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		result, rerr := d(rctx)
		if rerr == nil && rctx.Err() != nil {
			result, rerr = nil, &rpcError{Code: codeRequestCancelled, Message: "request cancelled"}
		}
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		cancel()
		if err := s.conn.reply(id, result, rerr); err != nil {
			s.logf("reply: %v", err)
		}
	}()
}

// idKey is a request id as a map key: a number and a string stay apart.
func idKey(id json.RawMessage) string { return strings.TrimSpace(string(id)) }

// bump gives the buffer rel a new revision; its cached impact no longer
// applies.
func (s *Server) bump(rel string) {
	s.rev++
	s.revs[rel] = s.rev
	s.dirty[rel] = true
}

// trust is Options.Trust, or the user the server runs as.
func (s *Server) trust() *project.Trust {
	if s.opts.Trust != nil {
		return s.opts.Trust
	}
	return &project.Trust{UID: os.Getuid()}
}

// logSkipped logs, once per file, a settings file ignored for its owner.
func (s *Server) logSkipped(sk project.Skipped) {
	s.mu.Lock()
	seen := s.skipLogged[sk.Path]
	s.skipLogged[sk.Path] = true
	s.mu.Unlock()
	if !seen {
		s.logf("ignoring %s: it is owned by user %d, neither you nor root; trust its folder to use it", sk.Path, sk.Owner)
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "ka2 lsp: "+format+"\n", args...)
	}
}

func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

func (s *Server) today() corpus.Date {
	d, _ := corpus.ParseDate(s.now().Format("2006-01-02"))
	return d
}

func invalidParams(err error) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: err.Error()}
}

// answer decodes a request's params and answers it with f.
func answer[P any](params json.RawMessage, f func(P) any) (any, *rpcError) {
	var p P
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams(err)
	}
	return f(p), nil
}

// handle answers one request or notification.
func (s *Server) handle(ctx context.Context, m *message) (any, *rpcError) {
	s.mu.Lock()
	ready := s.initialized
	s.mu.Unlock()
	if !ready && m.Method != "initialize" {
		if m.ID == nil {
			return nil, nil // notifications before initialize are dropped
		}
		return nil, &rpcError{Code: codeServerNotInit, Message: "send initialize first"}
	}
	switch m.Method {
	case "initialize":
		var p initializeParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, invalidParams(err)
		}
		return s.initialize(p)
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(m.Params, &p); err == nil {
			s.mu.Lock()
			if cancel, ok := s.inflight[idKey(p.ID)]; ok {
				cancel()
			}
			s.mu.Unlock()
		}
		return nil, nil
	case "initialized":
		// Registration waits for initialized: LSP lets the server ask the
		// client nothing before it.
		s.watch()
		return nil, nil
	case "$/setTrace", "workspace/didChangeConfiguration":
		return nil, nil
	case "workspace/didChangeWatchedFiles":
		return notice(m.Params, func(p didChangeWatchedFilesParams) { s.filesChanged(ctx, p.Changes) })
	case "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, nil
	case "textDocument/didOpen":
		return notice(m.Params, func(p didOpenParams) { s.didOpen(ctx, p) })
	case "textDocument/didChange":
		return notice(m.Params, func(p didChangeParams) { s.didChange(ctx, p) })
	case "textDocument/didSave":
		return notice(m.Params, func(p didSaveParams) { s.saved(ctx, p.TextDocument.URI, p.Text) })
	case "textDocument/didClose":
		return notice(m.Params, func(p didSaveParams) { s.didClose(ctx, p) })
	case "textDocument/hover":
		s.checkDisk(ctx)
		return answer(m.Params, func(p positionParams) any { return s.hover(ctx, p) })
	case "textDocument/codeLens":
		s.checkDisk(ctx)
		return answer(m.Params, s.codeLens)
	case "textDocument/completion":
		return answer(m.Params, s.completion)
	case "textDocument/definition":
		return answer(m.Params, s.definition)
	case "textDocument/references":
		s.checkDisk(ctx)
		return answer(m.Params, func(p positionParams) any { return s.references(ctx, p) })
	case "textDocument/codeAction":
		return answer(m.Params, s.codeActions)
	}
	if m.ID == nil {
		return nil, nil // unknown notifications are ignored
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "method not supported: " + m.Method}
}

// notice decodes a notification's params and handles it with f; a
// notification has no result.
func notice[P any](params json.RawMessage, f func(P)) (any, *rpcError) {
	var p P
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams(err)
	}
	f(p)
	return nil, nil
}

// initialize resolves the settings the client's initialize asks for and
// answers with the server's capabilities.
func (s *Server) initialize(p initializeParams) (any, *rpcError) {
	st, err := resolveSettings(p, s.trust())
	for _, sk := range st.skipped {
		s.logSkipped(sk)
	}
	if bad := (badProject{}); errors.As(err, &bad) {
		err = fmt.Errorf("%w (fix %s and restart the language server)", bad.error, project.FileName)
	}
	if err != nil {
		return nil, invalidParams(err)
	}
	disk := st.stamps()
	s.mu.Lock()
	s.params, s.settings, s.initialized = p, st, true
	s.lensRefresh = p.Capabilities.Workspace.CodeLens.RefreshSupport
	s.canWatch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.relGlobs = p.Capabilities.Workspace.DidChangeWatchedFiles.RelativePatternSupport
	s.disk = disk
	s.mu.Unlock()
	s.logf("corpus %s", st.Corpus)
	if st.Project != "" {
		s.logf("project file %s", st.Project)
	}
	return map[string]any{
		"capabilities": map[string]any{
			"textDocumentSync":   map[string]any{"openClose": true, "change": syncFull, "save": map[string]any{"includeText": true}},
			"hoverProvider":      true,
			"completionProvider": map[string]any{"triggerCharacters": []string{":", " ", "[", ",", "-"}},
			"definitionProvider": true,
			"referencesProvider": true,
			"codeActionProvider": map[string]any{"codeActionKinds": []string{"quickfix"}},
			"codeLensProvider":   map[string]any{"resolveProvider": false},
		},
		"serverInfo": map[string]any{"name": "ka2"},
	}, nil
}

// didOpen keeps an opened document's text, in place of the file's, and
// lints again.
func (s *Server) didOpen(ctx context.Context, p didOpenParams) {
	if rel, ok := s.relPath(p.TextDocument.URI); ok {
		s.mu.Lock()
		s.docs[rel] = p.TextDocument.Text
		s.bump(rel)
		s.mu.Unlock()
		s.refresh(ctx)
	}
}

// didChange keeps a changed document's text and lints after the
// debounce delay.
func (s *Server) didChange(ctx context.Context, p didChangeParams) {
	rel, ok := s.relPath(p.TextDocument.URI)
	if !ok || len(p.ContentChanges) == 0 {
		return
	}
	s.mu.Lock()
	// Full sync: the last change holds the whole text.
	s.docs[rel] = p.ContentChanges[len(p.ContentChanges)-1].Text
	s.bump(rel)
	s.mu.Unlock()
	s.schedule(ctx)
}

// didClose forgets a closed document (the file on disk counts again) and
// lints again.
func (s *Server) didClose(ctx context.Context, p didSaveParams) {
	if rel, ok := s.relPath(p.TextDocument.URI); ok {
		s.mu.Lock()
		delete(s.docs, rel)
		delete(s.revs, rel)
		delete(s.impacts, rel)
		delete(s.dirty, rel)
		s.mu.Unlock()
		s.refresh(ctx)
	}
}

// schedule lints after the debounce delay, restarting it on each change.
func (s *Server) schedule(ctx context.Context) {
	after := s.opts.AfterFunc
	if after == nil {
		after = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	d := s.opts.Debounce
	if d == 0 {
		d = 300 * time.Millisecond
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopTimer != nil {
		s.stopTimer()
	}
	if s.stopWarm != nil {
		s.stopWarm() // a build for an older revision is of no use now
	}
	wctx, stop := context.WithCancel(ctx)
	s.stopWarm = stop
	s.stopTimer = after(d, func() {
		s.refresh(ctx)
		s.warm(wctx)
	})
}

// warm builds the impact of the buffers changed since the last build, so
// that code lenses and hover find it cached, and asks the client to fetch
// code lenses again when it can be asked. It runs once the debounce delay
// has passed, and stops when a newer change arrives.
func (s *Server) warm(ctx context.Context) {
	s.mu.Lock()
	type job struct {
		rel, text string
		rev       int
	}
	var jobs []job
	for rel := range s.dirty {
		if text, ok := s.docs[rel]; ok {
			jobs = append(jobs, job{rel, text, s.revs[rel]})
		}
	}
	clear(s.dirty)
	cases, refresh := len(s.settings.Cases) > 0, s.lensRefresh
	s.mu.Unlock()
	if !cases {
		return
	}
	slices.SortFunc(jobs, func(a, b job) int { return strings.Compare(a.rel, b.rel) })
	for _, j := range jobs {
		if _, err := s.impactFor(ctx, j.rel, j.text, j.rev); err != nil {
			if ctx.Err() == nil {
				s.logf("impact of %s: %v", j.rel, err)
			}
			return
		}
	}
	if refresh && len(jobs) > 0 {
		s.refreshLenses()
	}
}

// refreshLenses asks the client to fetch the code lenses again; call it
// only when the client said it takes workspace/codeLens/refresh.
func (s *Server) refreshLenses() {
	if _, err := s.conn.request("workspace/codeLens/refresh", nil); err != nil {
		s.logf("codeLens refresh: %v", err)
	}
}

// uriPath turns a file:// URI into a path; "" for other schemes.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// fileURI turns an absolute path into a file:// URI.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// relPath returns the slash path of uri relative to the corpus folder, and
// whether it is a policy file inside it.
func (s *Server) relPath(uri string) (string, bool) {
	s.mu.Lock()
	root := s.settings.Corpus
	s.mu.Unlock()
	rel, ok := below(root, uriPath(uri))
	if !ok || !strings.HasSuffix(rel, ".md") {
		return "", false
	}
	return rel, true
}

// below returns the slash path of p relative to root, and whether p is
// root or inside it.
func below(root, p string) (string, bool) {
	if p == "" || root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// uriOf is the URI of a path relative to the corpus folder.
func (s *Server) uriOf(rel string) string {
	return fileURI(filepath.Join(s.settings.Corpus, filepath.FromSlash(rel)))
}

// overlay is the corpus as the editor has it: open buffers over the
// files on disk. A buffer not saved yet (a new policy, in a folder that
// may be new too) is listed with the files on disk, so that it is linted
// like them.
type overlay struct {
	base  fs.FS
	files map[string]string
}

func (o overlay) Open(name string) (fs.File, error) {
	if text, ok := o.files[name]; ok {
		return fstest.MapFS{name: {Data: []byte(text), Mode: 0o644}}.Open(name)
	}
	f, err := o.base.Open(name)
	if errors.Is(err, fs.ErrNotExist) && o.holds(name) {
		return o.mapFS().Open(name) // a folder only buffers are in
	}
	return f, err
}

// ReadDir lists the folder name on disk with the buffers in it, or in
// folders below it, that are not on disk.
func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(o.base, name)
	if err != nil && !(errors.Is(err, fs.ErrNotExist) && o.holds(name)) {
		return ents, err
	}
	extra, _ := fs.ReadDir(o.mapFS(), name)
	seen := make(map[string]bool, len(ents))
	for _, e := range ents {
		seen[e.Name()] = true
	}
	for _, e := range extra {
		if !seen[e.Name()] {
			ents = append(ents, e)
		}
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, nil
}

// holds reports whether a buffer is in the folder name or below it.
func (o overlay) holds(name string) bool {
	for p := range o.files {
		if name == "." || strings.HasPrefix(p, name+"/") {
			return true
		}
	}
	return false
}

// mapFS is the buffers alone, as files.
func (o overlay) mapFS() fstest.MapFS {
	m := make(fstest.MapFS, len(o.files))
	for p, text := range o.files {
		m[p] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	return m
}

// snapshot is one lint of the corpus as the editor has it, with the
// sources that parsed, for hover, completion and definition.
type snapshot struct {
	report  lint.Report
	sources []*corpus.Source
	texts   map[string]string // every file's text, by path
}

// refresh lints the whole corpus with the open buffers and publishes the
// diagnostics of every file that has or had some.
func (s *Server) refresh(ctx context.Context) {
	s.mu.Lock()
	root := s.settings.Corpus
	docs := make(map[string]string, len(s.docs))
	for k, v := range s.docs {
		docs[k] = v
	}
	s.mu.Unlock()

	snap, err := s.lintCorpus(ctx, root, docs)
	if err != nil {
		s.logf("%v", err)
		return
	}
	byPath := map[string][]diagnostic{}
	for _, f := range snap.report.Findings {
		byPath[f.Path] = append(byPath[f.Path], s.toDiagnostic(snap, f))
	}
	s.mu.Lock()
	s.snap = snap
	var paths []string
	for p := range s.published {
		if byPath[p] == nil {
			paths = append(paths, p)
		}
	}
	s.published = map[string]bool{}
	for p := range byPath {
		s.published[p] = true
		paths = append(paths, p)
	}
	s.mu.Unlock()
	slices.Sort(paths)
	for _, p := range paths {
		diags := byPath[p]
		if diags == nil {
			diags = []diagnostic{}
		}
		if err := s.conn.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: s.uriOf(p), Diagnostics: diags}); err != nil {
			s.logf("publish diagnostics: %v", err)
		}
	}
}

// lintCorpus lints root with docs over it, with the .ka2lint.yaml found
// from root, and parses each file for the other features.
func (s *Server) lintCorpus(ctx context.Context, root string, docs map[string]string) (*snapshot, error) {
	if s.opts.lintStart != nil {
		s.opts.lintStart()
	}
	rootFS, done, err := corpus.OpenFolder(root)
	if err != nil {
		return nil, fmt.Errorf("open corpus: %w", err)
	}
	defer done()
	cfg, err := lint.FindConfigOS(root, func(path string) bool {
		sk, ok := s.trust().Believes(path)
		if !ok {
			s.logSkipped(sk)
		}
		return ok
	})
	if err != nil {
		s.logf("lint configuration: %v", err) // lint without it, as far as it goes
		cfg = nil
	}
	if cfg != nil {
		for _, d := range cfg.Renamed {
			s.logf("lint configuration: %v", d) // an old rule ID, still honoured
		}
	}
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	fsys := st.filter(overlay{base: rootFS, files: docs})
	rep, err := lint.Run(ctx, fsys, lint.Options{Today: s.today(), Config: cfg})
	if err != nil && !errors.Is(err, lint.ErrNoPolicyFiles) {
		return nil, err
	}
	snap := &snapshot{report: rep, texts: map[string]string{}}
	paths, _ := corpus.Files(fsys)
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			continue
		}
		snap.texts[p] = string(data)
		if src, err := corpus.Parse(p, data); err == nil {
			snap.sources = append(snap.sources, src)
		}
	}
	return snap, nil
}

// lines splits text as lint does: LF, with a CR before it dropped.
func lines(text string) []string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// rangeAt is the LSP range of the word at line and col (1-based, col in
// code points) in text: up to the next blank; the whole line when col is 0.
func rangeAt(text string, line, col int) lspRange {
	ls := lines(text)
	if line < 1 {
		line = 1
	}
	if line > len(ls) {
		return lspRange{Start: position{Line: line - 1}, End: position{Line: line - 1}}
	}
	l := ls[line-1]
	if col < 1 {
		return lspRange{Start: position{Line: line - 1}, End: position{Line: line - 1, Character: utf16Col(l, len(l)+1)}}
	}
	start := utf16Col(l, col)
	b := byteOffset(l, start)
	e := b
	for e < len(l) && l[e] != ' ' && l[e] != '\t' && l[e] != ',' && l[e] != ']' {
		e++
	}
	if e == b {
		e = len(l)
	}
	return lspRange{Start: position{Line: line - 1, Character: start}, End: position{Line: line - 1, Character: utf16Col(l, len([]rune(l[:e]))+1)}}
}

// toDiagnostic words a finding for the editor.
func (s *Server) toDiagnostic(snap *snapshot, f lint.Finding) diagnostic {
	sev := severityInformation
	switch f.Severity {
	case diag.SeverityError:
		sev = severityError
	case diag.SeverityWarning:
		sev = severityWarning
	}
	msg := f.Message
	if h := f.Hint.String(); h != "" {
		msg += "; " + h
	}
	d := diagnostic{Range: rangeAt(snap.texts[f.Path], f.Line, f.Col), Severity: sev, Code: f.Rule(), Source: "ka2", Message: msg}
	for _, rel := range f.Related {
		d.RelatedInformation = append(d.RelatedInformation, diagnosticRelated{
			Location: location{URI: s.uriOf(rel.Path), Range: rangeAt(snap.texts[rel.Path], rel.Line, rel.Col)},
			Message:  "the other source: " + path.Base(rel.Path),
		})
	}
	return d
}
