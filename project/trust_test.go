package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

func TestTrustBelieves(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	file := filepath.Join(shared, "alice", FileName)
	tests := []struct {
		name    string
		owner   int
		allowed []string
		want    bool
	}{
		{"the user's own file", 1000, nil, true},
		{"root's file", 0, nil, true},
		{"another user's file", 12345, nil, false},
		{"another user's file, every folder allowed", 12345, []string{"*"}, true},
		{"another user's file in an allowed folder", 12345, []string{filepath.Join(shared, "alice")}, true},
		{"another user's file below an allowed folder", 12345, []string{shared}, true},
		{"another user's file beside an allowed folder", 12345, []string{filepath.Join(shared, "bob")}, false},
		{"a folder whose name starts the same is another folder", 12345, []string{filepath.Join(shared, "ali")}, false},
		{"below the file's folder is not above it", 12345, []string{filepath.Join(shared, "alice", "work")}, false},
		{"a relative folder allows nothing", 12345, []string{"shared"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &Trust{UID: 1000, Allowed: tt.allowed}
			if got := tr.believes(file, tt.owner); got != tt.want {
				t.Errorf("believes(%s, owner %d) = %t, want %t", file, tt.owner, got, tt.want)
			}
		})
	}
}

func TestParseAllowed(t *testing.T) {
	abs := t.TempDir()
	sep := string(os.PathListSeparator)
	got, err := ParseAllowed(abs + sep + sep + "*")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{abs, "*"}, got); diff != "" {
		t.Errorf("ParseAllowed() mismatch (-want +got):\n%s", diff)
	}
	if _, err := ParseAllowed(abs + sep + "rel/dir"); err == nil {
		t.Error("ParseAllowed() took a relative folder")
	}
}

// foreign makes the files at paths another user's for the returned Trust:
// given to user 12345 as root, or, as any other user, a Trust for user
// 12345, whose files these are not.
func foreign(t *testing.T, paths ...string) *Trust {
	t.Helper()
	if os.Getuid() != 0 {
		if os.Getuid() == 12345 {
			t.Skip("the test's other user is 12345, who runs it")
		}
		return &Trust{UID: 12345}
	}
	for _, p := range paths {
		if err := os.Chown(p, 12345, -1); err != nil {
			t.Fatal(err)
		}
	}
	return &Trust{UID: 0}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFindSkipsAnotherUsersFile: a ka2.yaml another user owns in a parent
// folder is passed over and returned as skipped; the search goes on
// upward; the user's own nearer file, or one in an allowed folder, is
// used; and a nil Trust uses any.
func TestFindSkipsAnotherUsersFile(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	work := filepath.Join(shared, "alice", "work")
	theirs := filepath.Join(shared, FileName)
	write(t, theirs, "corpus: evil\n")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := foreign(t, theirs)

	got, skipped, err := Find(work, tr)
	if err != nil {
		t.Fatal(err)
	}
	if got != "" && !isAbove(got, root) {
		t.Errorf("Find() = %q, want no project file (or one above the temporary folder)", got)
	}
	want := []Skipped{{Path: filepath.Join(work, "..", "..", FileName), Owner: 12345}}
	if os.Getuid() != 0 {
		want[0].Owner = os.Getuid()
	}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("Find() skipped mismatch (-want +got):\n%s", diff)
	}

	if got, _, _ := Find(work, &Trust{UID: tr.UID, Allowed: []string{shared}}); got != want[0].Path {
		t.Errorf("Find() with the folder allowed = %q, want %q", got, want[0].Path)
	}
	if got, skipped, _ := Find(work, nil); got != want[0].Path || skipped != nil {
		t.Errorf("Find() with no check = %q, %v, want %q", got, skipped, want[0].Path)
	}
	mine := filepath.Join(shared, "alice", FileName)
	write(t, mine, "lang: en\n")
	if os.Getuid() != 0 {
		tr = &Trust{UID: os.Getuid()} // mine is the user's now; theirs stays foreign only as root
	}
	if got, skipped, _ := Find(work, tr); got != filepath.Join(work, "..", FileName) || len(skipped) != 0 {
		t.Errorf("Find() = %q, %v, want the user's own ../%s", got, skipped, FileName)
	}
}

// isAbove reports a file in a folder above dir (a machine's own
// ka2.yaml at its root, which this test does not control).
func isAbove(file, dir string) bool {
	rel, err := filepath.Rel(filepath.Dir(file), dir)
	return err == nil && filepath.IsLocal(rel)
}

// TestLoadSkipsAnotherUsersIgnore: the .ka2ignore beside a project file
// that another user owns is left out and recorded; with no check it is
// read.
func TestLoadSkipsAnotherUsersIgnore(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, FileName), "corpus: policies\n")
	ignore := filepath.Join(dir, corpus.IgnoreFile)
	write(t, ignore, "README.md\n")
	tr := foreign(t, ignore)
	if os.Getuid() != 0 {
		t.Skip("as another user than root, the project file would be as foreign as its .ka2ignore; TestTrustBelieves covers the decision")
	}
	c, err := Load(filepath.Join(dir, FileName), tr)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Skipped{{Path: ignore, Owner: 12345}}, c.Skipped); diff != "" || len(c.Ignore) != 0 {
		t.Errorf("Load() Skipped mismatch (-want +got):\n%s; Ignore = %v", diff, c.Ignore)
	}
	c, err = Load(filepath.Join(dir, FileName), nil)
	if err != nil || len(c.Ignore) != 1 || c.Skipped != nil {
		t.Errorf("Load() with no check = %+v, %v, want the .ka2ignore read", c, err)
	}
}
