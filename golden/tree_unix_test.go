//go:build unix

package golden_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/testutil"
)

// treeCases makes cases/c.yaml (one case, a, on the embedded sample)
// with its golden written, and a file outside the case tree whose
// content must never reach a report or a golden. It returns that file's
// absolute path.
func treeCases(t *testing.T) string {
	t.Helper()
	t.Chdir(t.TempDir())
	testutil.WriteFile(t, "cases/c.yaml", "cases:\n  - {name: a, question: q, subject: lodging, dates: [2026-09-14]}\n  - {name: b, question: q, subject: lodging, dates: [2025-09-14]}\n")
	if _, err := golden.Run(t.Context(), load(t, "cases"), golden.Options{Update: true}); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, "outside/secret", "FAKE_SECRET=do-not-print\n")
	abs, err := filepath.Abs("outside/secret")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

const goldenA = "cases/testdata/golden/c/a.golden"

func replaceWithLink(t *testing.T, to, name string) {
	t.Helper()
	if err := os.RemoveAll(name); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, name); err != nil {
		t.Fatal(err)
	}
}

// TestGoldensStayInTheTree: a golden, a pending golden or a golden
// folder that is not a regular file (folder) inside the case tree stops
// Load, naming it, before any golden is read; ka2 used to print the file
// a link led to in the diff, and review copied it into the golden.
func TestGoldensStayInTheTree(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, secret string)
		// path is the file the problem names.
		path, msg string
	}{
		{"golden links to an absolute path outside", func(t *testing.T, secret string) {
			replaceWithLink(t, secret, goldenA)
		}, goldenA, "the golden is not a file ka2 reads: it is a symbolic link that leads out of its tree (to an absolute path)"},
		{"golden links to /proc/self/environ", func(t *testing.T, _ string) {
			if _, err := os.Stat("/proc/self/environ"); err != nil {
				t.Skip("no /proc here")
			}
			replaceWithLink(t, "/proc/self/environ", goldenA)
		}, goldenA, "it is a symbolic link that leads out of its tree (to an absolute path)"},
		{"golden links out by ..", func(t *testing.T, _ string) {
			replaceWithLink(t, "../../../../outside/secret", goldenA)
		}, goldenA, "it is a symbolic link that leads out of its tree"},
		{"pending golden links outside", func(t *testing.T, secret string) {
			replaceWithLink(t, secret, goldenA+".new")
		}, goldenA + ".new", "the pending golden is not a file ka2 reads: it is a symbolic link that leads out of its tree (to an absolute path)"},
		{"golden folder links outside", func(t *testing.T, secret string) {
			testutil.WriteFile(t, "outside/a.golden", "FAKE_SECRET=do-not-print\n")
			replaceWithLink(t, filepath.Dir(secret), "cases/testdata/golden/c")
		}, "cases/testdata/golden/c", "the golden folder cannot be read inside the case tree: it is, or is inside, a symbolic link that leads out of the tree"},
		{"golden is a dangling link", func(t *testing.T, _ string) {
			replaceWithLink(t, "nothing.golden", goldenA)
		}, goldenA, "it is a symbolic link to nothing"},
		{"golden is a link loop", func(t *testing.T, _ string) {
			replaceWithLink(t, "a.golden", goldenA)
		}, goldenA, "it is a symbolic link in a loop"},
		{"golden links to a folder", func(t *testing.T, _ string) {
			replaceWithLink(t, ".", goldenA)
		}, goldenA, "it is a symbolic link to a folder, not to a regular file"},
		{"golden is a FIFO", func(t *testing.T, _ string) {
			os.Remove(goldenA)
			if err := syscall.Mkfifo(goldenA, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, goldenA, "it is a named pipe (FIFO), not a regular file"},
		{"pending golden is a folder", func(t *testing.T, _ string) {
			if err := os.Mkdir(goldenA+".new", 0o755); err != nil {
				t.Fatal(err)
			}
		}, goldenA + ".new", "it is a folder, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret := treeCases(t)
			tt.setup(t, secret)
			s, err := golden.Load(t.Context(), []string{"cases"}, golden.LoadOptions{})
			if !errors.Is(err, golden.ErrBadCases) {
				t.Fatalf("Load() = %v, want ErrBadCases", err)
			}
			if s != nil {
				t.Error("Load returned a suite")
			}
			var l diag.List
			if !errors.As(err, &l) || len(l) != 1 || l[0].Path != tt.path || !strings.Contains(l[0].Message, tt.msg) {
				t.Fatalf("Load() problems = %v, want one at %s saying %q", err, tt.path, tt.msg)
			}
			if strings.Contains(err.Error(), "do-not-print") {
				t.Errorf("the error holds the outside file: %v", err)
			}
		})
	}
}

// TestGoldenLinkInsideTheTree: a golden that links to a regular file
// inside the tree is read, and --update writes through it to that file,
// the link kept.
func TestGoldenLinkInsideTheTree(t *testing.T) {
	treeCases(t)
	// b's golden becomes a's content, linked from a.
	if err := os.Rename(goldenA, "cases/testdata/golden/shared.golden"); err != nil {
		t.Fatal(err)
	}
	replaceWithLink(t, "../shared.golden", goldenA)
	rep := run(t, load(t, "cases"), golden.Options{})
	if c := findCase(t, rep, "a"); c.State != golden.StateMatch {
		t.Fatalf("a = %s (%s), want match through the link", c.State, c.Error)
	}
	edit(t, "cases/c.yaml", "{name: a, question: q,", "{name: a, question: q2,")
	rep, err := golden.Run(t.Context(), load(t, "cases"), golden.Options{Update: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := findCase(t, rep, "a"); c.State != golden.StateUpdated {
		t.Fatalf("a = %s (%s), want updated", c.State, c.Error)
	}
	if to, err := os.Readlink(goldenA); err != nil || to != "../shared.golden" {
		t.Errorf("the link became %q, %v", to, err)
	}
	if data, _ := os.ReadFile("cases/testdata/golden/shared.golden"); !strings.Contains(string(data), `"question": "q2"`) {
		t.Errorf("the linked file was not written:\n%s", data)
	}
}

// TestGoldenLinkInItsFolder: goldens that link to a file in their own
// folder, or reach it through a linked folder inside the tree, are read.
func TestGoldenLinkInItsFolder(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T)
	}{
		{"golden links to a file beside it", func(t *testing.T) {
			if err := os.Rename(goldenA, "cases/testdata/golden/c/a.json"); err != nil {
				t.Fatal(err)
			}
			replaceWithLink(t, "a.json", goldenA)
		}},
		{"golden folder links to a folder inside the tree", func(t *testing.T) {
			if err := os.Rename("cases/testdata/golden/c", "cases/testdata/kept"); err != nil {
				t.Fatal(err)
			}
			replaceWithLink(t, "../kept", "cases/testdata/golden/c")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			treeCases(t)
			tt.setup(t)
			rep := run(t, load(t, "cases"), golden.Options{})
			for _, name := range []string{"a", "b"} {
				if c := findCase(t, rep, name); c.State != golden.StateMatch {
					t.Errorf("%s = %s (%s), want match", name, c.State, c.Error)
				}
			}
		})
	}
}

// TestGoldenSwappedAfterLoad: a golden (or its folder) replaced by a
// link out of the tree, or by a FIFO, after Load checked it is refused when it is read
// (through os.Root, without waiting), and a pending golden swapped for
// one is never copied by Accept.
func TestGoldenSwappedAfterLoad(t *testing.T) {
	t.Run("read", func(t *testing.T) {
		secret := treeCases(t)
		s := load(t, "cases")
		replaceWithLink(t, secret, goldenA)
		rep, err := golden.Run(t.Context(), s, golden.Options{})
		if !errors.Is(err, golden.ErrWrite) {
			t.Fatalf("Run() = %v, want the unreadable golden as an error", err)
		}
		if c := findCase(t, rep, "a"); c.State != golden.StateUnreadable || strings.Contains(jsonOf(t, rep), "do-not-print") {
			t.Errorf("a = %s; report:\n%s", c.State, jsonOf(t, rep))
		}
	})
	t.Run("folder", func(t *testing.T) {
		// A run reads goldens through a root on their folder, opened
		// when the folder's first case reads: after Load, the folder is
		// swapped for a link to a folder outside that holds a.golden.
		secret := treeCases(t)
		s := load(t, "cases")
		testutil.WriteFile(t, "outside/a.golden", "FAKE_SECRET=do-not-print\n")
		replaceWithLink(t, filepath.Dir(secret), "cases/testdata/golden/c")
		rep, err := golden.Run(t.Context(), s, golden.Options{})
		if !errors.Is(err, golden.ErrWrite) {
			t.Fatalf("Run() = %v, want the unreadable golden as an error", err)
		}
		if c := findCase(t, rep, "a"); c.State != golden.StateUnreadable || strings.Contains(jsonOf(t, rep), "do-not-print") {
			t.Errorf("a = %s; report:\n%s", c.State, jsonOf(t, rep))
		}
	})
	t.Run("FIFO", func(t *testing.T) {
		treeCases(t)
		s := load(t, "cases")
		os.Remove(goldenA)
		if err := syscall.Mkfifo(goldenA, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		rep, _ := golden.Run(t.Context(), s, golden.Options{}) // must not wait for a writer
		if c := findCase(t, rep, "a"); c.State != golden.StateUnreadable {
			t.Errorf("a = %s, want unreadable", c.State)
		}
	})
	t.Run("accept", func(t *testing.T) {
		secret := treeCases(t)
		edit(t, "cases/c.yaml", "{name: a, question: q,", "{name: a, question: q2,")
		if _, err := golden.Run(t.Context(), load(t, "cases"), golden.Options{Pending: true}); err != nil {
			t.Fatal(err)
		}
		s := load(t, "cases")
		pending, err := s.Pending()
		if err != nil || len(pending) != 1 {
			t.Fatalf("Pending() = %d, %v; want one", len(pending), err)
		}
		// Swapped after the review read it: Accept refuses to write
		// through the link.
		replaceWithLink(t, secret, goldenA)
		if err := pending[0].Accept(t.Context()); err == nil || !strings.Contains(err.Error(), "leads out of its tree") {
			t.Errorf("Accept() = %v, want a refusal", err)
		}
		if data, _ := os.ReadFile(secret); string(data) != "FAKE_SECRET=do-not-print\n" {
			t.Errorf("the file outside the tree was written: %q", data)
		}
		// Swapped before: Pending refuses to read it.
		if _, err := s.Pending(); err == nil {
			t.Error("Pending() read a golden that links out of the tree")
		}
	})
}

// TestPruneStaysInTheTree: an unreferenced golden that links outside is
// pruned as a link; the file it leads to stays.
func TestPruneStaysInTheTree(t *testing.T) {
	secret := treeCases(t)
	replaceWithLink(t, secret, "cases/testdata/golden/c/gone.golden")
	rep, err := golden.Run(t.Context(), load(t, "cases"), golden.Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Pruned != 1 {
		t.Errorf("pruned %d, want 1", rep.Summary.Pruned)
	}
	if _, err := os.Lstat("cases/testdata/golden/c/gone.golden"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("the file the link led to was removed: %v", err)
	}
}
