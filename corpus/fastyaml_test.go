package corpus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// nodeShape is what the parser reads from a yaml.Node: kind, style,
// whether the tag is null, value, position and children. Comments are
// left out: ka2 reads none.
type nodeShape struct {
	Kind         yaml.Kind
	Style        yaml.Style
	Null         bool
	Value        string
	Line, Column int
	Content      []nodeShape
}

func shape(n *yaml.Node) nodeShape {
	s := nodeShape{Kind: n.Kind, Style: n.Style, Null: n.Tag == "!!null", Value: n.Value, Line: n.Line, Column: n.Column}
	for _, c := range n.Content {
		s.Content = append(s.Content, shape(c))
	}
	return s
}

// frontMatterSeeds are front matter texts: every corpus file in testdata
// and the sample, and forms at the edge of the fast path.
func frontMatterSeeds(t testing.TB) []string {
	seeds := []string{
		"source_id: a\nversion: v1\nsubjects: [x, y]\nvalid_from: 2026-01-01",
		"source_id: a # note\n\n# comment\nsubjects: [\"x\", 'y z']\ncite: [\"1-3\", \"7\"]",
		"subjects: []\nlang: ~\nunit: null\nvalid_until: NULL",
		"unit: 人民币/晚 # 注\nsubjects: [住宿, 差旅]",
		"a: b: c", "a: b #c", "a: b#c", "a: [b, ]", "a: [b,,c]", "a:  x  ", "a: 'it''s'", "a: \"x\\ty\"",
		"a: x\n  continued", "a:\n  - b", " a: b", "a: [b, [c]]", "a: {b: c}", "a: &x b", "a: *x", "a: !!str b",
		"a: -1", "a: 'x' y", "a: \"x\"#c", "a: [x]#c", "a: [x] # c", "a: b\t", "a: \ufeffb", "a: b\u00a0",
		"%YAML 1.2\n---\na: b", "...", "a: b\n...\nc: d", "a: b\na: c", "A-b_1: c", "a : b", "a: x, y", "a: x]",
	}
	for _, root := range []string{"testdata", "sample"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			lines := strings.Split(strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n"), "\n")
			if len(lines) > 1 && isDelimiter(lines[0]) {
				for i := 1; i < len(lines); i++ {
					if isDelimiter(lines[i]) {
						seeds = append(seeds, strings.Join(lines[1:i], "\n"))
						break
					}
				}
			}
			return nil
		})
	}
	return seeds
}

// FuzzFrontMatterFastPath: whenever the hand-written reader accepts front
// matter, yaml.v3 reads the same nodes; and a whole file parses to the
// same Source or the same errors through the fast path as through yaml.v3
// alone.
func FuzzFrontMatterFastPath(f *testing.F) {
	for _, s := range frontMatterSeeds(f) {
		f.Add(s, "Body line one.\nBody line two.")
	}
	// Bodies that start with what belongs to the front matter (refused
	// through either path alike), and prose that only looks like a key.
	fm := "source_id: a\nversion: v1\nsubjects: [x]\nvalid_from: 2026-01-01"
	for _, body := range []string{"valid_until: 2027-01-01\nunit: CNY\n---\nText.", "---\nText.", "\n# note\nlang: en\nText.",
		"lang:", "Scope: lodging on business trips.\n---\nText.", "valid_until:\n"} {
		f.Add(fm, body)
		f.Add(fm+"\nvalid_until:", body)
	}
	f.Fuzz(func(t *testing.T, fm, body string) {
		fast, arena, ok := fastFrontMatter(fm)
		if ok {
			defer arena.release()
			var slow yaml.Node
			if err := yaml.Unmarshal([]byte(fm), &slow); err != nil {
				t.Fatalf("fast path accepted %q, yaml.v3 refuses it: %v", fm, err)
			}
			// The document node's own position is never read; its mapping
			// and everything below must match.
			if len(slow.Content) != 1 {
				t.Fatalf("fast path accepted %q, yaml.v3 reads %d documents", fm, len(slow.Content))
			}
			if diff := cmp.Diff(shape(slow.Content[0]), shape(fast.Content[0])); diff != "" {
				t.Fatalf("front matter %q: fast path mismatch (-yaml.v3 +fast):\n%s", fm, diff)
			}
		}
		if strings.Contains(fm, "\n---") || strings.HasPrefix(fm, "---") {
			return // a delimiter line would end the front matter early
		}
		data := []byte("---\n" + fm + "\n---\n" + body)
		got, gotErr := Parse("p.md", data)
		slowYAML.Store(true)
		want, wantErr := Parse("p.md", data)
		slowYAML.Store(false)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("file %q:\nfast path error: %v\nyaml.v3 error: %v", data, gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Date{}, Source{})); diff != "" {
			t.Fatalf("file %q: Parse() mismatch (-yaml.v3 +fast):\n%s", data, diff)
		}
	})
}

// TestFrontMatterFastPathTaken: the forms the corpus uses go the fast way.
func TestFrontMatterFastPathTaken(t *testing.T) {
	for _, fm := range []string{
		"source_id: travel-v2          # required\nversion: v2\nsubjects: [lodging]\nvalid_from: 2026-01-01\nvalid_until: 2027-01-01\nsupersedes: [travel-v1]\nlang: en\nunit: CNY per room-night\ncite: [\"1-3\"]",
		"source_id: 差旅-v1\nunit: 元/晚\nsubjects: [住宿]",
	} {
		if _, _, ok := fastFrontMatter(fm); !ok {
			t.Errorf("fastFrontMatter(%q) fell back to yaml.v3", fm)
		}
	}
	for _, fm := range frontMatterSeeds(t) {
		checkFastPath(t, fm)
	}
}

// checkFastPath runs the fuzz target's node comparison on one input, so
// that every seed is checked by go test without -fuzz.
func checkFastPath(t *testing.T, fm string) {
	t.Helper()
	fast, arena, ok := fastFrontMatter(fm)
	if !ok {
		return
	}
	defer arena.release()
	var slow yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &slow); err != nil || len(slow.Content) != 1 {
		t.Errorf("fast path accepted %q, yaml.v3 does not (%v)", fm, err)
		return
	}
	if diff := cmp.Diff(shape(slow.Content[0]), shape(fast.Content[0])); diff != "" {
		t.Errorf("front matter %q: fast path mismatch (-yaml.v3 +fast):\n%s", fm, diff)
	}
}

// SetSlowYAML turns the front matter fast path off (or back on) and
// returns a function that restores it, for the benchmarks in package
// corpus_test that compare the two.
func SetSlowYAML(on bool) (restore func()) {
	was := slowYAML.Swap(on)
	return func() { slowYAML.Store(was) }
}
