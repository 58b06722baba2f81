package corpus_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// parseCodes are the problems Parse can report; Load, Lookup and Quote add
// others.
var parseCodes = map[diag.Code]bool{
	corpus.CodeInvalidUTF8: true, corpus.CodeNoFrontMatter: true, corpus.CodeBadFrontMatter: true,
	corpus.CodeUnknownKey: true, corpus.CodeDuplicateKey: true, corpus.CodeMissingKey: true,
	corpus.CodeBadValue: true, corpus.CodeBadDate: true, corpus.CodeEmptyInterval: true,
	corpus.CodeCiteOutsideBody: true, corpus.CodeEmptyBody: true, corpus.CodeFrontMatterInBody: true,
}

// fileLines counts the lines of a file as a person does: a final newline
// ends the last line rather than starting another. A BOM is not a line.
func fileLines(data []byte) int {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// bodyText rebuilds the body of a parsed file from its bytes without the
// parser's help: CRLF becomes LF, a final newline goes, and the lines from
// the body line on are joined with LF.
func bodyText(data []byte, bodyLine int) string {
	s := strings.TrimPrefix(string(data), "\ufeff")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	if bodyLine-1 >= len(lines) {
		return ""
	}
	return strings.Join(lines[bodyLine-1:], "\n")
}

// FuzzParse feeds Parse arbitrary files, seeded with the sample corpus,
// every file of the fixtures and the broken files of TestParseErrors, and
// checks what must hold for any input: no panic; the same answer twice; on
// failure, problems that each have the path, a known code, a position
// inside the file, a message and a hint; on success, a valid source whose
// lines are exactly the body of the file.
func FuzzParse(f *testing.F) {
	var seeds [][]byte
	for _, file := range sampleFiles(f) {
		seeds = append(seeds, file.Data)
	}
	archives, err := filepath.Glob(filepath.Join("testdata", "load", "*.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range archives {
		for _, file := range readArchive(f, filepath.Join("load", filepath.Base(name))).Files {
			if strings.HasSuffix(file.Name, ".md") {
				seeds = append(seeds, file.Data)
			}
		}
	}
	for _, tt := range parseErrorTests {
		seeds = append(seeds, []byte(tt.in))
	}
	for _, s := range seeds {
		f.Add(s)
		f.Add(append([]byte("\ufeff"), bytes.ReplaceAll(s, []byte("\n"), []byte("\r\n"))...))
	}

	const path = "dir/policy.md"
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := corpus.Parse(path, data)
		again, err2 := corpus.Parse(path, data)
		if diff := cmp.Diff(src, again, dateCmp); diff != "" || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("Parse() gave two answers for the same file:\n%s\n%v\n%v", diff, err, err2)
		}
		lines := fileLines(data)

		if err != nil {
			if src != nil {
				t.Fatalf("Parse() returned a source and an error")
			}
			list := errorList(t, err)
			if len(list) == 0 {
				t.Fatalf("Parse() returned an empty ErrorList")
			}
			for _, e := range list {
				if e.Path != path || !parseCodes[e.Code] || e.Message == "" || e.Hint.IsZero() {
					t.Errorf("problem %q: want path %s, a Parse code (got %q), a message and a hint", e, path, e.Code)
				}
				last := max(lines, 1)
				if e.Code == corpus.CodeEmptyBody {
					last = lines + 1 // the line after the closing '---', where the text belongs
				}
				if e.Line < 1 || e.Line > last || e.Col < 1 {
					t.Errorf("problem %q: position %d:%d is outside a file of %d lines", e, e.Line, e.Col, lines)
				}
			}
			return
		}

		if src.Path != path || src.Digest != sha(string(data)) {
			t.Errorf("Parse() Path, Digest = %q, %q", src.Path, src.Digest)
		}
		if src.HasBOM != bytes.HasPrefix(data, []byte("\ufeff")) {
			t.Errorf("Parse() HasBOM = %t", src.HasBOM)
		}
		body := bodyLines(src)
		for i, l := range body {
			if strings.Contains(l, "\n") {
				t.Errorf("body line %d contains a newline: %q", i+1, l)
			}
			if src.Line(i+1) != l {
				t.Errorf("Line(%d) = %q, but Lines() yields %q", i+1, src.Line(i+1), l)
			}
		}
		if got := src.BodyLine - 1 + src.NumLines(); got != lines || len(body) != src.NumLines() {
			t.Errorf("BodyLine-1+NumLines() = %d-1+%d = %d, want the file's %d lines (Lines() yields %d)", src.BodyLine, src.NumLines(), got, lines, len(body))
		}
		want := bodyText(data, src.BodyLine)
		if src.NumLines() > 0 {
			q, err := src.Quote(src.Body())
			if err != nil {
				t.Fatalf("Quote(Body()) error: %v", err)
			}
			if q != strings.Join(body, "\n") || q != want || q != src.Text() {
				t.Errorf("Quote(Body()) = %q, want %q (the file's body)", q, want)
			}
		} else if want != "" {
			t.Errorf("no body lines, but the file has body %q", want)
		}
		// Every range quotes its lines, joined by "\n".
		for start := 1; start <= min(len(body), 20); start++ {
			for end := start; end <= min(len(body), 20); end++ {
				q, err := src.Quote(corpus.Range{Start: start, End: end})
				if want := strings.Join(body[start-1:end], "\n"); err != nil || q != want {
					t.Errorf("Quote(%d-%d) = %q, %v; want %q", start, end, q, err, want)
				}
			}
		}
		for _, r := range src.Cite {
			if _, err := src.Quote(r); err != nil {
				t.Errorf("cite %v: %v", r, err)
			}
		}
		if !corpus.ValidSourceID(src.ID) || src.Version == "" || len(src.Subjects) == 0 || src.ValidFrom.IsZero() {
			t.Errorf("Parse() accepted a source without a valid id, version, subject or valid_from: %+v", src)
		}
		if !src.ValidUntil.IsZero() && !src.ValidFrom.Before(src.ValidUntil) {
			t.Errorf("Parse() accepted an empty interval [%s, %s)", src.ValidFrom, src.ValidUntil)
		}
		if pos, ok := src.Keys.Get("source_id"); !ok || pos.Line < 2 || pos.Line >= src.BodyLine {
			t.Errorf("Keys[source_id] = %v, %t, want a line inside the front matter", pos, ok)
		}
		// The body never starts with what belongs to the front matter: no
		// '---' first, and no known key before the first line of text past
		// blank and '#' lines.
		blank := true
		for i, l := range body {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if blank && strings.TrimRight(l, " \t") == "---" {
				t.Errorf("Parse() accepted a body that starts with '---' on its line %d", i+1)
			}
			blank = false
			if strings.HasPrefix(l, "#") {
				continue
			}
			if key, rest, ok := strings.Cut(l, ":"); ok && slices.Contains(corpus.KnownKeys(), key) && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				t.Errorf("Parse() accepted a body whose line %d is a front matter key: %q", i+1, l)
			}
			break
		}
	})
}
