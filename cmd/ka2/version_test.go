package main

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/internal/testutil"
)

// TestVersionShowsRevision builds ka2 the way a user's `go build` in a
// checkout does, inside a temporary git repository holding a copy of this
// module, and checks that `ka2 version` names that repository's commit and
// says when the tree had uncommitted changes. A test binary records no VCS
// settings, so only a real build shows this. The build uses -trimpath, as
// releases do, so that it shares the build cache with other builds of the
// same files wherever they lie.
// long runs the tests that build ka2 again from scratch; .ci/run passes it
// in the step that runs the exhaustive checks.
var long = flag.Bool("long", false, "cmd/ka2: also build ka2 in a new git repository to check the revision it reports")

func TestVersionShowsRevision(t *testing.T) {
	if !*long {
		t.Skip("builds ka2 twice in a new git repository: run with -long (.ci/run does)")
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	goPath := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goPath); err != nil {
		if goPath, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command")
		}
	}
	moduleRoot, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command(gitPath, "-C", moduleRoot, "ls-files", "-co", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}

	repo := t.TempDir()
	for _, name := range strings.Split(strings.TrimSpace(string(files)), "\n") {
		// Only what the build reads: the tests and their data stay out.
		if strings.HasSuffix(name, "_test.go") || strings.Contains("/"+name, "/testdata/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(moduleRoot, name))
		if err != nil {
			continue // deleted in the work tree
		}
		dst := filepath.Join(repo, filepath.FromSlash(name))
		testutil.WriteFile(t, dst, string(data))
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitPath, args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2026-09-14T09:00:00Z", "GIT_COMMITTER_DATE=2026-09-14T09:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "--no-gpg-sign", "-m", "snapshot")
	head := git("rev-parse", "HEAD")

	version := func() map[string]any {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "ka2")
		build := exec.Command(goPath, "build", "-buildvcs=true", "-trimpath", "-o", bin, "./cmd/ka2")
		build.Dir = repo
		// The machine may set GOFLAGS=-buildvcs=false; the flag above
		// wins over it, but an explicit empty GOFLAGS keeps the build
		// independent of whatever else it says.
		build.Env = append(os.Environ(), "GOFLAGS=")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version", "--format", "json").Output()
		if err != nil {
			t.Fatalf("ka2 version: %v", err)
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("ka2 version --format json: %v\n%s", err, out)
		}
		return v
	}

	v := version()
	if v["revision"] != head || v["dirty"] != false || v["date"] != "2026-09-14T09:00:00Z" {
		t.Errorf("clean build: version %v, want revision %s, not dirty, date 2026-09-14T09:00:00Z", v, head)
	}
	testutil.WriteFile(t, filepath.Join(repo, "cmd", "ka2", "extra.go"), "package main\n")
	v = version()
	if v["revision"] != head || v["dirty"] != true {
		t.Errorf("build with an uncommitted file: version %v, want revision %s and dirty", v, head)
	}
}
