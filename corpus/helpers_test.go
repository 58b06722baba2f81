package corpus_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// dateCmp compares Dates, whose day number is unexported, and Sources,
// whose body is. Where a Source keeps its short lists (its held storage)
// is not compared, what they hold is.
var dateCmp = cmp.Options{cmp.Comparer(func(a, b corpus.Date) bool { return a == b }), cmp.AllowUnexported(corpus.Source{}),
	cmpopts.IgnoreFields(corpus.Source{}, "heldStrings", "heldCite", "heldEnds")}

// bodyLines returns the body lines of s.
func bodyLines(s *corpus.Source) []string {
	var lines []string
	for _, l := range s.Lines() {
		lines = append(lines, l)
	}
	return lines
}

// mustDate parses a date that a test knows to be valid.
// readArchive reads testdata/NAME, a txtar archive of corpus files.
func readArchive(t testing.TB, name string) *txtar.Archive {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// archiveFS returns the files of an archive as an in-memory file system.
func archiveFS(a *txtar.Archive) fstest.MapFS {
	m := fstest.MapFS{}
	for _, f := range a.Files {
		m[f.Name] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	return m
}

// writeFiles writes files (slash-separated name → content) below dir, in
// the order given, creating folders as needed.
func writeFiles(t testing.TB, dir string, files []txtar.File) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadDir loads dir the way the CLI does: through os.Root, so that links
// cannot leave it.
func loadDir(t testing.TB, dir string) (*corpus.Corpus, error) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return corpus.Load(root.FS())
}

// sampleFiles returns every file of the embedded sample corpus.
func sampleFiles(t testing.TB) []txtar.File {
	t.Helper()
	var files []txtar.File
	err := fs.WalkDir(corpus.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(corpus.Sample(), p)
		files = append(files, txtar.File{Name: p, Data: data})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// errorList returns the problems in err, failing the test if err is not an
// ErrorList.
func errorList(t testing.TB, err error) diag.List {
	t.Helper()
	var l diag.List
	if !errors.As(err, &l) {
		t.Fatalf("error %v (%T) is not an ErrorList", err, err)
	}
	return l
}

// problems formats each problem as "[code] path:line:col: msg; hint".
func problems(t testing.TB, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range errorList(t, err) {
		out = append(out, fmt.Sprintf("[%s] %s", e.Code, e))
	}
	return out
}

// summary describes the outcome of Load for a golden file: every source on
// one line, or every problem on one line.
func summary(t testing.TB, c *corpus.Corpus, err error) string {
	t.Helper()
	var b strings.Builder
	if err != nil {
		if c != nil {
			t.Errorf("Load() returned a corpus and an error")
		}
		l := errorList(t, err)
		fmt.Fprintf(&b, "refused: %d problems\n", len(l))
		for _, p := range problems(t, err) {
			fmt.Fprintln(&b, p)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "loaded: %d sources\ndigest: %s\n", len(c.Sources), c.Digest)
	for _, s := range c.Sources {
		until := s.ValidUntil.String()
		if until == "" {
			until = "open"
		}
		fmt.Fprintf(&b, "%s lang=%q version=%q subjects=%q valid=[%s, %s) supersedes=%q unit=%q cite=%v path=%s body=%d lines from line %d\n",
			s.ID, s.Lang, s.Version, s.Subjects, s.ValidFrom, until, s.Supersedes, s.Unit, s.Cite, s.Path, s.NumLines(), s.BodyLine)
	}
	return b.String()
}

// assertCode checks that err is, or wraps, an *Error with the given code.
func assertCode(t testing.TB, err error, want diag.Code) {
	t.Helper()
	var e *diag.Diagnostic
	if !errors.As(err, &e) {
		t.Errorf("error %v (%T) is not a *diag.Diagnostic", err, err)
		return
	}
	if e.Code != want {
		t.Errorf("error code = %s, want %s", e.Code, want)
	}
}

// keys makes the KeyPositions of a source from a map, for literals.
func keys(m map[string]corpus.Pos) corpus.KeyPositions {
	var k corpus.KeyPositions
	for key, p := range m {
		if !k.Set(key, p) {
			panic("not a known key: " + key)
		}
	}
	return k
}
