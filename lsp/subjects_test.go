package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCompleteHierarchicalSubject: completing a subject replaces all of
// the subject typed so far, '/' included, not only its last segment (a
// client's word ends at '/').
func TestCompleteHierarchicalSubject(t *testing.T) {
	beijing := strings.Replace(hotelV1, "subjects: [lodging]", "subjects: [travel/lodging/beijing]", 1)
	dir := writeFiles(t, map[string]string{"hotel-v1.md": beijing, "hotel-v2.md": hotelV2})
	c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
	if err := c.call("initialize", map[string]any{"rootUri": fileURI(dir)}, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", struct{}{})
	uri := fileURI(filepath.Join(dir, "hotel-v2.md"))
	tests := []struct {
		line      string
		wantStart int // where the edit starts; it ends at the cursor, the end of the line
	}{
		{"subjects: [lodging, travel/lo", len("subjects: [lodging, ")},
		{"subjects: [travel/", len("subjects: [")},
		{"subject: trav", len("subject: ")},
		{"subjects: [lodging, ", len("subjects: [lodging, ")},
	}
	for _, tt := range tests {
		text := strings.Replace(hotelV2, "subjects: [lodging]", tt.line, 1)
		c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: text, Version: 1}})
		var list completionList
		c.call("textDocument/completion", positionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 3, Character: len(tt.line)}}, &list)
		var got *completionItem
		for i := range list.Items {
			if list.Items[i].Label == "travel/lodging/beijing" {
				got = &list.Items[i]
			}
		}
		want := textEdit{Range: lspRange{Start: position{Line: 3, Character: tt.wantStart}, End: position{Line: 3, Character: len(tt.line)}}, NewText: "travel/lodging/beijing"}
		if got == nil || got.TextEdit == nil || *got.TextEdit != want {
			t.Errorf("%q: completion = %+v, want travel/lodging/beijing with edit %+v", tt.line, list.Items, want)
		}
	}
}

// TestValueQuickFix: a subject in capitals, or a lang tag in capitals, is
// offered the spelling the diagnostic suggests as a quick fix.
func TestValueQuickFix(t *testing.T) {
	tests := []struct {
		written, fixed string // the line as written, and as the fix writes it
		line           int    // 0-based
	}{
		{"subjects: [Lodging]", "subjects: [lodging]", 3},
		{"lang: EN", "lang: en", 6},
	}
	for _, tt := range tests {
		written, fixed := tt.written, tt.fixed
		dir := writeFiles(t, map[string]string{"hotel-v2.md": hotelV2})
		c := startServer(t, Options{AfterFunc: (&fakeTimer{}).after, Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }})
		if err := c.call("initialize", map[string]any{"rootUri": fileURI(dir)}, nil); err != nil {
			t.Fatal(err)
		}
		c.notify("initialized", struct{}{})
		uri := fileURI(filepath.Join(dir, "hotel-v2.md"))
		text := strings.Replace(hotelV2, fixed, written, 1)
		c.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Text: text, Version: 1}})
		var actions []codeAction
		c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{URI: uri},
			Range: lspRange{Start: position{Line: tt.line}, End: position{Line: tt.line, Character: len(written)}}}, &actions)
		var got []string
		for _, a := range actions {
			for _, e := range a.Edit.Changes[uri] {
				l := lines(text)[e.Range.Start.Line]
				got = append(got, l[:e.Range.Start.Character]+e.NewText+l[e.Range.End.Character:])
			}
		}
		if !slices.Contains(got, fixed) {
			t.Errorf("%s: quick fixes write %q, want %q among them", written, got, fixed)
		}
	}
}
