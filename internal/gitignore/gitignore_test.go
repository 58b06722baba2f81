package gitignore

import (
	"slices"
	"strings"
	"testing"
)

// pinnedCase is a tree, its .gitignore files and what git leaves out of
// it. TestPinnedAgreesWithGit checks every case against git, so the
// table holds where git is not installed.
type pinnedCase struct {
	name string
	// files are .gitignore contents by folder, "" for the root.
	files map[string]string
	// paths are the files of the tree, a folder with a trailing "/".
	paths []string
	// ignored are the paths git leaves out, folders without the "/".
	ignored []string
}

func (c pinnedCase) entries() []entry {
	var es []entry
	for _, p := range c.paths {
		es = append(es, entry{strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/")})
	}
	return es
}

var pinned = []pinnedCase{
	{
		name:    "a name matches at any depth",
		files:   map[string]string{"": "README.md\n"},
		paths:   []string{"README.md", "a/README.md", "a/b/README.md", "a/README.mdx"},
		ignored: []string{"README.md", "a/README.md", "a/b/README.md"},
	},
	{
		name:    "a leading slash anchors to the file's folder",
		files:   map[string]string{"": "/a.md\n"},
		paths:   []string{"a.md", "x/a.md"},
		ignored: []string{"a.md"},
	},
	{
		name:    "a middle slash anchors too",
		files:   map[string]string{"": "x/a.md\n"},
		paths:   []string{"x/a.md", "y/x/a.md"},
		ignored: []string{"x/a.md"},
	},
	{
		name:    "a trailing slash matches folders only, and what is in them",
		files:   map[string]string{"": "drafts/\n"},
		paths:   []string{"drafts/a.md", "x/drafts/b.md", "y/drafts", "drafts2/c.md"},
		ignored: []string{"drafts", "drafts/a.md", "x/drafts", "x/drafts/b.md"},
	},
	{
		name:    "star and question mark stay within a segment",
		files:   map[string]string{"": "b*\n/x/?.md\n"},
		paths:   []string{"bc", "a/ba", "ab", "x/a.md", "x/ab.md", "x/y/a.md"},
		ignored: []string{"bc", "a/ba", "x/a.md"},
	},
	{
		name:    "star does not cross a slash in an anchored pattern",
		files:   map[string]string{"": "x/*.md\n"},
		paths:   []string{"x/a.md", "x/y/a.md"},
		ignored: []string{"x/a.md"},
	},
	{
		name:    "classes, ranges and negated classes",
		files:   map[string]string{"": "[ab].md\n[!a-c]x\n[]z]y\n[[:digit:]]d\n"},
		paths:   []string{"a.md", "c.md", "ax", "dx", "]y", "zy", "qy", "9d", "ad"},
		ignored: []string{"a.md", "dx", "]y", "zy", "9d"},
	},
	{
		name:    "an unclosed class matches nothing",
		files:   map[string]string{"": "a[b\n"},
		paths:   []string{"a[b", "ab"},
		ignored: nil,
	},
	{
		name:    "leading double star",
		files:   map[string]string{"": "**/docs/a.md\n"},
		paths:   []string{"docs/a.md", "x/docs/a.md", "x/y/docs/a.md", "x/docs/b/a.md"},
		ignored: []string{"docs/a.md", "x/docs/a.md", "x/y/docs/a.md"},
	},
	{
		name:    "middle double star matches zero or more folders",
		files:   map[string]string{"": "a/**/b.md\n"},
		paths:   []string{"a/b.md", "a/x/b.md", "a/x/y/b.md", "c/a/b.md"},
		ignored: []string{"a/b.md", "a/x/b.md", "a/x/y/b.md"},
	},
	{
		name:    "trailing double star matches everything inside",
		files:   map[string]string{"": "a/**\n"},
		paths:   []string{"a/b.md", "a/x/c.md", "b/a/c.md"},
		ignored: []string{"a/b.md", "a/x", "a/x/c.md"},
	},
	{
		name:    "a double star not between slashes is a star",
		files:   map[string]string{"": "/x**y\n"},
		paths:   []string{"xay", "xa/by"},
		ignored: []string{"xay"},
	},
	{
		name:    "after a literal prefix git reads a double star as between slashes",
		files:   map[string]string{"": "foo**/bar\n"},
		paths:   []string{"foo/x/bar", "fooa/b/bar", "foo/bar", "fooa/bar"},
		ignored: []string{"foo/x/bar", "fooa/b/bar", "foo/bar", "fooa/bar"},
	},
	{
		name:    "negation re-includes a file",
		files:   map[string]string{"": "*.md\n!keep.md\n"},
		paths:   []string{"a.md", "keep.md", "x/keep.md"},
		ignored: []string{"a.md"},
	},
	{
		name:    "a file cannot be re-included when its folder is excluded",
		files:   map[string]string{"": "drafts/\n!drafts/keep.md\n"},
		paths:   []string{"drafts/keep.md", "drafts/other.md"},
		ignored: []string{"drafts", "drafts/keep.md", "drafts/other.md"},
	},
	{
		name:    "excluding the contents, not the folder, lets a file back in",
		files:   map[string]string{"": "drafts/*\n!drafts/keep.md\n"},
		paths:   []string{"drafts/keep.md", "drafts/other.md"},
		ignored: []string{"drafts/other.md"},
	},
	{
		name:    "the last matching pattern wins",
		files:   map[string]string{"": "!a.md\na.md\nb.md\n!b.md\n"},
		paths:   []string{"a.md", "b.md"},
		ignored: []string{"a.md"},
	},
	{
		name:    "escaped hash and bang are literal, a plain hash starts a comment",
		files:   map[string]string{"": "#h\n\\#h\n\\!n\n"},
		paths:   []string{"#h", "!n", "h"},
		ignored: []string{"#h", "!n"},
	},
	{
		name:    "trailing spaces are dropped unless escaped",
		files:   map[string]string{"": "a   \nb\\ \n"},
		paths:   []string{"a", "a ", "b", "b "},
		ignored: []string{"a", "b "},
	},
	{
		name:    "escaped wildcards are literal",
		files:   map[string]string{"": "st\\*r\nq\\?\n"},
		paths:   []string{"st*r", "star", "q?", "qa"},
		ignored: []string{"st*r", "q?"},
	},
	{
		name:    "CRLF line ends and blank lines",
		files:   map[string]string{"": "\r\na.md\r\n\r\n   \r\nb.md\r\n"},
		paths:   []string{"a.md", "b.md", "c.md"},
		ignored: []string{"a.md", "b.md"},
	},
	{
		name:    "a nested file's patterns are relative to its folder",
		files:   map[string]string{"x": "/a.md\nb/\n"},
		paths:   []string{"a.md", "x/a.md", "x/y/a.md", "x/y/b/c.md", "b/c.md"},
		ignored: []string{"x/a.md", "x/y/b", "x/y/b/c.md"},
	},
	{
		name:    "a deeper file takes precedence over its parent's",
		files:   map[string]string{"": "*.md\n", "x": "!a.md\n"},
		paths:   []string{"a.md", "x/a.md", "x/b.md"},
		ignored: []string{"a.md", "x/b.md"},
	},
	{
		name:    "a deeper file cannot re-include below a folder its parent excludes",
		files:   map[string]string{"": "x/y/\n", "x/y": "!a.md\n"},
		paths:   []string{"x/y/a.md"},
		ignored: []string{"x/y", "x/y/a.md"},
	},
}

func TestPinned(t *testing.T) {
	for _, tt := range pinned {
		t.Run(tt.name, func(t *testing.T) {
			ps := matcher(tt.files)
			for _, e := range withParents(tt.entries()) {
				want := slices.Contains(tt.ignored, e.path)
				if got := Ignored(ps, e.path, e.isDir); got != want {
					t.Errorf("Ignored(%q, dir %v) = %v, want %v", e.path, e.isDir, got, want)
				}
			}
		})
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line   string
		want   string // Pattern.String
		wantOK bool
	}{
		{line: "", wantOK: false},
		{line: "# comment", wantOK: false},
		{line: "   ", wantOK: false},
		{line: "/", wantOK: false},
		{line: "!", wantOK: false},
		{line: "a.md", want: "a.md", wantOK: true},
		{line: "a.md  ", want: "a.md", wantOK: true},
		{line: `a\ `, want: `a\ `, wantOK: true},
		{line: `a\  `, want: `a\ `, wantOK: true},
		{line: "!drafts/", want: "!drafts/", wantOK: true},
		{line: "/x/y/", want: "/x/y/", wantOK: true},
		{line: "x/y", want: "/x/y", wantOK: true},
		{line: `\#a`, want: `\#a`, wantOK: true},
	}
	for _, tt := range tests {
		p, ok := ParseLine(tt.line, "")
		if ok != tt.wantOK || ok && p.String() != tt.want {
			t.Errorf("ParseLine(%q) = %q, %v, want %q, %v", tt.line, p.String(), ok, tt.want, tt.wantOK)
		}
	}
}

// The walk stops at "*" runs that cannot match rather than trying every
// split: this would take years with naive backtracking.
func TestWildmatchBacktracking(t *testing.T) {
	pattern := strings.Repeat("*a", 30) + "b"
	text := strings.Repeat("a", 200)
	if wildmatch(pattern, text, true) {
		t.Fatal("matched")
	}
	if wildmatch("**/"+strings.Repeat("*a", 30)+"b", strings.Repeat("a/", 20)+text, true) {
		t.Fatal("matched")
	}
	// Past the size of a slice memo.
	if wildmatch(pattern, strings.Repeat("a", 2000), false) {
		t.Fatal("matched")
	}
	if !wildmatch(pattern, strings.Repeat("a", 2000)+"b", false) {
		t.Fatal("did not match")
	}
}

func FuzzMatch(f *testing.F) {
	for _, c := range pinned {
		for _, text := range c.files {
			for _, p := range c.paths {
				f.Add(text, p)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text, p string) {
		ps := Parse([]byte(text), "")
		a := Ignored(ps, p, false)
		if b := Ignored(ps, p, false); a != b {
			t.Fatal("not the same answer twice")
		}
		for _, q := range ps {
			if _, ok := ParseLine(q.String(), ""); !ok {
				t.Fatalf("ParseLine(%q) of a parsed pattern is no pattern", q.String())
			}
		}
	})
}
