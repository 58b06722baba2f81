package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnsavedBuffer: a buffer whose file is not on disk (a new policy, in
// the corpus folder or in a folder not made yet) is linted as a saved one
// is, its diagnostics name it, and closing it withdraws them.
func TestUnsavedBuffer(t *testing.T) {
	typo := strings.Replace(hotelV2, "lang: en", "valid_untill: 2027-01-01", 1)
	tests := []struct {
		name string
		rel  string // where the new buffer is, relative to the corpus folder
	}{
		{"beside the saved files", "typo.md"},
		{"in a folder on disk", "en/typo.md"},
		{"in a folder not made yet", "drafts/2027/typo.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"hotel-v1.md": hotelV1, "en/other.md": strings.Replace(hotelV1, "hotel-v1", "other-v1", 1)})
			c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
			if err := c.call("initialize", map[string]any{"rootUri": fileURI(dir)}, nil); err != nil {
				t.Fatal(err)
			}
			c.notify("initialized", struct{}{})
			uri := fileURI(filepath.Join(dir, filepath.FromSlash(tt.rel)))
			c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: typo, Version: 1}})
			diags, ok := c.published(uri)
			if !ok {
				t.Fatalf("didOpen of unsaved %s published no diagnostics", tt.rel)
			}
			var msgs []string
			for _, d := range diags {
				msgs = append(msgs, d.Message)
			}
			if want := `unknown key "valid_untill"; did you mean valid_until?`; !strings.Contains(strings.Join(msgs, "\n"), want) {
				t.Errorf("didOpen of unsaved %s: diagnostics = %q, want %q", tt.rel, msgs, want)
			}
			c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
			if diags, ok := c.published(uri); !ok || len(diags) != 0 {
				t.Errorf("didClose of unsaved %s: diagnostics = %+v, want none", tt.rel, diags)
			}
		})
	}
}

// published returns the last diagnostics published for uri before the
// answer to a request sent now, and whether any were: the server sends
// what a notification made it publish before answering the next request.
func (c *client) published(uri string) ([]diagnostic, bool) {
	c.t.Helper()
	c.call("ka2/none", nil, nil) // any request will do: this one is refused, touching nothing
	var last []diagnostic
	found := false
	for _, m := range c.drain() {
		var p publishDiagnosticsParams
		if m.Method == "textDocument/publishDiagnostics" && json.Unmarshal(m.Params, &p) == nil && p.URI == uri {
			last, found = p.Diagnostics, true
		}
	}
	return last, found
}
