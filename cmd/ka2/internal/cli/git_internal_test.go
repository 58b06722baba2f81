package cli

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/testutil"
)

// TestGitTreeFSLimits reads a corpus folder at a revision with git's
// output capped small: git archive sends only the files a corpus reads,
// so a large file of another kind costs nothing, and an archive over the
// cap stops git and fails, naming the revision and the folder.
func TestGitTreeFSLimits(t *testing.T) {
	t.Chdir(t.TempDir())
	// A folder named like a pattern, beside one its pattern would match.
	const folder = `a*[b]? \c`
	testutil.WriteFile(t, folder+"/p.md", "policy\n")
	testutil.WriteFile(t, folder+"/sub/.ka2ignore", "draft.md\n")
	testutil.WriteFile(t, folder+"/asset.bin", strings.Repeat("x", 64<<10))
	testutil.WriteFile(t, "a*xb \\c/other.md", "not in the folder\n")
	testutil.Git(t, "init", "-q", ".")
	testutil.Git(t, "add", "-A")
	testutil.Git(t, "commit", "-q", "-m", "corpus")
	capped := func(max int) GitRunner {
		return func(ctx context.Context, args ...string) ([]byte, error) { return gitLimited(ctx, max, args...) }
	}

	// The archive of two small files is a 10 KiB tar record; asset.bin
	// alone would pass the cap.
	fsys, pfx, err := gitTreeFS(context.Background(), capped(32<<10), folder, "--base-ref", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.Glob(fsys, "*")
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := fs.Glob(fsys, "*/*")
	got = append(got, sub...)
	if diff := cmp.Diff([]string{"p.md", "sub", "sub/.ka2ignore"}, got); diff != "" || pfx != folder+"/" {
		t.Errorf("gitTreeFS() files mismatch (-want +got):\n%s\nprefix %q", diff, pfx)
	}

	_, _, err = gitTreeFS(context.Background(), capped(1<<10), folder, "--base-ref", "HEAD")
	want := "--base-ref HEAD: the corpus folder " + folder + " at that revision: git "
	if !errors.Is(err, errGitTooLarge) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "its output is larger than 1 KiB, the most ka2 reads from git") {
		t.Errorf("gitTreeFS() over the cap = %v; want errGitTooLarge starting %q", err, want)
	}
}
