package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree is every file under dir by slash path, with its content, every
// folder with a trailing slash, and every link with its target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			out[rel] = "-> " + target
			return err
		}
		b, err := os.ReadFile(path)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeTree writes files (slash paths to contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRollbackStoppedAnywhere stops a rollback before each of its steps,
// as a kill would, and wants the folder, once the next reader has
// finished what was left (finishRollbacks), either as it was (stopped
// before the record was written) or as the rollback leaves it; never a
// mix. An earlier rollback's folder keeps its number.
func TestRollbackStoppedAnywhere(t *testing.T) {
	before := map[string]string{"00-input.json": "i", "01-a.json": "a", "02-b.json": "b", "03-c.json": "c", "notes.txt": "n",
		"discarded/1/rollback.json": "{}", "discarded/1/02-b.json": "old b"}
	const record = `{
  "stage": "a",
  "kept": [
    "00-input.json",
    "01-a.json"
  ],
  "discarded": [
    "02-b.json",
    "03-c.json"
  ]
}
`
	after := map[string]string{"00-input.json": "i", "01-a.json": "a", "notes.txt": "n",
		"discarded/1/rollback.json": "{}", "discarded/1/02-b.json": "old b",
		"discarded/2/02-b.json": "b", "discarded/2/03-c.json": "c", "discarded/2/rollback.json": record}
	withDirs := func(files map[string]string) map[string]string {
		out := map[string]string{}
		for name, c := range files {
			out[name] = c
			for d := filepath.Dir(name); d != "."; d = filepath.Dir(d) {
				out[filepath.ToSlash(d)+"/"] = ""
			}
		}
		return out
	}
	committed := false
	for stopAt := 1; ; stopAt++ {
		dir := t.TempDir()
		writeTree(t, dir, before)
		stopped := false
		rec, _, err := rollbackSnapshots(context.Background(), dir, "a", func(step int) bool {
			stopped = stopped || step == stopAt
			return step == stopAt
		})
		if !stopped {
			// Past the last step: the rollback ran through.
			if err != nil || strings.Join(rec.Discarded, " ") != "02-b.json 03-c.json" {
				t.Fatalf("rollback: %v, discarded %v", err, rec.Discarded)
			}
			if diff := cmp.Diff(withDirs(after), tree(t, dir)); diff != "" {
				t.Fatalf("after the rollback (-want +got):\n%s", diff)
			}
			if !committed {
				t.Error("no stop came after the record was written")
			}
			return
		}
		if err == nil {
			t.Fatalf("stopped before step %d, but no error", stopAt)
		}
		if err := finishRollbacks(context.Background(), dir); err != nil {
			t.Fatalf("stopped before step %d: finish: %v", stopAt, err)
		}
		got := tree(t, dir)
		switch {
		case cmp.Equal(withDirs(before), got):
			if committed {
				t.Errorf("stopped before step %d: back as it was, after an earlier stop was carried through", stopAt)
			}
		case cmp.Equal(withDirs(after), got):
			committed = true
		default:
			t.Fatalf("stopped before step %d: the folder is neither as it was nor rolled back:\n%s", stopAt,
				cmp.Diff(withDirs(after), got))
		}
	}
}

// TestRollbackRefuses: a stage the folder has no snapshot of, a stage
// with two, a discarded folder that is a link, an unfinished rollback
// without a record holding a file ka2 did not put there, and a record
// that names a file outside the folder are errors, and the folder is left
// as it was.
func TestRollbackRefuses(t *testing.T) {
	base := map[string]string{"00-input.json": "i", "01-a.json": "a", "02-b.json": "b"}
	tests := []struct {
		name  string
		files map[string]string
		link  bool // discarded is a link to another folder
		stage string
		want  string
	}{
		{name: "no such stage", stage: "c", want: "holds no snapshot of stage 'c' (no NN-c.json), so there is nothing to roll back to; it holds snapshots of input, a, b"},
		{name: "two snapshots of the stage", files: map[string]string{"05-a.json": "a"}, stage: "a", want: "holds two snapshots of stage 'a' (01-a.json and 05-a.json)"},
		{name: "discarded is a link", link: true, stage: "a", want: "is not a folder (a link, or a file)"},
		{name: "an unfinished rollback without its record", files: map[string]string{"discarded/1.partial/03-x.json": "x"}, stage: "a",
			want: "holds 03-x.json but no rollback.json; it is not a rollback ka2 began"},
		{name: "a record naming a file outside the folder", stage: "a",
			files: map[string]string{"discarded/1.partial/rollback.json": `{"stage":"a","kept":[],"discarded":["../01-a.json"]}`},
			want:  `it names "../01-a.json", which is not a snapshot file of the folder`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, base)
			writeTree(t, dir, tt.files)
			if tt.link {
				if err := os.Symlink(t.TempDir(), filepath.Join(dir, discardedDir)); err != nil {
					t.Fatal(err)
				}
			}
			was := tree(t, dir)
			_, _, err := rollbackSnapshots(context.Background(), dir, tt.stage, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("rollback error = %v, want …%s…", err, tt.want)
			}
			if diff := cmp.Diff(was, tree(t, dir)); diff != "" {
				t.Errorf("the folder changed (-was +now):\n%s", diff)
			}
		})
	}
}
