package corpus_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// TestQuoteLines: a source's body is held as one string, and every line and
// quote is a piece of it; each is exactly the file's lines without their
// terminators, whether the file has LF, CRLF (in the body or only in the
// front matter), a BOM, a stray CR, blank lines or no final newline, and
// whether it was loaded from a folder (sharing the file's bytes) or
// parsed from bytes the caller keeps. A range outside the body is an
// error.
func TestQuoteLines(t *testing.T) {
	fm := "---\nsource_id: %s\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\n"
	tests := []struct {
		name string
		file string
		want []string // the body lines
	}{
		{"lf", fmt.Sprintf(fm, "lf") + "one\n\ntwo three\n  four  \n", []string{"one", "", "two three", "  four  "}},
		{"crlf", strings.ReplaceAll(fmt.Sprintf(fm, "crlf"), "\n", "\r\n") + "one\r\ntwo\r\n\r\nthree", []string{"one", "two", "", "three"}},
		{"crlf-front-matter-only", strings.ReplaceAll(fmt.Sprintf(fm, "fmcrlf"), "\n", "\r\n") + "one\ntwo\n", []string{"one", "two"}},
		{"crlf-body-only", fmt.Sprintf(fm, "bodycrlf") + "one\r\ntwo\r\n", []string{"one", "two"}},
		{"bom", "\ufeff" + fmt.Sprintf(fm, "bom") + "uno\ndos", []string{"uno", "dos"}},
		{"lone-cr", fmt.Sprintf(fm, "lonecr") + "a\rb\nc\r", []string{"a\rb", "c\r"}},
		{"cr-before-crlf", fmt.Sprintf(fm, "crcrlf") + "a\r\r\nb\r\n", []string{"a\r", "b"}},
		{"blanks", fmt.Sprintf(fm, "blanks") + "\n\ntext\n\n", []string{"", "", "text", ""}},
		{"one-line-no-newline", fmt.Sprintf(fm, "one") + "text", []string{"text"}},
		{"unicode", fmt.Sprintf(fm, "unicode") + "住宿标准\n每晚 750 元\n", []string{"住宿标准", "每晚 750 元"}},
	}
	files := fstest.MapFS{}
	for _, tt := range tests {
		files[tt.name+".md"] = &fstest.MapFile{Data: []byte(tt.file)}
	}
	loaded, err := corpus.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := corpus.Parse(tt.name+".md", []byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var fromLoad *corpus.Source
			for _, s := range loaded.Sources {
				if s.Path == tt.name+".md" {
					fromLoad = s
				}
			}
			for _, s := range []*corpus.Source{parsed, fromLoad} {
				checkBody(t, s, tt.want)
			}
		})
	}
}

// TestSetLines: a body built rather than parsed reads back as given,
// including no lines at all and one empty line, which differ.
func TestSetLines(t *testing.T) {
	for _, lines := range [][]string{nil, {""}, {"", ""}, {"a"}, {"a", "", "b c"}, {"a\r", "\tb"}} {
		s := &corpus.Source{ID: "built"}
		s.SetLines(lines...)
		checkBody(t, s, lines)
	}
	s := &corpus.Source{ID: "built"}
	s.SetLines("a\nb")
	checkBody(t, s, []string{"a", "b"})
	s.SetLines()
	checkBody(t, s, nil)
}

// checkBody checks every accessor of s's body against want, its lines.
func checkBody(t *testing.T, s *corpus.Source, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, bodyLines(s)); diff != "" {
		t.Errorf("%s: Lines() mismatch (-want +got):\n%s", s.ID, diff)
	}
	if s.NumLines() != len(want) {
		t.Errorf("%s: NumLines() = %d, want %d", s.ID, s.NumLines(), len(want))
	}
	if got := s.Text(); got != strings.Join(want, "\n") {
		t.Errorf("%s: Text() = %q, want %q", s.ID, got, strings.Join(want, "\n"))
	}
	wantBody := corpus.Range{}
	if len(want) > 0 {
		wantBody = corpus.Range{Start: 1, End: len(want)}
	}
	if s.Body() != wantBody {
		t.Errorf("%s: Body() = %v, want %v", s.ID, s.Body(), wantBody)
	}
	for i, l := range want {
		if got := s.Line(i + 1); got != l {
			t.Errorf("%s: Line(%d) = %q, want %q", s.ID, i+1, got, l)
		}
	}
	n := len(want)
	for start := 0; start <= n+1; start++ {
		for end := start - 1; end <= n+1; end++ {
			r := corpus.Range{Start: start, End: end}
			got, err := s.Quote(r)
			if start < 1 || end > n || start > end {
				var d *diag.Diagnostic
				if !errors.As(err, &d) || d.Code != corpus.CodeRangeOutsideBody || got != "" {
					t.Errorf("%s: Quote(%v) = %q, %v; want a %s error", s.ID, r, got, err, corpus.CodeRangeOutsideBody)
				}
				continue
			}
			if want := strings.Join(want[start-1:end], "\n"); err != nil || got != want {
				t.Errorf("%s: Quote(%v) = %q, %v; want %q", s.ID, r, got, err, want)
			}
		}
	}
}
