package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
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

// TestGitTreeFSLinks loads trees with symbolic links both from git, as
// they are at HEAD, and checked out on disk: the corpus, or the problems,
// must be the same, since one set of link rules (corpus.Load's) applies
// to both.
func TestGitTreeFSLinks(t *testing.T) {
	policy := func(id string) string {
		return "---\nsource_id: " + id + "\nversion: v1\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\n---\nThe lodging limit for " + id + " is 500 CNY per room-night.\n"
	}
	tests := []struct {
		name   string
		folder string            // the corpus folder in the repository
		files  map[string]string // path: content
		links  map[string]string // path: target
		want   string            // in what loads
	}{
		{
			name:   "ConfigMap volume",
			folder: "corp",
			files:  map[string]string{"corp/..2026_11_30/en/travel.md": policy("travel"), "corp/..2026_11_30/de/reise.md": policy("reise")},
			links:  map[string]string{"corp/..data": "..2026_11_30", "corp/en": "..data/en", "corp/de": "..data/de"},
			want:   "travel en/travel.md",
		},
		{
			name:   "links to folders and files",
			folder: "corp",
			files: map[string]string{
				"corp/.v1/a.md": policy("a-old"), "corp/.v2/a.md": policy("a"), "corp/.archive/hotel.txt": policy("hotel"),
				"corp/.archive/up.txt": policy("up"), "corp/real/r.md": policy("r"), "corp/asset.bin": "not read",
			},
			links: map[string]string{"corp/current": ".v2", "corp/hotel.md": ".archive/hotel.txt", "corp/sub/up.md": "../.archive/up.txt", "corp/alias": "real", "corp/notes": "asset.bin", "corp/hotel-notes": ".archive/hotel.txt"},
			want:  "hotel hotel.md",
		},
		{
			name:   "ignore file that is a link",
			folder: "corp",
			files:  map[string]string{"corp/.archive/ignore.txt": "draft.md\n", "corp/draft.md": "not a policy", "corp/p.md": policy("p")},
			links:  map[string]string{"corp/.ka2ignore": ".archive/ignore.txt"},
			want:   "p p.md",
		},
		{
			name:   "link leaving the folder into the repository",
			folder: "corp",
			files:  map[string]string{"README.md": policy("readme"), "corp/p.md": policy("p")},
			links:  map[string]string{"corp/readme.md": "../README.md"},
			want:   "[symlink_outside] readme.md",
		},
		{
			name:   "absolute link",
			folder: "corp",
			files:  map[string]string{"corp/p.md": policy("p")},
			links:  map[string]string{"corp/abs.md": "/etc/hostname"},
			want:   "[symlink_outside] abs.md",
		},
		{
			name:   "loop of file links",
			folder: "corp",
			files:  map[string]string{"corp/p.md": policy("p")},
			links:  map[string]string{"corp/a.md": "b.md", "corp/b.md": "a.md"},
			want:   "[symlink_loop] a.md",
		},
		{
			name:   "loop through a folder",
			folder: "corp",
			files:  map[string]string{"corp/.d/p.md": policy("p")},
			links:  map[string]string{"corp/x": ".d", "corp/.d/in": "../.d"},
			want:   "[symlink_loop] x/in",
		},
		{
			name:   "link to nothing, and a policy link to a folder",
			folder: "corp",
			files:  map[string]string{"corp/.v1/p.md": policy("p")},
			links:  map[string]string{"corp/gone.md": "nothing.md", "corp/dir.md": ".v1"},
			want:   "[symlink_outside] dir.md",
		},
		{
			name:   "corpus at the repository root",
			folder: ".",
			files:  map[string]string{".v1/q.md": policy("q"), "p.md": policy("p")},
			links:  map[string]string{"current": ".v1"},
			want:   "q current/q.md",
		},
	}
	// One repository holds every case in a folder of its own (git runs
	// three times, not three times a case); a corpus at the root of its
	// repository gets one to itself.
	write := func(dir, prefix string, files, links map[string]string) {
		t.Helper()
		for name, data := range files {
			testutil.WriteFile(t, filepath.Join(dir, prefix, name), data)
		}
		for name, target := range links {
			p := filepath.Join(dir, prefix, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Skipf("cannot make symbolic links here: %v", err)
			}
		}
	}
	commit := func(dir string) {
		t.Helper()
		t.Chdir(dir)
		testutil.Git(t, "init", "-q", ".")
		testutil.Git(t, "add", "-A")
		testutil.Git(t, "commit", "-q", "-m", "corpus")
	}
	shared := t.TempDir()
	folders := make([]string, len(tests))
	for i, tt := range tests {
		if tt.folder != "." {
			folders[i] = filepath.Join(fmt.Sprintf("case%d", i), tt.folder)
			write(shared, fmt.Sprintf("case%d", i), tt.files, tt.links)
		}
	}
	commit(shared)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			folder := folders[i]
			if tt.folder == "." {
				own := t.TempDir()
				write(own, "", tt.files, tt.links)
				commit(own)
				folder = "."
			} else {
				t.Chdir(shared)
			}
			root, err := os.OpenRoot(folder)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			onDisk := loaded(corpus.Load(root.FS()))
			fsys, _, err := gitTreeFS(context.Background(), runGit, folder, "--base-ref", "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			fromGit := loaded(corpus.Load(fsys))
			if diff := cmp.Diff(onDisk, fromGit); diff != "" {
				t.Errorf("corpus from git mismatch (-on disk +from git):\n%s", diff)
			}
			if !strings.Contains(onDisk, tt.want) {
				t.Errorf("corpus on disk:\n%s\nwant it to hold %q", onDisk, tt.want)
			}
		})
	}
}

// loaded words what corpus.Load returned: each source's ID, path and
// digest and the corpus's digest, or each problem with its code.
func loaded(c *corpus.Corpus, err error) string {
	var b strings.Builder
	if err != nil {
		var l diag.List
		if !errors.As(err, &l) {
			return err.Error()
		}
		for _, d := range l {
			fmt.Fprintf(&b, "[%s] %s\n", d.Code, d.Error())
		}
		return b.String()
	}
	for _, s := range c.Sources {
		fmt.Fprintf(&b, "%s %s %s\n", s.ID, s.Path, s.Digest)
	}
	return b.String() + c.Digest
}
