package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ka2/ka2/internal/testutil"
)

// rpcClient speaks JSON-RPC with Content-Length framing to a child process.
type rpcClient struct {
	t      *testing.T
	w      io.Writer
	r      *bufio.Reader
	nextID int
}

func (c *rpcClient) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	body, _ := json.Marshal(msg)
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rpcClient) recv() map[string]any {
	c.t.Helper()
	h, err := textproto.NewReader(c.r).ReadMIMEHeader()
	if err != nil {
		c.t.Fatalf("read header: %v", err)
	}
	n, _ := strconv.Atoi(h.Get("Content-Length"))
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		c.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatal(err)
	}
	return m
}

// call sends a request and returns its result, skipping notifications
// (which it hands to onNote when set).
func (c *rpcClient) call(method string, params any, onNote func(map[string]any)) any {
	c.t.Helper()
	c.nextID++
	c.send(map[string]any{"id": c.nextID, "method": method, "params": params})
	for {
		m := c.recv()
		if id, ok := m["id"]; ok && id == float64(c.nextID) {
			if m["error"] != nil {
				c.t.Fatalf("%s: error %v", method, m["error"])
			}
			return m["result"]
		}
		if onNote != nil {
			onNote(m)
		}
	}
}

// waitDiagnostics reads until a publishDiagnostics for uri holds code.
func (c *rpcClient) waitDiagnostics(uri, code string) map[string]any {
	c.t.Helper()
	for {
		m := c.recv()
		if m["method"] != "textDocument/publishDiagnostics" {
			continue
		}
		p := m["params"].(map[string]any)
		if p["uri"] != uri {
			continue
		}
		for _, d := range p["diagnostics"].([]any) {
			if d.(map[string]any)["code"] == code {
				return d.(map[string]any)
			}
		}
	}
}

const lspPolicy = `---
source_id: hotel-v2
version: v2
subjects: [lodging]
vaild_from: 2026-01-01
lang: en
unit: CNY per room-night
---
Scope: lodging on business trips.
Effective from 2026-01-01.
住宿标准 750 元 😀, the limit is 750 per room-night.
`

const lspOld = `---
source_id: hotel-v1
version: v1
subjects: [lodging]
valid_from: 2025-01-01
valid_until: 2026-01-01
lang: en
unit: CNY per room-night
---
Scope: lodging on business trips.
Effective from 2025-01-01.
The limit is 600 per room-night.
`

func writeLSPCorpus(t *testing.T) (dir, policy string) {
	dir = t.TempDir()
	policy = filepath.Join(dir, "hotel-v2.md")
	testutil.WriteFile(t, policy, lspPolicy)
	testutil.WriteFile(t, filepath.Join(dir, "hotel-v1.md"), lspOld)
	return dir, policy
}

func fileURL(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// TestLSPBinary starts the real `ka2 lsp` (testscript.Main puts it on
// PATH) and speaks JSON-RPC over its standard input and output.
func TestLSPBinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, policy := writeLSPCorpus(t)
	cmd := exec.CommandContext(ctx, "ka2", "lsp")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rpcClient{t: t, w: stdin, r: bufio.NewReader(stdout)}
	uri := fileURL(policy)

	if err := os.MkdirAll(filepath.Join(dir, "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(dir, "cases", "trips.yaml"), "cases:\n  - {name: a-2025, question: q, subject: lodging, dates: [2025-09-14]}\n")
	init := c.call("initialize", map[string]any{"processId": nil, "rootUri": fileURL(dir), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"cases": []string{"cases"}}}, nil)
	if caps := init.(map[string]any)["capabilities"].(map[string]any); caps["definitionProvider"] != true || caps["codeLensProvider"] == nil {
		t.Errorf("capabilities = %v", caps)
	}
	c.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	c.send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": lspPolicy}}})
	d := c.waitDiagnostics(uri, "unknown_key")
	if !strings.Contains(d["message"].(string), "did you mean valid_from?") {
		t.Errorf("diagnostic = %v", d)
	}

	// Fix the typo and add supersedes, as typing would; the debounced
	// lint then reports the boundary at hotel-v1, which ends too late, with
	// the open file as related information.
	fixed := strings.Replace(lspPolicy, "vaild_from: 2026-01-01", "valid_from: 2025-06-01\nsupersedes: [hotel-v1]", 1)
	c.send(map[string]any{"method": "textDocument/didChange", "params": map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": fixed}}}})
	oldURI := fileURL(filepath.Join(dir, "hotel-v1.md"))
	d = c.waitDiagnostics(oldURI, "supersedes_boundary")
	related := d["relatedInformation"].([]any)
	if len(related) != 1 || related[0].(map[string]any)["location"].(map[string]any)["uri"] != uri {
		t.Errorf("related information = %v", related)
	}

	h := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 4, "character": 2}}, nil)
	if v := h.(map[string]any)["contents"].(map[string]any)["value"].(string); !strings.Contains(v, "Applies on [2025-06-01, open).") {
		t.Errorf("hover = %q", v)
	}
	comp := c.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 5, "character": 14}}, nil)
	if !strings.Contains(fmt.Sprint(comp), "hotel-v1") {
		t.Errorf("completion = %v", comp)
	}
	def := c.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 5, "character": 15}}, nil)
	if !strings.Contains(fmt.Sprint(def), "hotel-v1.md") {
		t.Errorf("definition = %v", def)
	}
	c.send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": oldURI, "languageId": "markdown", "version": 1, "text": lspOld}}})
	actions := c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": oldURI},
		"range": d["range"], "context": map[string]any{"diagnostics": []any{d}}}, nil)
	if !strings.Contains(fmt.Sprint(actions), "valid_until: 2025-06-01") {
		t.Errorf("code actions = %v", actions)
	}

	// Save the fixed file, then start hotel-v2 after the case's date: the
	// code lens on valid_from names the case whose contract changes.
	testutil.WriteFile(t, policy, fixed)
	c.send(map[string]any{"method": "textDocument/didSave", "params": map[string]any{"textDocument": map[string]any{"uri": uri}, "text": fixed}})
	later := strings.Replace(fixed, "valid_from: 2025-06-01", "valid_from: 2025-10-01", 1)
	c.send(map[string]any{"method": "textDocument/didChange", "params": map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": later}}}})
	lenses := c.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, nil).([]any)
	if len(lenses) != 1 || fmt.Sprint(lenses[0].(map[string]any)["command"].(map[string]any)["title"]) != "1 case changes: a-2025" ||
		lenses[0].(map[string]any)["range"].(map[string]any)["start"].(map[string]any)["line"] != float64(4) {
		t.Errorf("code lenses = %v, want \"1 case changes: a-2025\" on line 4", lenses)
	}

	c.call("shutdown", nil, nil)
	c.send(map[string]any{"method": "exit"})
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("ka2 lsp after shutdown and exit: %v", err)
	}
}

// TestLSPNeovim runs the Neovim snippet of docs/lsp.md in headless Neovim (its
// built-in client starts `ka2 lsp`), opens two policy files of a project
// from a folder below it, and reads back the diagnostic and the client's
// workspace folder. It skips without nvim, except in CI, where nvim must
// be installed (Debian 12 ships 0.7.2, which has no vim.lsp.start and no
// vim.fs).
func TestLSPNeovim(t *testing.T) {
	snippet := readmeNeovim(t) // found with or without nvim
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but nvim is not installed: .ci/run installs it")
		}
		t.Skip("nvim not installed")
	}
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "ka2.yaml"), "corpus: policies\n")
	policy := filepath.Join(dir, "policies", "en", "hotel-v2.md")
	if err := os.MkdirAll(filepath.Dir(policy), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, policy, lspPolicy)
	old := filepath.Join(dir, "policies", "hotel-v1.md")
	testutil.WriteFile(t, old, lspOld)
	script := filepath.Join(t.TempDir(), "check.lua")
	testutil.WriteFile(t, script, snippet+nvimCheck)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Dir = filepath.Dir(policy)
	cmd.Env = append(os.Environ(), "KA2_NVIM_FILES="+old+"\n"+policy)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	for _, want := range []string{"DIAG unknown_key", "did you mean valid_from?", "CLIENTS 1\n", "ROOT " + dir + "\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("nvim output has no %q:\n%s", want, out)
		}
	}
}

// readmeNeovim is the Neovim snippet of docs/lsp.md: the lua block after
// "Neovim (".
func readmeNeovim(t *testing.T) string {
	t.Helper()
	const page = "docs/lsp.md"
	_, rest, ok := strings.Cut(readPage(t, page), "\nNeovim (")
	if ok {
		_, rest, ok = strings.Cut(rest, "```lua\n")
	}
	snippet, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatalf("%s has no ```lua block after \"Neovim (\"", page)
	}
	return snippet + "\n"
}

// nvimCheck follows the docs/lsp.md snippet: it opens each file of
// KA2_NVIM_FILES (filetype detection on, as in a real session), waits at
// most 30 seconds for a diagnostic in the last, prints it with the
// number of ka2 clients and the first one's workspace folder, and quits;
// a timeout exits 1.
const nvimCheck = `
vim.cmd("filetype on")
for _, f in ipairs(vim.split(os.getenv("KA2_NVIM_FILES"), "\n")) do
  vim.cmd("edit " .. vim.fn.fnameescape(f))
end
local ok = vim.wait(30000, function()
  return #vim.diagnostic.get(0) > 0
end, 50)
if not ok then
  io.stdout:write("TIMEOUT no diagnostic\n")
  vim.cmd("cquit 1")
end
for _, d in ipairs(vim.diagnostic.get(0)) do
  io.stdout:write("DIAG " .. tostring(d.code) .. " " .. d.message .. "\n")
end
local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)() -- get_clients from 0.10
io.stdout:write("CLIENTS " .. #clients .. "\n")
io.stdout:write("ROOT " .. tostring(clients[1] and clients[1].config.root_dir) .. "\n")
vim.cmd("qall!")
`

// TestLSPBinaryOversizedHeader sends the real `ka2 lsp` a header line
// that does not end, through a pipe, and counts what the server took from
// it: it ends the session past the header limit, naming it, instead of
// reading on. The pipe's buffer (64 KiB on Linux, 1 MiB at most) holds
// what the server never read.
func TestLSPBinaryOversizedHeader(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ka2", "lsp")
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const offered = 64 << 20
	chunk := []byte(strings.Repeat("7", 64<<10))
	written := 0
	if n, err := io.WriteString(stdin, "Content-Length: "); err == nil {
		written += n
		for written < offered {
			n, err := stdin.Write(chunk)
			written += n
			if err != nil {
				break // the server is gone: the pipe has no reader
			}
		}
	}
	stdin.Close()
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("ka2 lsp exit = %v (code %d), want 2", err, code)
	}
	if !strings.Contains(stderr.String(), "message header is over the limit of 4096 bytes") {
		t.Errorf("stderr = %q, want the header limit named", stderr.String())
	}
	if written > 2<<20 {
		t.Errorf("the server took %d bytes of an endless header line, want it to stop near 4 KiB", written)
	}
}
