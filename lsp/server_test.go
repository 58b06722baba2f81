package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	gocmpopts "github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/project"
)

// client drives a Server over pipes, as an editor does.
type client struct {
	t      *testing.T
	in     *io.PipeWriter
	conn   *conn
	nextID int
	notes  chan message
	resps  chan message
	done   chan error
	// regs are the registerCapability requests drained so far: what the
	// client was last asked to watch.
	regs []message
}

func startServer(t *testing.T, opts Options) *client {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	c := &client{t: t, in: cw, conn: newConn(cr, cw), notes: make(chan message, 100), resps: make(chan message, 100), done: make(chan error, 1)}
	go func() {
		c.done <- Serve(context.Background(), sr, sw, opts)
		sw.Close()
	}()
	go func() {
		for {
			body, err := c.conn.read()
			if err != nil {
				close(c.notes)
				return
			}
			var m message
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("server sent bad JSON: %v", err)
				return
			}
			if m.ID != nil && m.Method == "" {
				c.resps <- m
			} else {
				c.notes <- m // notifications, and requests of the server's own
			}
		}
	}()
	t.Cleanup(func() { cw.Close() })
	return c
}

func (c *client) call(method string, params any, result any) *rpcError {
	c.t.Helper()
	return c.await(c.send(method, params), result)
}

// send sends a request and returns its id, without waiting.
func (c *client) send(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	id := json.RawMessage(fmt.Sprint(c.nextID))
	p, _ := json.Marshal(params)
	if err := c.conn.write(message{ID: &id, Method: method, Params: p}); err != nil {
		c.t.Fatal(err)
	}
	return id
}

// await reads the response to the request id.
func (c *client) await(id json.RawMessage, result any) *rpcError {
	c.t.Helper()
	m := <-c.resps
	if string(*m.ID) != string(id) {
		c.t.Fatalf("response has id %s, want %s", *m.ID, id)
	}
	if m.Error != nil {
		return m.Error
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			c.t.Fatalf("result of request %s: %v", id, err)
		}
	}
	return nil
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.notify(method, params); err != nil {
		c.t.Fatal(err)
	}
}

// drain returns the messages the server has sent and the client has not
// read. Call it after a request's response: the server wrote everything
// it sent before that response first.
func (c *client) drain() []message {
	var out []message
	for {
		select {
		case m := <-c.notes:
			out = append(out, m)
			if m.Method == "client/registerCapability" {
				c.regs = append(c.regs, m)
			}
		default:
			return out
		}
	}
}

// diagnostics waits for the next publishDiagnostics for uri.
func (c *client) diagnostics(uri string) []diagnostic {
	c.t.Helper()
	for m := range c.notes {
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p publishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			c.t.Fatalf("publishDiagnostics params: %v", err)
		}
		if p.URI == uri {
			return p.Diagnostics
		}
	}
	c.t.Fatal("server closed before publishing diagnostics for " + uri)
	return nil
}

// fakeTimer is an AfterFunc that fires when the test says so.
type fakeTimer struct {
	mu      sync.Mutex
	pending func()
}

func (f *fakeTimer) after(d time.Duration, fn func()) func() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = fn
	return func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.pending = nil
		return true
	}
}

func (f *fakeTimer) fire() bool {
	f.mu.Lock()
	fn := f.pending
	f.pending = nil
	f.mu.Unlock()
	if fn != nil {
		fn()
	}
	return fn != nil
}

const hotelV1 = `---
source_id: hotel-v1
version: v1
subjects: [lodging]
valid_from: 2025-01-01
valid_until: 2026-01-01
lang: en
unit: CNY per room-night
cite: ["1-3"]
---
Scope: lodging on business trips.
Effective from 2025-01-01.
The limit is 600 per room-night 😀.
`

const hotelV2 = `---
source_id: hotel-v2
version: v2
subjects: [lodging]
valid_from: 2026-01-01
supersedes: [hotel-v1]
lang: en
unit: CNY per room-night
---
Scope: lodging on business trips.
Effective from 2026-01-01.
The limit is 750 per room-night.
`

func writeCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"hotel-v1.md": hotelV1, "hotel-v2.md": hotelV2,
		"cases/trips.yaml": "cases:\n  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}\n  - {name: b-2026, question: q, subject: lodging, dates: [2026-09-14]}\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestServer(t *testing.T) {
	dir := writeCorpus(t)
	timer := &fakeTimer{}
	c := startServer(t, Options{AfterFunc: timer.after, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
	if err := c.call("textDocument/hover", positionParams{}, nil); err == nil || err.Code != codeServerNotInit {
		t.Errorf("hover before initialize: error %v, want code %d", err, codeServerNotInit)
	}
	var init struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := c.call("initialize", map[string]any{"rootUri": fileURI(dir), "initializationOptions": map[string]any{"cases": []string{"cases"}}}, &init); err != nil {
		t.Fatal(err)
	}
	if init.Capabilities["hoverProvider"] != true {
		t.Errorf("capabilities = %v", init.Capabilities)
	}
	c.notify("initialized", struct{}{})

	uri := fileURI(filepath.Join(dir, "hotel-v2.md"))
	typo := strings.Replace(hotelV2, "valid_from:", "vaild_from:", 1)
	c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: typo, Version: 1}})
	diags := c.diagnostics(uri)
	var found *diagnostic
	for i := range diags {
		if diags[i].Code == "unknown_key" {
			found = &diags[i]
		}
	}
	if found == nil {
		t.Fatalf("didOpen diagnostics = %+v, want unknown_key", diags)
	}
	if found.Range.Start != (position{Line: 4, Character: 0}) || found.Range.End.Character != len("vaild_from:") {
		t.Errorf("unknown_key range = %+v", found.Range)
	}

	// A quick fix renames the key.
	var actions []codeAction
	if err := c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{URI: uri}, Range: found.Range}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) == 0 || actions[0].Edit.Changes[uri][0].NewText != "valid_from" {
		t.Fatalf("code actions = %+v, want change to valid_from", actions)
	}

	// A change is linted only when the debounce timer fires.
	overlap := strings.Replace(hotelV2, "supersedes: [hotel-v1]\n", "", 1)
	overlap = strings.Replace(overlap, "2026-01-01", "2025-06-01", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": overlap}}})
	// A request round trip proves the change was handled before firing.
	c.call("textDocument/hover", positionParams{TextDocument: textDocumentIdentifier{URI: uri}}, nil)
	if !timer.fire() {
		t.Fatal("didChange scheduled no lint")
	}
	diags = c.diagnostics(uri)
	var ov *diagnostic
	for i := range diags {
		if diags[i].Code == "overlap" {
			ov = &diags[i]
		}
	}
	if ov == nil || len(ov.RelatedInformation) != 1 || !strings.HasSuffix(ov.RelatedInformation[0].Location.URI, "hotel-v1.md") {
		t.Fatalf("overlap diagnostic = %+v, want one related location in hotel-v1.md", ov)
	}
	actions = nil
	c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{URI: uri}, Range: ov.Range}, &actions)
	var setUntil bool
	for _, a := range actions {
		for u, edits := range a.Edit.Changes {
			if strings.HasSuffix(u, "hotel-v1.md") && edits[0].NewText == "valid_until: 2025-06-01" {
				setUntil = true
			}
		}
	}
	if !setUntil {
		t.Errorf("code actions = %+v, want valid_until: 2025-06-01 in hotel-v1.md", actions)
	}

	// Hover on valid_from: the interval in words, today, cases, impact.
	var h hover
	c.call("textDocument/hover", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 4, Character: 3}}, &h)
	for _, want := range []string{"Applies on [2025-06-01, open).", "Applies today (2026-09-14).", "Selected by 2 of 2 regression cases.", "Impact of the unsaved edit: 2 of 2 regression cases change:\n- a-2025 (cases/trips.yaml:2): evidence +hotel-v2:1-3;",
		"- b-2026 (cases/trips.yaml:3): evidence ~hotel-v2:1-3 (valid_from 2026-01-01 → 2025-06-01)"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover = %q, want %q in it", h.Contents.Value, want)
		}
	}

	// Completion of supersedes values and of keys.
	back := strings.Replace(hotelV2, "supersedes: [hotel-v1]", "supersedes: [hot", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri}, "contentChanges": []map[string]any{{"text": back}}})
	var list completionList
	c.call("textDocument/completion", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 5, Character: 16}}, &list)
	if !hasLabel(list, "hotel-v1") {
		t.Errorf("supersedes completion = %+v, want hotel-v1", list.Items)
	}
	c.call("textDocument/completion", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 1, Character: 0}}, &list)
	if !hasLabel(list, "valid_until") || !hasLabel(list, "role") {
		t.Errorf("key completion = %+v", list.Items)
	}

	// Definition of a supersedes id, and of a cite range.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri}, "contentChanges": []map[string]any{{"text": hotelV2}}})
	var locs []location
	c.call("textDocument/definition", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 5, Character: 15}}, &locs)
	if len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "hotel-v1.md") || locs[0].Range.Start.Line != 1 {
		t.Errorf("definition of hotel-v1 = %+v", locs)
	}
	v1 := fileURI(filepath.Join(dir, "hotel-v1.md"))
	c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: v1, Text: hotelV1}})
	c.call("textDocument/definition", positionParams{TextDocument: textDocumentIdentifier{URI: v1}, Position: position{Line: 8, Character: 8}}, &locs)
	// Body lines 1-3 are file lines 11-13; the third ends in an emoji, two
	// UTF-16 units.
	want := lspRange{Start: position{Line: 10}, End: position{Line: 12, Character: len("The limit is 600 per room-night .") + 2}}
	if len(locs) != 1 || locs[0].Range != want {
		t.Errorf("definition of cite 1-3 = %+v, want %+v", locs, want)
	}
	// References: the source that supersedes hotel-v1, and the case that
	// selects it, at the case's line.
	var refs []location
	c.call("textDocument/references", positionParams{TextDocument: textDocumentIdentifier{URI: v1}, Position: position{Line: 1, Character: 0}}, &refs)
	caseLine := "  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}"
	wantRefs := []location{
		{URI: uri, Range: lspRange{Start: position{Line: 5}, End: position{Line: 5, Character: len("supersedes:")}}},
		{URI: fileURI(filepath.Join(dir, "cases", "trips.yaml")), Range: lspRange{Start: position{Line: 1}, End: position{Line: 1, Character: len(caseLine)}}},
	}
	if diff := gocmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("references of hotel-v1 mismatch (-want +got):\n%s", diff)
	}

	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("exit", nil)
	if err := <-c.done; err != nil {
		t.Errorf("Serve() = %v after shutdown and exit", err)
	}
}

func hasLabel(l completionList, label string) bool {
	for _, it := range l.Items {
		if it.Label == label {
			return true
		}
	}
	return false
}

func TestExitWithoutShutdown(t *testing.T) {
	c := startServer(t, Options{})
	c.notify("exit", nil)
	if err := <-c.done; err != ErrExitWithoutShutdown {
		t.Errorf("Serve() = %v, want ErrExitWithoutShutdown", err)
	}
}

func TestBadFraming(t *testing.T) {
	long := strings.Repeat("x", maxHeader)
	tests := []struct {
		name, in, want string
	}{
		{"body over the limit", "Content-Length: 99999999999\r\n\r\n{}", "over the limit of 16777216"},
		{"one header line over the limit", "Content-Length: 2" + long + "\r\n\r\n{}", "header is over the limit of 4096 bytes"},
		{"many short header lines over the limit", strings.Repeat("X-Pad: 1234567890\r\n", maxHeader/10) + "Content-Length: 2\r\n\r\n{}", "header is over the limit of 4096 bytes"},
		{"Content-Length repeated", "Content-Length: 2\r\nContent-Length: 20\r\n\r\n{}", "repeats Content-Length"},
		{"no Content-Length", "Content-Type: application/vscode-jsonrpc\r\n\r\n{}", "no Content-Length"},
		{"Content-Length not a number", "Content-Length: two\r\n\r\n{}", "not a byte count"},
		{"header line without a colon", "Content-Length 2\r\n\r\n{}", "is not \"Name: value\""},
		{"stream ends inside the header", "Content-Length: 2\r\n", "ends before its blank line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Serve(context.Background(), strings.NewReader(tt.in), io.Discard, Options{})
			if !errors.Is(err, ErrFraming) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Serve() = %v, want ErrFraming saying %q", err, tt.want)
			}
		})
	}
}

// endless is a header line that never ends: a Content-Length followed by
// digits, up to left bytes, counting what was read.
type endless struct{ read, left int }

func (e *endless) Read(p []byte) (int, error) {
	if e.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), e.left)
	copy(p, "Content-Length: ")
	for i := range p[:n] {
		if e.read+i >= len("Content-Length: ") {
			p[i] = '7'
		}
	}
	e.read += n
	e.left -= n
	return n, nil
}

// TestOversizedHeaderStopsReading: the server gives up on a header line
// that does not end once it is over the limit, instead of reading on (a
// 300 MiB line took the old reader past 1 GB).
func TestOversizedHeaderStopsReading(t *testing.T) {
	r := &endless{left: 64 << 20}
	err := Serve(context.Background(), r, io.Discard, Options{})
	if !errors.Is(err, ErrFraming) {
		t.Fatalf("Serve() = %v, want ErrFraming", err)
	}
	if r.read > maxHeader {
		t.Errorf("Serve() read %d bytes of an endless header, want at most %d", r.read, maxHeader)
	}
}

// writeFiles writes files (slash paths relative to dir) and returns dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolveSettings(t *testing.T) {
	proj := writeFiles(t, map[string]string{
		"ka2.yaml": "corpus: policies\ncases: cases\nexclude: [policies/drafts/]\n",
		"sub/x.md": "",
	})
	broken := writeFiles(t, map[string]string{"ka2.yaml": "corpus: policies\ncorpsu: x\n"})
	bare := t.TempDir()
	in := func(dir string, names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, filepath.FromSlash(n)))
		}
		return out
	}
	tests := []struct {
		name    string
		root    string
		opts    string
		want    Settings
		wantErr string
	}{
		{name: "project file", root: proj,
			want: Settings{Corpus: in(proj, "policies")[0], Cases: in(proj, "cases"), Project: in(proj, "ka2.yaml")[0]}},
		{name: "found from a folder below", root: filepath.Join(proj, "sub"),
			want: Settings{Corpus: in(proj, "policies")[0], Cases: in(proj, "cases"), Project: in(proj, "sub/../ka2.yaml")[0]}},
		{name: "options override the project file", root: proj, opts: `{"corpus": "other", "cases": ["c1", "c2"]}`,
			want: Settings{Corpus: in(proj, "other")[0], Cases: in(proj, "c1", "c2"), Project: in(proj, "ka2.yaml")[0]}},
		{name: "no project file", root: bare, want: Settings{Corpus: bare}},
		{name: "broken project file", root: broken, wantErr: `ka2.yaml:2:1: unknown key "corpsu"; did you mean corpus?`},
		{name: "bad options", root: bare, opts: `{"corpus": 3}`, wantErr: "initializationOptions: json: cannot unmarshal number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := initializeParams{RootURI: fileURI(tt.root)}
			if tt.opts != "" {
				p.InitOptions = json.RawMessage(tt.opts)
			}
			got, err := resolveSettings(p, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), tt.wantErr) {
					t.Fatalf("resolveSettings() error = %v, want %q in it", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Project "sub/../ka2.yaml" is how Find names it; Clean
			// compares the file.
			if got.Project != "" {
				got.Project, tt.want.Project = filepath.Clean(got.Project), filepath.Clean(tt.want.Project)
			}
			if diff := gocmp.Diff(tt.want, got, gocmp.AllowUnexported(Settings{}), gocmpopts.IgnoreFields(Settings{}, "project", "root")); diff != "" {
				t.Errorf("resolveSettings() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProjectWorkspace: a workspace with ka2.yaml lints the corpus it
// names, leaves out what it excludes, and reads the cases it names.
func TestProjectWorkspace(t *testing.T) {
	typo := strings.Replace(hotelV2, "valid_from:", "vaild_from:", 1)
	dir := writeFiles(t, map[string]string{
		"ka2.yaml":                    "corpus: policies\ncases: cases\nexclude: [policies/drafts/]\n",
		"policies/hotel-v1.md":        hotelV1,
		"policies/hotel-v2.md":        hotelV2,
		"policies/drafts/typo.md":     strings.Replace(typo, "hotel-v2", "hotel-v3", 1),
		"notes/outside-the-corpus.md": typo,
		"cases/trips.yaml":            "cases:\n  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}\n  - {name: b-2026, question: q, subject: lodging, dates: [2026-09-14]}\n",
	})
	timer := &fakeTimer{}
	c := startServer(t, Options{AfterFunc: timer.after, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
	if err := c.call("initialize", map[string]any{"rootUri": fileURI(dir)}, nil); err != nil {
		t.Fatal(err)
	}
	uri := fileURI(filepath.Join(dir, "policies", "hotel-v2.md"))
	c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: typo, Version: 1}})
	if ds := c.diagnostics(uri); !slices.ContainsFunc(ds, func(d diagnostic) bool { return d.Code == "unknown_key" }) {
		t.Errorf("diagnostics of policies/hotel-v2.md = %+v, want unknown_key", ds)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri}, "contentChanges": []map[string]any{{"text": hotelV2}}})
	c.call("textDocument/hover", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 11}}, nil) // a round trip
	timer.fire()
	var h hover
	c.call("textDocument/hover", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 4}}, &h)
	if !strings.Contains(h.Contents.Value, "Selected by 1 of 2 regression cases.") {
		t.Errorf("hover = %q, want the cases of ka2.yaml", h.Contents.Value)
	}
	for _, m := range c.drain() {
		var p publishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("%s params: %v", m.Method, err)
		}
		if strings.Contains(p.URI, "drafts") || strings.Contains(p.URI, "notes") {
			t.Errorf("diagnostics published for %s, which ka2.yaml leaves out of the corpus", p.URI)
		}
	}
}

// impactCounter counts impact builds, and holds one in flight when told.
type impactCounter struct {
	mu      sync.Mutex
	builds  int
	started chan struct{} // when set, a build signals here and waits for its context
}

func (ic *impactCounter) start(ctx context.Context) {
	ic.mu.Lock()
	ic.builds++
	started := ic.started
	ic.mu.Unlock()
	if started != nil {
		started <- struct{}{}
		<-ctx.Done()
	}
}

func (ic *impactCounter) count() int {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	return ic.builds
}

// TestCodeLens: the impact of an unsaved edit is built once the debounce
// timer fires, announced with workspace/codeLens/refresh, served from the
// cache to code lens and hover, and a build in flight stops on
// $/cancelRequest without being cached.
func TestCodeLens(t *testing.T) {
	dir := writeCorpus(t)
	timer := &fakeTimer{}
	ic := &impactCounter{}
	c := startServer(t, Options{AfterFunc: timer.after, impactStart: ic.start, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
	init := map[string]any{"rootUri": fileURI(dir), "initializationOptions": map[string]any{"cases": []string{"cases"}},
		"capabilities": map[string]any{"workspace": map[string]any{"codeLens": map[string]any{"refreshSupport": true}}}}
	if err := c.call("initialize", init, nil); err != nil {
		t.Fatal(err)
	}
	uri := fileURI(filepath.Join(dir, "hotel-v2.md"))
	doc := textDocumentIdentifier{URI: uri}
	c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: hotelV2, Version: 1}})
	var lenses []codeLens
	c.call("textDocument/codeLens", codeLensParams{TextDocument: doc}, &lenses)
	if len(lenses) != 0 {
		t.Errorf("code lenses of a saved file = %+v, want none", lenses)
	}

	// Start hotel-v2 half a year later: the 2026 case's contract changes
	// (its valid_from), the 2025 case's does not.
	later := strings.Replace(hotelV2, "valid_from: 2026-01-01", "valid_from: 2026-07-01", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []map[string]any{{"text": later}}})
	c.call("textDocument/hover", positionParams{TextDocument: doc, Position: position{Line: 11}}, nil) // a round trip
	before := ic.count()
	if !timer.fire() {
		t.Fatal("didChange scheduled nothing")
	}
	if ic.count() != before+1 {
		t.Errorf("impact builds after the debounce = %d, want %d", ic.count(), before+1)
	}
	c.call("textDocument/hover", positionParams{TextDocument: doc, Position: position{Line: 11}}, nil) // what fire sent is read before this answer
	var refreshed bool
	for _, m := range c.drain() {
		refreshed = refreshed || m.Method == "workspace/codeLens/refresh"
	}
	if !refreshed {
		t.Error("no workspace/codeLens/refresh after the debounced build")
	}
	c.call("textDocument/codeLens", codeLensParams{TextDocument: doc}, &lenses)
	want := []codeLens{{Range: lspRange{Start: position{Line: 4}, End: position{Line: 4, Character: len("valid_from: 2026-07-01")}}, Command: &command{Title: "1 case changes: b-2026"}}}
	if diff := gocmp.Diff(want, lenses); diff != "" {
		t.Errorf("code lenses mismatch (-want +got):\n%s", diff)
	}
	var h hover
	c.call("textDocument/hover", positionParams{TextDocument: doc, Position: position{Line: 4, Character: 2}}, &h)
	if !strings.Contains(h.Contents.Value, "Impact of the unsaved edit: 1 of 2 regression cases change:\n- b-2026 (cases/trips.yaml:3): evidence ~hotel-v2:1-3 (valid_from 2026-01-01 → 2026-07-01)") {
		t.Errorf("hover = %q", h.Contents.Value)
	}
	if ic.count() != before+1 {
		t.Errorf("impact builds = %d after code lens and hover of the same revision, want %d (cached)", ic.count(), before+1)
	}

	// Change valid_until too; a build in flight stops on $/cancelRequest
	// and is not cached.
	until := strings.Replace(later, "valid_from: 2026-07-01\n", "valid_from: 2026-07-01\nvalid_until: 2026-09-01\n", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []map[string]any{{"text": until}}})
	ic.mu.Lock()
	ic.started = make(chan struct{})
	ic.mu.Unlock()
	id := c.send("textDocument/codeLens", codeLensParams{TextDocument: doc})
	<-ic.started
	ic.mu.Lock()
	ic.started = nil
	ic.mu.Unlock()
	c.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
	if err := c.await(id, nil); err == nil || err.Code != codeRequestCancelled {
		t.Errorf("cancelled code lens: error %v, want code %d", err, codeRequestCancelled)
	}
	n := ic.count()
	c.call("textDocument/codeLens", codeLensParams{TextDocument: doc}, &lenses)
	if ic.count() != n+1 {
		t.Errorf("impact builds = %d, want %d: a cancelled build must not be cached", ic.count(), n+1)
	}
	if len(lenses) != 2 || lenses[0].Range.Start.Line != 4 || lenses[1].Range.Start.Line != 5 || lenses[1].Command.Title != "1 case changes: b-2026" {
		t.Errorf("code lenses = %+v, want one on valid_from and one on valid_until", lenses)
	}

	// A buffer that makes the corpus not load (two files for hotel-v1 in
	// one language) has no impact to show, and says why.
	dup := strings.Replace(later, "source_id: hotel-v2", "source_id: hotel-v1", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 4}, "contentChanges": []map[string]any{{"text": dup}}})
	c.call("textDocument/codeLens", codeLensParams{TextDocument: doc}, &lenses)
	if len(lenses) != 1 || !strings.HasPrefix(lenses[0].Command.Title, "impact unknown: the corpus with this edit does not load: ") {
		t.Errorf("code lenses of a buffer that breaks the corpus = %+v", lenses)
	}
}

// TestServerIgnoresAnotherUsersProject: a ka2.yaml above the workspace
// that another user owns is not used, and the log says so once.
func TestServerIgnoresAnotherUsersProject(t *testing.T) {
	shared := writeFiles(t, map[string]string{"ka2.yaml": "corpus: evil\n", "alice/hotel.md": "x\n"})
	theirs := filepath.Join(shared, "ka2.yaml")
	trust := &project.Trust{UID: 12345} // as any user but root, the test's files are not user 12345's
	if os.Getuid() == 0 {
		if err := os.Chown(theirs, 12345, -1); err != nil {
			t.Fatal(err)
		}
		trust = &project.Trust{UID: 0}
	} else if os.Getuid() == 12345 {
		t.Skip("the test's other user is 12345, who runs it")
	}
	var log strings.Builder
	s := newServer(Options{Trust: trust, Log: &log}, nil)
	ws := filepath.Join(shared, "alice")
	st, err := resolveSettings(initializeParams{RootPath: ws}, s.trust())
	if err != nil {
		t.Fatal(err)
	}
	if st.Corpus != ws || st.Project != "" {
		t.Errorf("resolveSettings() = corpus %s, project %q; want the workspace folder and no project file", st.Corpus, st.Project)
	}
	for range 2 {
		for _, sk := range st.skipped {
			s.logSkipped(sk)
		}
	}
	if got := log.String(); strings.Count(got, "ignoring "+theirs+": it is owned by user") != 1 {
		t.Errorf("log = %q, want the ignored %s once", got, theirs)
	}
}
