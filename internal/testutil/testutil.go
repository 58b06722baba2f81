// Package testutil holds the helpers ka2's tests share: writing a file or
// a policy, editing one in place, running git, reading fuzz seeds, copying a file system (the embedded
// sample corpus, a folder) to disk, HTTP requests, and a time limit that
// has always passed. Only tests import it; it imports nothing of ka2, so
// any package's tests can.
package testutil

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// SeedFiles returns the contents of the files that match the patterns
// (filepath.Glob), in order: a fuzz target's seeds from its testdata.
func SeedFiles(t testing.TB, patterns ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, pattern := range patterns {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, data)
		}
	}
	return out
}

// WriteFile writes data to path, making the folders it needs.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Git runs git with args in the current folder, without the user's or
// the system's configuration and with a fixed author, failing the test
// when git fails. It skips the test when git is not installed.
func Git(t testing.TB, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH:", err)
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=ka2 test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// ReplaceInFile replaces the first old in the file at path with new,
// failing the test when the file does not hold old.
func ReplaceInFile(t testing.TB, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	WriteFile(t, path, strings.Replace(string(data), old, new, 1))
}

// WritePolicy writes a valid policy file at name below dir: source_id id,
// subject s, valid from 2026-01-01, and one body line.
func WritePolicy(t testing.TB, dir, name, id, body string) {
	t.Helper()
	WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)),
		fmt.Sprintf("---\nsource_id: %s\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\n%s\n", id, body))
}

// CopyFS copies every folder and file of fsys below dir, and returns the
// files' paths in fsys, in walk order.
func CopyFS(t testing.TB, fsys fs.FS, dir string) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		names = append(names, p)
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// CopyDir copies the folder tree src to dst.
func CopyDir(t testing.TB, src, dst string) { CopyFS(t, os.DirFS(src), dst) }
