package testutil

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestFiles(t *testing.T) {
	src := fstest.MapFS{"a.md": {Data: []byte("a")}, "sub/deeper/b.md": {Data: []byte("b")}}
	dir := t.TempDir()
	if diff := cmp.Diff([]string{"a.md", "sub/deeper/b.md"}, CopyFS(t, src, dir)); diff != "" {
		t.Errorf("CopyFS() mismatch (-want +got):\n%s", diff)
	}
	copied := t.TempDir()
	CopyDir(t, dir, copied)
	ReplaceInFile(t, filepath.Join(copied, "sub", "deeper", "b.md"), "b", "c")
	WritePolicy(t, copied, "p/x.md", "x", "body")
	want := map[string]string{
		"a.md":            "a",
		"sub/deeper/b.md": "c",
		"p/x.md":          "---\nsource_id: x\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\nbody\n",
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(copied, filepath.FromSlash(name)))
		if err != nil || string(got) != data {
			t.Errorf("%s = %q, %v; want %q", name, got, err, data)
		}
	}
	seeds := SeedFiles(t, filepath.Join(copied, "*.md"), filepath.Join(copied, "sub", "*", "*.md"), filepath.Join(copied, "none-*"))
	if diff := cmp.Diff([][]byte{[]byte("a"), []byte("c")}, seeds); diff != "" {
		t.Errorf("SeedFiles() mismatch (-want +got):\n%s", diff)
	}
}

func TestHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprintf(w, "%s %s %s", r.Method, r.Header.Get("Content-Type"), body)
	}))
	defer srv.Close()
	if got, want := Get(t, srv.URL), (Response{http.StatusTeapot, "GET  "}); got != want {
		t.Errorf("Get() = %+v, want %+v", got, want)
	}
	if got, want := Post(t, srv.URL, "{}"), (Response{http.StatusTeapot, "POST application/json {}"}); got != want {
		t.Errorf("Post() = %+v, want %+v", got, want)
	}
}

// TestGit: Git commits with its fixed author, whatever the user's
// configuration says.
func TestGit(t *testing.T) {
	t.Chdir(t.TempDir())
	WriteFile(t, "a.md", "a")
	Git(t, "init", "-q", ".")
	Git(t, "add", "a.md")
	Git(t, "commit", "-q", "-m", "a")
	out, err := exec.Command("git", "log", "-1", "--format=%an <%ae>").Output()
	if got, want := string(out), "ka2 test <test@example.invalid>\n"; err != nil || got != want {
		t.Errorf("git log = %q, %v; want %q", got, err, want)
	}
}

// stopTB records why a helper failed or skipped the test, and ends the
// goroutine as testing.T does.
type stopTB struct {
	testing.TB
	why string
}

func (s *stopTB) Helper() {}
func (s *stopTB) Fatalf(f string, a ...any) {
	s.why = "fatal: " + fmt.Sprintf(f, a...)
	runtime.Goexit()
}
func (s *stopTB) Skip(a ...any) { s.why = "skip: " + fmt.Sprint(a...); runtime.Goexit() }
func (s *stopTB) run(f func(testing.TB)) string {
	done := make(chan struct{})
	go func() { defer close(done); f(s) }()
	<-done
	return s.why
}

// TestGitFails: a failing git command fails the test with git's output;
// without git the test is skipped.
func TestGitFails(t *testing.T) {
	t.Chdir(t.TempDir())
	if why := (&stopTB{TB: t}).run(func(tb testing.TB) { Git(tb, "no-such-command") }); !strings.HasPrefix(why, "fatal: git [no-such-command]: exit status 1") {
		t.Errorf("Git(no-such-command) = %q; want the test failed", why)
	}
	t.Setenv("PATH", "")
	if why := (&stopTB{TB: t}).run(func(tb testing.TB) { Git(tb, "status") }); !strings.HasPrefix(why, "skip: git is not on PATH:") {
		t.Errorf("Git() without git = %q; want the test skipped", why)
	}
}
