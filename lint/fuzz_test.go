package lint

import (
	"context"
	"io"
	"io/fs"
	"os"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// FuzzLint lints a corpus made of one clean file plus the fuzzed file,
// twice (under two names, so the rules that compare files see a duplicate
// of it), and checks that nothing panics, that every finding is well formed
// and sorted, that two runs agree, and that every format writes it.
func FuzzLint(f *testing.F) {
	// A clean partner, so that the rules that compare files have something
	// to compare the fuzzed file with. The sample corpus seeds the fuzzer.
	base := fstest.MapFS{"partner.md": {Data: []byte(validFile("travel-v1", "lodging", "2025-01-01", "2026-01-01", "unit: CNY"))}}
	err := fs.WalkDir(corpus.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(corpus.Sample(), p)
		f.Add(data)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	err = fs.WalkDir(os.DirFS("testdata/corpus"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile("testdata/corpus/" + p)
		f.Add(data)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(""))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\nsource_id: x\r\n# ka2lint:disable\r\n---\r\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{}
		for k, v := range base {
			fsys[k] = v
		}
		fsys["fuzz.md"] = &fstest.MapFile{Data: data}
		fsys["copy/fuzz.md"] = &fstest.MapFile{Data: data}
		opts := Options{Today: corpus.MustDate(2026, 9, 14)}
		rep, err := Run(context.Background(), fsys, opts)
		if err != nil {
			t.Fatalf("Run() error: %v", err)
		}
		for _, fd := range rep.Findings {
			if _, ok := RuleByID(fd.Rule()); !ok {
				t.Errorf("finding of unknown rule: %v", fd)
			}
			if fd.Severity < diag.SeverityInfo || fd.Severity > diag.SeverityError {
				t.Errorf("finding with severity %v: %v", fd.Severity, fd)
			}
			if fd.Line < 0 || fd.Col < 0 || fsys[fd.Path] == nil {
				t.Errorf("finding with a bad position: %v", fd)
			}
			if fd.Message == "" {
				t.Errorf("finding without message: %v", fd)
			}
		}
		if !slices.IsSortedFunc(rep.Findings, compareFindings) {
			t.Error("findings are not sorted")
		}
		again, err := Run(context.Background(), fsys, opts)
		if err != nil || !slices.EqualFunc(rep.Findings, again.Findings, func(a, b Finding) bool {
			return compareFindings(a, b) == 0 && a.Severity == b.Severity && slices.Equal(a.Related, b.Related)
		}) {
			t.Error("two runs disagree")
		}
		if _, err := Run(context.Background(), fsys, Options{ChangedOnly: true, Changed: []string{"fuzz.md"}}); err != nil {
			t.Errorf("Run(context.Background(), ChangedOnly) error: %v", err)
		}
		for _, name := range Formats() {
			write, _ := Formatter(name)
			if err := write(io.Discard, rep); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}

// FuzzConfig checks that no configuration file makes ParseConfig panic, and
// that what it accepts can be used.
func FuzzConfig(f *testing.F) {
	f.Add([]byte("rules:\n  overlap: off\noverrides:\n  - files: [\"a/**\"]\n    rules: {crlf: error}\n"))
	f.Add([]byte("overrides: [{files: x, rules: {bom: info}}]"))
	f.Add([]byte("rules: [\n"))
	f.Add([]byte("rules:\n  overlap: off\n...\nrules: {overlap: error}\n"))
	f.Add([]byte("rules: !!map {overlap: !!str off}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("c.yaml", data)
		if err != nil {
			return
		}
		for _, r := range Rules() {
			c.severity(r, "a/b.md")
		}
	})
}
