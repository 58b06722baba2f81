package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/internal/testutil"
)

// watchProject is a project whose ka2.yaml names the corpus and the case
// files; more/ holds other case files for ka2.yaml to switch to.
func watchProject(t *testing.T) string {
	t.Helper()
	return writeFiles(t, map[string]string{
		"ka2.yaml":             "corpus: policies\ncases: cases\n",
		"policies/hotel-v1.md": hotelV1,
		"policies/hotel-v2.md": hotelV2,
		"cases/trips.yaml":     "cases:\n  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}\n  - {name: b-2026, question: q, subject: lodging, dates: [2026-09-14]}\n",
		"more/trips.yaml":      "cases:\n  - {name: from-more, question: q, subject: lodging, dates: [2026-09-14]}\n",
	})
}

// write replaces a file of the project. Each test's rewrite changes the
// file's size, so that a stamp sees it even where the file system keeps
// modification times coarsely.
func write(t *testing.T, dir, name, text string) {
	t.Helper()
	testutil.WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
}

// sent returns the messages the server sent with method, after a round
// trip that makes sure it sent them.
func (c *client) sent(method string) []message {
	c.t.Helper()
	c.call("textDocument/hover", positionParams{}, nil) // a round trip
	var out []message
	for _, m := range c.drain() {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// unknownKey says whether the server, since the last drain, published
// diagnostics for uri, and whether the last of them has unknown_key.
func (c *client) unknownKey(uri string) (published, has bool) {
	c.t.Helper()
	for _, m := range c.sent("textDocument/publishDiagnostics") {
		var p publishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			c.t.Fatalf("publishDiagnostics params: %v", err)
		}
		if p.URI == uri {
			published, has = true, slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool { return d.Code == "unknown_key" })
		}
	}
	return published, has
}

// lensTitles are the titles of the code lenses of uri.
func (c *client) lensTitles(uri string) []string {
	c.t.Helper()
	var lenses []codeLens
	if err := c.call("textDocument/codeLens", codeLensParams{TextDocument: textDocumentIdentifier{URI: uri}}, &lenses); err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for _, l := range lenses {
		out = append(out, l.Command.Title)
	}
	return out
}

// caseRefs are the case files' lines among the references of uri's
// front matter.
func (c *client) caseRefs(uri string) []string {
	c.t.Helper()
	var refs []location
	c.call("textDocument/references", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 1}}, &refs)
	var out []string
	for _, r := range refs {
		if strings.HasSuffix(r.URI, ".yaml") {
			out = append(out, fmt.Sprintf("%s:%d", filepath.Base(uriPath(r.URI)), r.Range.Start.Line+1))
		}
	}
	return out
}

// openLater opens policies/hotel-v2.md with valid_from moved to
// 2026-07-01: the 2026-09-14 cases change, and select it.
func openLater(c *client, dir string) string {
	uri := fileURI(filepath.Join(dir, "policies", "hotel-v2.md"))
	later := strings.Replace(hotelV2, "valid_from: 2026-01-01", "valid_from: 2026-07-01", 1)
	c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: later, Version: 1}})
	return uri
}

func initWith(t *testing.T, c *client, dir string, workspace map[string]any) {
	t.Helper()
	params := map[string]any{"rootUri": fileURI(dir), "capabilities": map[string]any{"workspace": workspace}}
	if err := c.call("initialize", params, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", struct{}{})
}

var sept2026 = func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }

// TestWatchedFiles: a client that can watch files is asked to watch
// ka2.yaml, the .ka2ignore beside it, the case files and the corpus; a
// change it reports reaches code lenses, references and diagnostics, and
// the client is asked to fetch the code lenses again.
func TestWatchedFiles(t *testing.T) {
	dir := watchProject(t)
	c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: sept2026})
	initWith(t, c, dir, map[string]any{"codeLens": map[string]any{"refreshSupport": true},
		"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true, "relativePatternSupport": true}})
	regs := c.sent("client/registerCapability")
	if len(regs) != 1 {
		t.Fatalf("registerCapability requests = %d, want 1", len(regs))
	}
	var reg registrationParams
	if err := json.Unmarshal(regs[0].Params, &reg); err != nil {
		t.Fatal(err)
	}
	if len(reg.Registrations) != 1 || reg.Registrations[0].Method != "workspace/didChangeWatchedFiles" {
		t.Fatalf("registrations = %+v", reg.Registrations)
	}
	var globs []relativePattern
	for _, w := range reg.Registrations[0].RegisterOptions.Watchers {
		globs = append(globs, w.GlobPattern)
	}
	in := func(sub string) string { return fileURI(filepath.Join(dir, sub)) }
	wantGlobs := []relativePattern{{in("."), "ka2.yaml"}, {in("."), ".ka2ignore"}, {in("cases"), "**/*.yaml"},
		{in("policies"), "**/*.md"}, {in("policies"), "**/.ka2ignore"}}
	for d := filepath.Join(dir, "policies"); ; d = filepath.Dir(d) { // where a .ka2lint.yaml would be found
		wantGlobs = append(wantGlobs, relativePattern{fileURI(d), ".ka2lint.yaml"})
		if d == filepath.Dir(d) {
			break
		}
	}
	if diff := gocmp.Diff(wantGlobs, globs); diff != "" {
		t.Errorf("watched globs mismatch (-want +got):\n%s", diff)
	}

	uri := openLater(c, dir)
	if got, want := c.lensTitles(uri), []string{"1 case changes: b-2026"}; !slices.Equal(got, want) {
		t.Errorf("code lenses = %q, want %q", got, want)
	}
	if got, want := c.caseRefs(uri), []string{"trips.yaml:3"}; !slices.Equal(got, want) {
		t.Errorf("case references = %q, want %q", got, want)
	}

	// A case file changes: b-2026 is renamed and a case added above it.
	write(t, dir, "cases/trips.yaml", "cases:\n  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}\n  - {name: z-2026, question: q, subject: lodging, dates: [2026-09-15]}\n  - {name: b-renamed, question: q, subject: lodging, dates: [2026-09-14]}\n")
	c.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: in("cases/trips.yaml"), Type: 2}}})
	if n := len(c.sent("workspace/codeLens/refresh")); n != 1 {
		t.Errorf("codeLens/refresh requests after a case file changed = %d, want 1", n)
	}
	if got, want := c.lensTitles(uri), []string{"2 cases change: z-2026, b-renamed"}; !slices.Equal(got, want) {
		t.Errorf("code lenses after a case file changed = %q, want %q", got, want)
	}
	if got, want := c.caseRefs(uri), []string{"trips.yaml:3", "trips.yaml:4"}; !slices.Equal(got, want) {
		t.Errorf("case references after a case file changed = %q, want %q", got, want)
	}

	// A policy file that is not open changes on disk: its diagnostics are
	// published.
	write(t, dir, "policies/hotel-v1.md", strings.Replace(hotelV1, "valid_until:", "vaild_until:", 1))
	c.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: in("policies/hotel-v1.md"), Type: 2}}})
	if published, has := c.unknownKey(in("policies/hotel-v1.md")); !published || !has {
		t.Errorf("hotel-v1.md changed on disk: diagnostics published %v, with unknown_key %v; want both", published, has)
	}
	write(t, dir, "policies/hotel-v1.md", hotelV1)
	c.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: in("policies/hotel-v1.md"), Type: 2}}})
	if published, has := c.unknownKey(in("policies/hotel-v1.md")); !published || has {
		t.Errorf("hotel-v1.md fixed on disk: diagnostics published %v, with unknown_key %v; want published without", published, has)
	}

	// ka2.yaml names other case files: the settings follow, and the
	// client is asked to watch those instead.
	write(t, dir, "ka2.yaml", "corpus: policies\ncases: more\n")
	c.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: in("ka2.yaml"), Type: 2}}})
	c.call("textDocument/hover", positionParams{}, nil) // a round trip
	var methods []string
	for _, m := range c.drain() {
		if m.ID != nil {
			methods = append(methods, m.Method)
		}
	}
	if want := []string{"client/unregisterCapability", "client/registerCapability", "workspace/codeLens/refresh"}; !slices.Equal(methods, want) {
		t.Errorf("requests after ka2.yaml changed = %q, want %q", methods, want)
	}
	if got, want := c.lensTitles(uri), []string{"1 case changes: from-more"}; !slices.Equal(got, want) {
		t.Errorf("code lenses after ka2.yaml changed = %q, want %q", got, want)
	}

	// A ka2.yaml that does not load: the server says so and keeps the
	// settings it had.
	write(t, dir, "ka2.yaml", "corpus: policies\ncases: more\ncorpsu: x\n")
	c.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: in("ka2.yaml"), Type: 2}}})
	shown := c.sent("window/showMessage")
	var msg showMessageParams
	if len(shown) == 1 {
		if err := json.Unmarshal(shown[0].Params, &msg); err != nil {
			t.Fatalf("showMessage params: %v", err)
		}
	}
	if msg.Type != messageError || !strings.Contains(msg.Message, `unknown key "corpsu"`) || !strings.HasSuffix(msg.Message, "(fix ka2.yaml; until then the language server keeps the settings it had)") {
		t.Errorf("showMessage after a broken ka2.yaml = %+v", shown)
	}
	if got, want := c.lensTitles(uri), []string{"1 case changes: from-more"}; !slices.Equal(got, want) {
		t.Errorf("code lenses after a broken ka2.yaml = %q, want %q", got, want)
	}
}

// TestUnwatchedFiles: a client that cannot watch files, or refuses to,
// gets answers read from the disk as it is: each hover, code lens and
// references request compares the files with what the server read.
func TestUnwatchedFiles(t *testing.T) {
	for _, tt := range []struct {
		name      string
		workspace map[string]any
		refuse    bool
	}{
		{name: "no dynamic registration", workspace: map[string]any{}},
		{name: "registration refused", workspace: map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}, refuse: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := watchProject(t)
			c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: sept2026})
			initWith(t, c, dir, tt.workspace)
			regs := c.sent("client/registerCapability")
			if !tt.refuse && len(regs) != 0 {
				t.Fatalf("registerCapability sent to a client without dynamic registration: %+v", regs)
			}
			if tt.refuse {
				if len(regs) != 1 {
					t.Fatalf("registerCapability requests = %d, want 1", len(regs))
				}
				if err := c.conn.reply(regs[0].ID, nil, &rpcError{Code: codeMethodNotFound, Message: "no file watching here"}); err != nil {
					t.Fatal(err)
				}
			}
			uri := openLater(c, dir)
			if got, want := c.lensTitles(uri), []string{"1 case changes: b-2026"}; !slices.Equal(got, want) {
				t.Errorf("code lenses = %q, want %q", got, want)
			}
			write(t, dir, "cases/trips.yaml", "cases:\n  - {name: b-renamed, question: q, subject: lodging, dates: [2026-09-14]}\n")
			if got, want := c.lensTitles(uri), []string{"1 case changes: b-renamed"}; !slices.Equal(got, want) {
				t.Errorf("code lenses after a case file changed = %q, want %q", got, want)
			}
			if got, want := c.caseRefs(uri), []string{"trips.yaml:2"}; !slices.Equal(got, want) {
				t.Errorf("case references after a case file changed = %q, want %q", got, want)
			}
			write(t, dir, "ka2.yaml", "corpus: policies\ncases: ./more\n")
			if got, want := c.lensTitles(uri), []string{"1 case changes: from-more"}; !slices.Equal(got, want) {
				t.Errorf("code lenses after ka2.yaml changed = %q, want %q", got, want)
			}
			c.sent("") // what was published so far
			write(t, dir, "policies/hotel-v1.md", strings.Replace(hotelV1, "valid_until:", "vaild_until:", 1))
			if published, has := c.unknownKey(fileURI(filepath.Join(dir, "policies", "hotel-v1.md"))); !published || !has {
				t.Errorf("hotel-v1.md changed on disk: diagnostics published %v, with unknown_key %v; want both", published, has)
			}
		})
	}
}

// TestInitializeBadProject: a ka2.yaml that does not load fails
// initialize, and says to restart the server once it is fixed.
func TestInitializeBadProject(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ka2.yaml": "corpus: policies\ncorpsu: x\n"})
	c := startServer(t, Options{})
	err := c.call("initialize", map[string]any{"rootUri": fileURI(dir)}, nil)
	if err == nil || !strings.HasSuffix(err.Message, `did you mean corpus? (fix ka2.yaml and restart the language server)`) {
		t.Errorf("initialize with a broken ka2.yaml: error %v", err)
	}
}

func TestWatchers(t *testing.T) {
	tests := []struct {
		name string
		st   Settings
		want []any
	}{
		{
			name: "project file",
			st:   Settings{Corpus: "/w/policies", Cases: []string{"/w/cases", "/w/one.yaml"}, Project: "/w/sub/../ka2.yaml"},
			want: []any{"/w/ka2.yaml", "/w/.ka2ignore", "/w/cases/**/*.yaml", "/w/one.yaml", "/w/policies/**/*.md", "/w/policies/**/.ka2ignore",
				"/w/policies/.ka2lint.yaml", "/w/.ka2lint.yaml", "/.ka2lint.yaml"},
		},
		{
			// A ka2.yaml in a folder between the workspace folder and the
			// project file's would be found first; the contract files the
			// case files name are read with them.
			name: "project file above the workspace folder, contracts",
			st: Settings{Corpus: "/w/a/b", Cases: []string{"/w/cases"}, Project: "/w/ka2.yaml", root: "/w/a/b",
				contracts: []string{"/c/content.yaml", "/c/def.json"}},
			want: []any{"/w/ka2.yaml", "/w/.ka2ignore", "/w/cases/**/*.yaml", "/w/a/b/**/*.md", "/w/a/b/**/.ka2ignore",
				"/w/a/b/ka2.yaml", "/w/a/ka2.yaml", "/c/content.yaml", "/c/def.json",
				"/w/a/b/.ka2lint.yaml", "/w/a/.ka2lint.yaml", "/w/.ka2lint.yaml", "/.ka2lint.yaml"},
		},
		{
			name: "no project file: every folder up",
			st:   Settings{Corpus: "/w/a", root: "/w/a"},
			want: []any{"/w/a/ka2.yaml", "/w/a/.ka2ignore", "/w/a/**/*.md", "/w/a/**/.ka2ignore",
				"/w/ka2.yaml", "/ka2.yaml", "/w/a/.ka2lint.yaml", "/w/.ka2lint.yaml", "/.ka2lint.yaml"},
		},
	}
	if filepath.Separator != '/' {
		t.Skip("absolute globs of slash paths")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			for _, w := range tt.st.watchers(false) {
				got = append(got, w.GlobPattern)
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("watchers(false) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAffected(t *testing.T) {
	st := Settings{Corpus: "/w/policies", Cases: []string{"/w/cases"}, Project: "/w/ka2.yaml", root: "/w/ws",
		contracts: []string{"/w/contract/content.yaml", "/w/contract/def.json"}}
	tests := []struct {
		path    string
		deleted bool
		want    part
	}{
		{path: "/w/ka2.yaml", want: partProject},
		{path: "/w/.ka2ignore", want: partProject},
		{path: "/w/sub/ka2.yaml", want: 0},
		{path: "/w/cases/a/trips.yaml", want: partCases},
		{path: "/w/cases/testdata/golden/trips/a.golden", want: 0},
		{path: "/w/cases/a", deleted: true, want: partCases},
		{path: "/w/policies/x.md", want: partCorpus},
		{path: "/w/policies/drafts/.ka2ignore", want: partCorpus},
		{path: "/w/policies/notes.txt", want: 0},
		{path: "/w/elsewhere.md", want: 0},
		{path: "/w/ws/ka2.yaml", want: partProject},
		{path: "/w/ws/.ka2ignore", want: 0},
		{path: "/ka2.yaml", want: 0},
		{path: "/w/contract/def.json", want: partCases},
		{path: "/w/contract/content.yaml", want: partCases},
		{path: "/w/contract/other.yaml", want: 0},
		{path: "/w/contract", deleted: true, want: partCases},
		{path: "/w/policies/.ka2lint.yaml", want: partCorpus},
		{path: "/.ka2lint.yaml", want: partCorpus},
		{path: "/w/other/.ka2lint.yaml", want: 0},
	}
	if filepath.Separator != '/' {
		t.Skip("slash paths")
	}
	for _, tt := range tests {
		if got := st.affected(tt.path, tt.deleted); got != tt.want {
			t.Errorf("affected(%q, %v) = %b, want %b", tt.path, tt.deleted, got, tt.want)
		}
	}
}

// watches says whether the globs the client was last asked to watch
// (relative patterns) cover the file p: "NAME" beside the base folder, or
// "**/*.EXT" and "**/NAME" below it.
func (c *client) watches(p string) bool {
	c.t.Helper()
	c.sent("") // drain what was sent
	if len(c.regs) == 0 {
		return false
	}
	var reg registrationParams
	if err := json.Unmarshal(c.regs[len(c.regs)-1].Params, &reg); err != nil {
		c.t.Fatal(err)
	}
	for _, r := range reg.Registrations {
		for _, w := range r.RegisterOptions.Watchers {
			rel, ok := below(uriPath(w.GlobPattern.BaseURI), p)
			if !ok {
				continue
			}
			pat, deep := strings.CutPrefix(w.GlobPattern.Pattern, "**/")
			if !deep && rel == pat {
				return true
			}
			if ok, _ := path.Match(pat, path.Base(rel)); deep && ok {
				return true
			}
		}
	}
	return false
}

// lintCounter counts the lints of the corpus.
type lintCounter struct{ n atomic.Int32 }

func (lc *lintCounter) start()     { lc.n.Add(1) }
func (lc *lintCounter) count() int { return int(lc.n.Load()) }

// watchModes are the two ways the server learns of changes on disk: the
// client watches the files and reports them (change tells it of a file,
// after checking that the client was asked to watch it), or the server
// checks them on each request (change does nothing).
var watchModes = []struct {
	name      string
	workspace map[string]any
}{
	{name: "watched", workspace: map[string]any{"codeLens": map[string]any{"refreshSupport": true},
		"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true, "relativePatternSupport": true}}},
	{name: "checked on request", workspace: map[string]any{}},
}

// changer returns what tells the server that the file name (relative to
// dir) changed with type typ (1 created, 2 changed, 3 deleted) in mode.
func changer(t *testing.T, c *client, dir, mode string) func(name string, typ int) {
	return func(name string, typ int) {
		t.Helper()
		if mode != "watched" {
			return
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !c.watches(p) {
			t.Errorf("%s is not watched", name)
		}
		c.notify("workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: []fileEvent{{URI: fileURI(p), Type: typ}}})
	}
}

// TestWatchedContracts: the contract definition a case file names and the
// content file the definition names are watched (or checked): a change to
// either reaches the code lens, and a definition that names another
// content file has that one watched instead.
func TestWatchedContracts(t *testing.T) {
	for _, mode := range watchModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := watchProject(t)
			write(t, dir, "cases/trips.yaml", "defaults: {contract: ../contract/def.json}\n"+
				"cases:\n  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}\n  - {name: b-2026, question: q, subject: lodging, dates: [2026-09-14]}\n")
			write(t, dir, "contract/def.json", string(ka2.ContractJSON))
			write(t, dir, "contract/"+ka2.ContentFile, string(ka2.ContentYAML))
			c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: sept2026})
			initWith(t, c, dir, mode.workspace)
			change := changer(t, c, dir, mode.name)
			uri := openLater(c, dir)
			if got, want := c.lensTitles(uri), []string{"1 case changes: b-2026"}; !slices.Equal(got, want) {
				t.Errorf("code lenses = %q, want %q", got, want)
			}
			unknown := func(when string) {
				t.Helper()
				if got := c.lensTitles(uri); len(got) != 1 || !strings.HasPrefix(got[0], "impact unknown: the case files do not load") {
					t.Errorf("code lenses after %s = %q, want the case files not loading", when, got)
				}
			}

			write(t, dir, "contract/"+ka2.ContentFile, "en: [\n")
			change("contract/"+ka2.ContentFile, 2)
			unknown("the content file broke")

			write(t, dir, "contract/other.yaml", string(ka2.ContentYAML))
			write(t, dir, "contract/def.json", strings.Replace(string(ka2.ContractJSON), `"content": "`+ka2.ContentFile+`"`, `"content": "other.yaml"`, 1))
			change("contract/def.json", 2)
			if got, want := c.lensTitles(uri), []string{"1 case changes: b-2026"}; !slices.Equal(got, want) {
				t.Errorf("code lenses after the definition named another content file = %q, want %q", got, want)
			}

			write(t, dir, "contract/other.yaml", "en: {}\n")
			change("contract/other.yaml", 2)
			unknown("the other content file broke")

			write(t, dir, "contract/other.yaml", string(ka2.ContentYAML)+"\n")
			change("contract/other.yaml", 2)
			if got, want := c.lensTitles(uri), []string{"1 case changes: b-2026"}; !slices.Equal(got, want) {
				t.Errorf("code lenses after the content file was fixed = %q, want %q", got, want)
			}
			if mode.name == "watched" && c.watches(filepath.Join(dir, "contract", ka2.ContentFile)) {
				t.Errorf("the content file the definition no longer names is still watched")
			}
		})
	}
}

// TestWatchedLintConfig: the .ka2lint.yaml lint finds from the corpus
// folder up is watched (or checked): a change reaches the diagnostics.
func TestWatchedLintConfig(t *testing.T) {
	for _, mode := range watchModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := watchProject(t)
			write(t, dir, "policies/hotel-v1.md", strings.Replace(hotelV1, "valid_until:", "vaild_until:", 1))
			c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: sept2026})
			initWith(t, c, dir, mode.workspace)
			change := changer(t, c, dir, mode.name)
			v1 := fileURI(filepath.Join(dir, "policies", "hotel-v1.md"))
			c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: fileURI(filepath.Join(dir, "policies", "hotel-v2.md")), Text: hotelV2, Version: 1}})
			if published, has := c.unknownKey(v1); !published || !has {
				t.Fatalf("diagnostics of hotel-v1.md published %v, with unknown_key %v; want both", published, has)
			}
			for _, name := range []string{".ka2lint.yaml", "policies/.ka2lint.yaml"} { // above the corpus folder, and in it
				write(t, dir, name, "rules:\n  unknown_key: off\n")
				change(name, 1)
				if published, has := c.unknownKey(v1); !published || has {
					t.Errorf("%s turned unknown_key off: diagnostics published %v, with unknown_key %v; want published without", name, published, has)
				}
				write(t, dir, name, "rules:\n  unknown_key: warning\n")
				change(name, 2)
				if published, has := c.unknownKey(v1); !published || !has {
					t.Errorf("%s turned unknown_key on: diagnostics published %v, with unknown_key %v; want both", name, published, has)
				}
			}
		})
	}
}

// TestWatchedProjectAbove: with the workspace folder below the project's
// folder, a ka2.yaml created above it is found (or checked for), and its
// deletion noticed.
func TestWatchedProjectAbove(t *testing.T) {
	for _, mode := range watchModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := watchProject(t)
			if err := os.Remove(filepath.Join(dir, "ka2.yaml")); err != nil {
				t.Fatal(err)
			}
			c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: sept2026})
			initWith(t, c, filepath.Join(dir, "policies"), mode.workspace)
			change := changer(t, c, dir, mode.name)
			uri := openLater(c, dir)
			if got := c.lensTitles(uri); len(got) != 0 {
				t.Errorf("code lenses without case files = %q, want none", got)
			}
			write(t, dir, "ka2.yaml", "corpus: policies\ncases: cases\n")
			change("ka2.yaml", 1)
			if got, want := c.lensTitles(uri), []string{"1 case changes: b-2026"}; !slices.Equal(got, want) {
				t.Errorf("code lenses after ka2.yaml was created above the workspace folder = %q, want %q", got, want)
			}
			if err := os.Remove(filepath.Join(dir, "ka2.yaml")); err != nil {
				t.Fatal(err)
			}
			change("ka2.yaml", 3)
			if got := c.lensTitles(uri); len(got) != 0 {
				t.Errorf("code lenses after ka2.yaml was deleted = %q, want none", got)
			}
		})
	}
}

// TestSaveLintsOnce: a save lints the corpus once, though the client then
// also reports the file changed (or its stamp changed); a change on disk
// after the save is still read.
func TestSaveLintsOnce(t *testing.T) {
	for _, mode := range watchModes {
		t.Run(mode.name, func(t *testing.T) {
			dir := watchProject(t)
			lc := &lintCounter{}
			c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: sept2026, lintStart: lc.start})
			initWith(t, c, dir, mode.workspace)
			change := changer(t, c, dir, mode.name)
			uri := openLater(c, dir)
			text := strings.Replace(hotelV2, "valid_from: 2026-01-01", "valid_from: 2026-07-01", 1)
			save := func() {
				t.Helper()
				write(t, dir, "policies/hotel-v2.md", text)
				c.notify("textDocument/didSave", didSaveParams{TextDocument: textDocumentIdentifier{URI: uri}, Text: &text})
				change("policies/hotel-v2.md", 2)
			}
			c.lensTitles(uri)
			before := lc.count()
			save()
			if got := c.lensTitles(uri); len(got) != 0 {
				t.Errorf("code lenses of a saved file = %q, want none", got)
			}
			if got := lc.count() - before; got != 1 {
				t.Errorf("lints after a save = %d, want 1", got)
			}

			// A formatter rewrites the file after the save, before the
			// client reports it: that change is read.
			before = lc.count()
			text += "Rounded to the yuan.\n"
			write(t, dir, "policies/hotel-v2.md", text)
			c.notify("textDocument/didSave", didSaveParams{TextDocument: textDocumentIdentifier{URI: uri}, Text: &text})
			// A request answered means the save was handled (messages are
			// handled in order); without it the rewrite below can reach the
			// disk before the server reads the save, and the save's one lint
			// then reads the rewritten file, which is right but not the
			// order this test is about.
			c.lensTitles(uri)
			write(t, dir, "policies/hotel-v2.md", text+"\n")
			change("policies/hotel-v2.md", 2)
			c.lensTitles(uri)
			if got := lc.count() - before; got != 2 {
				t.Errorf("lints after a save and a change after it = %d, want 2", got)
			}
		})
	}
}

// registrationParams is what the tests read of a client/registerCapability
// request: the watchers of each registration.
type registrationParams struct {
	Registrations []struct {
		ID              string `json:"id"`
		Method          string `json:"method"`
		RegisterOptions struct {
			Watchers []struct {
				GlobPattern relativePattern `json:"globPattern"`
			} `json:"watchers"`
		} `json:"registerOptions"`
	} `json:"registrations"`
}
