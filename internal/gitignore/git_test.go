package gitignore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRepo is a scratch repository in which git itself says which paths
// its .gitignore files leave out: the oracle the matcher is held to.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
	// ignoreFiles are the .gitignore files written by the last check, to
	// remove before the next.
	ignoreFiles []string
}

// newGitRepo makes an empty repository, or skips the test when git is
// not installed (TestPinned covers the rules then).
func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH:", err)
	}
	dir := t.TempDir()
	// No user or system configuration: a core.excludesFile there would
	// add patterns of its own.
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	r := &gitRepo{t: t, dir: dir, env: env}
	r.git(nil, "init", "-q")
	return r
}

func (r *gitRepo) git(stdin []byte, args ...string) []byte {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.dir, r.env, bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// check-ignore exits 1 when no path is ignored.
	if err != nil && !(args[0] == "check-ignore" && cmd.ProcessState.ExitCode() == 1) {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// entry is a path of a tree and whether it is a folder.
type entry struct {
	path  string
	isDir bool
}

// mkTree creates the files and folders of entries in the repository.
func (r *gitRepo) mkTree(entries []entry) {
	r.t.Helper()
	for _, e := range entries {
		p := filepath.Join(r.dir, filepath.FromSlash(e.path))
		var err error
		if e.isDir {
			err = os.MkdirAll(p, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, nil, 0o644)
		}
		if err != nil {
			r.t.Fatal(err)
		}
	}
}

// ignored writes files (.gitignore contents by folder, "" for the root)
// and returns the entries git leaves out.
func (r *gitRepo) ignored(files map[string]string, entries []entry) map[string]bool {
	r.t.Helper()
	for _, f := range r.ignoreFiles {
		if err := os.Remove(f); err != nil {
			r.t.Fatal(err)
		}
	}
	r.ignoreFiles = nil
	for dir, text := range files {
		f := filepath.Join(r.dir, filepath.FromSlash(dir), ".gitignore")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			r.t.Fatal(err)
		}
		r.ignoreFiles = append(r.ignoreFiles, f)
	}
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.path)
		in.WriteByte(0)
	}
	out := r.git(in.Bytes(), "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	// Four fields per path: source, line, pattern, path.
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields)%4 != 0 {
		r.t.Fatalf("git check-ignore printed %q", out)
	}
	got := map[string]bool{}
	for i := 0; i < len(fields); i += 4 {
		pattern := fields[i+2]
		got[fields[i+3]] = pattern != "" && !strings.HasPrefix(pattern, "!")
	}
	return got
}

// matcher returns the patterns of files in git's order of precedence: a
// deeper folder's after its parents'.
func matcher(files map[string]string) []Pattern {
	dirs := make([]string, 0, len(files))
	for d := range files {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b string) int {
		if c := depth(a) - depth(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var ps []Pattern
	for _, d := range dirs {
		ps = append(ps, Parse([]byte(files[d]), d)...)
	}
	return ps
}

func depth(dir string) int {
	if dir == "" {
		return 0
	}
	return strings.Count(dir, "/") + 1
}

// The pinned cases say what git says: checked here against git itself.
// Each case has a folder of its own in one repository, whose .gitignore
// files speak only for what is below them, so that one git process
// answers for every case.
func TestPinnedAgreesWithGit(t *testing.T) {
	r := newGitRepo(t)
	files := map[string]string{}
	var entries []entry
	for i, tt := range pinned {
		for d, text := range tt.files {
			files[path.Join(caseDir(i), d)] = text
		}
		for _, e := range withParents(tt.entries()) {
			entries = append(entries, entry{caseDir(i) + "/" + e.path, e.isDir})
		}
	}
	r.mkTree(entries)
	want := r.ignored(files, entries)
	for i, tt := range pinned {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range tt.entries() {
				if got, git := slices.Contains(tt.ignored, e.path), want[caseDir(i)+"/"+e.path]; got != git {
					t.Errorf("pinned %s ignored = %v, git says %v (files %q)", e.path, got, git, tt.files)
				}
			}
		})
	}
}

// caseDir is the folder in which pinned case i is checked.
func caseDir(i int) string { return fmt.Sprintf("case%03d", i) }

// withParents adds the folders above every entry.
func withParents(entries []entry) []entry {
	seen := map[string]bool{}
	var out []entry
	for _, e := range entries {
		for d := path.Dir(e.path); d != "."; d = path.Dir(d) {
			if !seen[d] {
				seen[d] = true
				out = append(out, entry{d, true})
			}
		}
	}
	for _, e := range entries {
		if !seen[e.path] {
			seen[e.path] = true
			out = append(out, e)
		}
	}
	return out
}

// Generated patterns and trees, seeded so that a failure repeats: the
// matcher must say what git says for every file and folder.
func TestAgainstGit(t *testing.T) {
	r := newGitRepo(t)
	rng := rand.New(rand.NewPCG(16, 2026))
	entries := genTree(rng)
	r.mkTree(entries)
	var dirs []string
	for _, e := range entries {
		if e.isDir {
			dirs = append(dirs, e.path)
		}
	}
	trials := 40
	if *long {
		trials = 300
	}
	failures, excluded, kept := 0, 0, 0
	defer func() {
		// The generator must give git something to decide both ways.
		if !t.Failed() && (excluded < len(entries)*trials/20 || kept < len(entries)*trials/20) {
			t.Errorf("%d paths excluded, %d kept: the generated patterns say too little", excluded, kept)
		}
	}()
	for trial := range trials {
		files := map[string]string{"": genIgnoreFile(rng)}
		for range rng.IntN(3) {
			files[dirs[rng.IntN(len(dirs))]] = genIgnoreFile(rng)
		}
		want := r.ignored(files, entries)
		ps := matcher(files)
		for _, e := range entries {
			if want[e.path] {
				excluded++
			} else {
				kept++
			}
			if got := Ignored(ps, e.path, e.isDir); got != want[e.path] {
				t.Errorf("trial %d: %q (dir %v): matcher says ignored=%v, git says %v\n.gitignore files: %q", trial, e.path, e.isDir, got, want[e.path], files)
				if failures++; failures > 20 {
					t.FailNow()
				}
			}
		}
	}
}

// names are the path segments of generated trees: ordinary names and
// ones with the characters patterns treat specially.
var names = []string{
	"a", "b", "ab", "ba", "abc", "a.md", "b.md", "README.md", "c.txt", "x y", "sp ",
	"#h", "!n", "[s]", "st*r", "q?", `back\slash`, "A", "Z9", "é.md", "-", "docs", "drafts",
}

func genTree(rng *rand.Rand) []entry {
	var files []string
	for range 160 {
		parts := make([]string, 1+rng.IntN(4))
		for i := range parts {
			parts[i] = names[rng.IntN(len(names))]
		}
		files = append(files, strings.Join(parts, "/"))
	}
	// A name that is a folder somewhere cannot also be a file there.
	isDir := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			isDir[d] = true
		}
	}
	var entries []entry
	seen := map[string]bool{}
	for d := range isDir {
		entries = append(entries, entry{d, true})
		seen[d] = true
	}
	for _, f := range files {
		if !seen[f] {
			seen[f] = true
			entries = append(entries, entry{f, false})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	return entries
}

// atoms make up the segments of generated patterns.
var atoms = []string{
	"a", "b", "ab", "a", "b", ".md", ".txt", "x y", "c", "README", "docs", "drafts", "A", "é",
	"*", "*", "?", "**", "[ab]", "[!a]", "[^b]", "[a-c]", "[]a]", "[!]]", "[[:alpha:]]", "[[:digit:]x]", "[[:upper:]]",
	"[a-]", "[a-b-d]", "[--b]", "[!a-b-]", "[\\]]", "[", "[[:nope:]]", "a**", "d**", "**b", "**", `\#`, `\!`, `\*`, `\?`, `\[`, `\ `, " ", "#", "!", "-",
}

func genIgnoreFile(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		b.WriteString(genPattern(rng))
		if rng.IntN(8) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func genPattern(rng *rand.Rand) string {
	switch rng.IntN(30) {
	case 0:
		return ""
	case 1:
		return "# a comment"
	case 2:
		return "   "
	}
	var b strings.Builder
	if rng.IntN(5) == 0 {
		b.WriteString("!")
	}
	if rng.IntN(5) == 0 {
		b.WriteString("/")
	}
	segs := 1 + rng.IntN(3)
	for i := range segs {
		if i > 0 {
			b.WriteString("/")
		}
		if rng.IntN(5) == 0 {
			b.WriteString("**")
			continue
		}
		for range 1 + rng.IntN(3) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
	}
	switch rng.IntN(10) {
	case 0, 1:
		b.WriteString("/")
	case 2:
		b.WriteString("  ")
	case 3:
		b.WriteString(`\ `)
	case 4:
		b.WriteString(`\`)
	}
	return b.String()
}
