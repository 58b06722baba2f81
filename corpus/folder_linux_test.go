//go:build linux

package corpus

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
)

// policyText is a valid policy file with source_id id and body.
func policyText(id, body string) string {
	return "---\nsource_id: " + id + "\nversion: v1\nsubjects: [s]\nvalid_from: 2026-01-01\n---\n" + body + "\n"
}

// tree builds files in a folder: each is created below dir by path.
type tree struct {
	t   *testing.T
	dir string
}

func (tr tree) p(name string) string { return filepath.Join(tr.dir, filepath.FromSlash(name)) }

func (tr tree) write(name, data string) {
	tr.t.Helper()
	if err := os.MkdirAll(filepath.Dir(tr.p(name)), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(tr.p(name), []byte(data), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr tree) link(target, name string) {
	tr.t.Helper()
	if err := os.MkdirAll(filepath.Dir(tr.p(name)), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.Symlink(target, tr.p(name)); err != nil {
		tr.t.Fatal(err)
	}
}

// replace puts a new file at name as a deploy does: written aside, then
// renamed over the old one.
func (tr tree) replace(name string, make func(p string) error) {
	tr.t.Helper()
	aside := tr.p(name) + ".next"
	if err := make(aside); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.Rename(aside, tr.p(name)); err != nil {
		tr.t.Fatal(err)
	}
}

// outcome is what a load gave, in words: every source with its path,
// language, digest and text and the corpus digest, or every problem.
func outcome(c *Corpus, err error) []string {
	var out []string
	if err != nil {
		var l diag.List
		if !errors.As(err, &l) {
			return []string{"error: " + err.Error()}
		}
		for _, e := range l {
			out = append(out, fmt.Sprintf("[%s] %s", e.Code, e))
		}
		return out
	}
	for _, s := range c.Sources {
		out = append(out, fmt.Sprintf("%s %s lang=%q %s %q", s.Path, s.ID, s.Lang, hex.EncodeToString(s.Digest[:]), s.Text()))
	}
	return append(out, "digest "+c.Digest)
}

// within runs f beside a deadline, so that a load that blocks fails the
// test instead of hanging it.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	select {
	case <-done:
	case <-deadline.C:
		t.Fatal("the load still blocks after 30 s")
	}
}

// loadWith loads dir through OpenFolder (fast) or through os.Root alone,
// with during called before each file is read, and returns the outcome
// and how many files OpenFolder read on its fast path.
func loadWith(t *testing.T, dir string, fast bool, during func(p string)) ([]string, int64) {
	t.Helper()
	var fsys fs.FS
	var done func()
	if fast {
		var err error
		if fsys, done, err = OpenFolder(dir); err != nil {
			t.Fatal(err)
		}
		if _, ok := fsys.(*folder); !ok {
			t.Fatalf("OpenFolder() = %T, want *folder", fsys)
		}
	} else {
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		fsys, done = root.FS(), func() { root.Close() }
	}
	var mu sync.Mutex
	keep := func(p string, _ fs.DirEntry) bool {
		if during != nil {
			mu.Lock()
			during(p)
			mu.Unlock()
		}
		return false
	}
	var got []string
	within(t, func() { got = outcome(Reload(context.Background(), fsys, nil, keep)) })
	// Every file read on its own too, so that the bytes are compared
	// even where the corpus is refused.
	paths, _ := Files(fsys)
	for _, p := range paths {
		src, l := loadFile(fsys, p, true)
		if l != nil {
			got = append(got, "file "+p+": "+l.Error())
		} else {
			got = append(got, "file "+p+": "+hex.EncodeToString(src.Digest[:]))
		}
	}
	var reads int64
	if f, ok := fsys.(*folder); ok {
		reads = f.reads.Load()
	}
	done() // not deferred: a load that blocks may hold the folder
	return got, reads
}

// loadBoth is loadWith through OpenFolder, then through os.Root.
func loadBoth(t *testing.T, dir string) (fast, slow []string, reads int64) {
	t.Helper()
	fast, reads = loadWith(t, dir, true, nil)
	slow, _ = loadWith(t, dir, false, nil)
	return fast, slow, reads
}

// openFDs counts the descriptors the process has open.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(entries)
}

// TestFolderReader: OpenFolder's fast reader loads what os.Root loads —
// the same sources, digests and corpus digest, the same problems — over
// a tree with every kind of entry a walk meets, and reads its plain
// files on the fast path.
func TestFolderReader(t *testing.T) {
	base := t.TempDir()
	tr := tree{t, filepath.Join(base, "corpus")}
	// What loads: the sources are compared.
	tr.write("a.md", policyText("a", "Plain."))
	tr.write("big.md", policyText("big", strings.Repeat("A long line of policy text.\n", 4000))) // past the read buffer
	exact := policyText("exact", "")
	tr.write("exact.md", exact+strings.Repeat("x", inputfile.ReadAtBuffer-len(exact))) // the read buffer's size exactly
	deep := ""
	for i := range 40 {
		deep = path.Join(deep, fmt.Sprint(i))
	}
	tr.write(deep+"/deep.md", policyText("deep", "Deep."))
	for i, name := range []string{"sp ace.md", "ünï cødé.md", "new\nline.md", "back\\slash.md", "%41#?*.md", "-dash.md", "tab\t.md", "'q\".md"} {
		tr.write("odd/"+name, policyText(fmt.Sprintf("odd-%d", i), "Odd name."))
	}
	tr.write("notes.txt", "not a policy")
	tr.write(".hidden.md", "skipped")
	tr.write("target.txt", policyText("linked-file", "Through a link."))
	tr.link("target.txt", "in.md")
	tr.write("..v1/en/x.md", policyText("configmap", "Through a linked folder."))
	tr.link("..v1", "..data")
	tr.link("..data/en", "en")
	tr.write("ignored/skip.md", "not read")
	tr.write(IgnoreFile, "ignored/\n")
	tr.write("locked.md", policyText("locked", "Locked.")) // unreadable, but for root
	if err := os.Chmod(tr.p("locked.md"), 0); err != nil {
		t.Fatal(err)
	}

	fdsBefore := openFDs(t)
	fast, slow, reads := loadBoth(t, tr.dir)
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Errorf("fast reader and os.Root disagree (-os.Root +fast):\n%s", diff)
	}
	for _, want := range []string{"en/x.md configmap", "big.md big", "exact.md exact", "odd/new\nline.md", "digest "} {
		if !strings.Contains(strings.Join(fast, "\n"), want) {
			t.Errorf("fast outcome does not hold %q:\n%s", want, strings.Join(fast, "\n"))
		}
	}
	// a, big, exact, deep and the odd names (locked too, as root); not
	// the file behind a link, nor those of a linked folder.
	if reads < 12 {
		t.Errorf("fast path read %d files, want at least 12", reads)
	}

	// What does not load: the problems are compared.
	tr.write("empty.md", "")
	tr.write("huge.md", policyText("huge", strings.Repeat("y", inputfile.MaxSize)))
	tr.write("odd/bad\xff\xfe.md", policyText("bad-utf8", "Not UTF-8."))
	tr.write("../outside.md", policyText("outside", "Outside."))
	tr.link("../outside.md", "out.md")
	tr.link("/dev/null", "null.md")
	tr.link("nope.md", "gone.md")
	tr.link("loop.md", "loop.md")
	tr.link("..", "up")
	if err := syscall.Mkfifo(tr.p("pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", tr.p("sock.md"))
	if err != nil {
		t.Fatalf("cannot make a socket: %v", err)
	}
	defer ln.Close()
	// A device where the system lets us make one (as root): /dev/null's.
	if err := syscall.Mknod(tr.p("dev.md"), syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
		t.Logf("no device: %v", err)
	}
	fast, slow, _ = loadBoth(t, tr.dir)
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Errorf("fast reader and os.Root disagree (-os.Root +fast):\n%s", diff)
	}
	for _, want := range []string{"pipe.md: cannot read: it is a named pipe", "sock.md: cannot read: it is a socket", "out.md: symbolic link leads outside", "huge.md: cannot read: it is larger than 4 MiB", "empty.md:1:1", "bad\xff\xfe.md: cannot read"} {
		if !strings.Contains(strings.Join(fast, "\n"), want) {
			t.Errorf("fast outcome does not mention %q:\n%s", want, strings.Join(fast, "\n"))
		}
	}
	if got := openFDs(t); got != fdsBefore+1 { // the socket's
		t.Errorf("%d descriptors open after the loads, %d before and the socket", got, fdsBefore)
	}

	// Past the bound on folders held, os.Root lists and reads the rest.
	t.Run("few folders held", func(t *testing.T) {
		defer func(n int) { maxHeld = n }(maxHeld)
		maxHeld = 3
		fast, slow, reads := loadBoth(t, tr.dir)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("fast reader and os.Root disagree (-os.Root +fast):\n%s", diff)
		}
		if reads == 0 {
			t.Error("fast path read no file")
		}
	})
}

// TestFolderReaderMidLoad: a file or link changed after the walk listed
// it, before it is read, reads the same through the fast reader as
// through os.Root; a file swapped for a named pipe does not block it.
func TestFolderReaderMidLoad(t *testing.T) {
	tests := []struct {
		name   string
		change func(tr tree) // run once, before sub/x.md is read
		want   string        // a line the fast outcome holds
		noRoot bool          // os.Root alone would block: the fast outcome only
	}{
		{"grows", func(tr tree) { tr.write("sub/x.md", policyText("x", strings.Repeat("Grown. ", 10000))) }, "Grown. Grown.", false},
		{"shrinks", func(tr tree) { tr.write("sub/x.md", policyText("x", "Short.")) }, `"Short."`, false},
		{"emptied", func(tr tree) { tr.write("sub/x.md", "") }, "sub/x.md:", false},
		{"removed", func(tr tree) { os.Remove(tr.p("sub/x.md")) }, "sub/x.md: cannot read: no such file or directory", false},
		{"swapped for a link inside", func(tr tree) {
			tr.replace("sub/x.md", func(p string) error { return os.Symlink("../y.txt", p) })
		}, `"Why."`, false},
		{"swapped for a link outside", func(tr tree) {
			tr.replace("sub/x.md", func(p string) error { return os.Symlink("../../secret.md", p) })
		}, "sub/x.md: cannot read:", false},
		{"swapped for a named pipe", func(tr tree) {
			tr.replace("sub/x.md", func(p string) error { return syscall.Mkfifo(p, 0o644) })
		}, "sub/x.md: cannot read: it is a named pipe (FIFO), not a regular file", true},
		{"swapped for a device that reads empty", func(tr tree) { mknod(tr, "sub/x.md", 1<<8|3) }, // /dev/null's
			"sub/x.md: cannot read: it is a character device", false},
		{"swapped for a device that never ends", func(tr tree) { mknod(tr, "sub/x.md", 1<<8|5) }, // /dev/zero's
			"sub/x.md: cannot read: it is a character device", false},
		{"its folder swapped for a link", func(tr tree) {
			if err := os.Rename(tr.p("sub"), tr.p(".old")); err != nil {
				tr.t.Fatal(err)
			}
			tr.link(".old", "sub")
		}, `"Ex."`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[bool][]string{}
			for _, fast := range []bool{true, false} {
				if !fast && tt.noRoot {
					continue
				}
				tr := tree{t, filepath.Join(t.TempDir(), "corpus")}
				tr.write("sub/x.md", policyText("x", "Ex."))
				tr.write("a.md", policyText("a", "A."))
				tr.write("y.txt", policyText("y", "Why."))
				tr.write("../secret.md", policyText("secret", "Secret."))
				var once sync.Once
				got[fast], _ = loadWith(t, tr.dir, fast, func(p string) {
					if p == "sub/x.md" {
						once.Do(func() { tt.change(tr) })
					}
				})
			}
			if !strings.Contains(strings.Join(got[true], "\n"), tt.want) {
				t.Errorf("fast outcome does not hold %q:\n%s", tt.want, strings.Join(got[true], "\n"))
			}
			if !tt.noRoot {
				if diff := cmp.Diff(got[false], got[true]); diff != "" {
					t.Errorf("fast reader and os.Root disagree (-os.Root +fast):\n%s", diff)
				}
			}
		})
	}
}

// mknod replaces the file at name with a character device, or skips the
// test where the system does not let it make one.
func mknod(tr tree, name string, dev int) {
	tr.t.Helper()
	aside := tr.p(name) + ".next"
	if err := syscall.Mknod(aside, syscall.S_IFCHR|0o644, dev); err != nil {
		tr.t.Skipf("cannot make a device: %v", err)
	}
	if err := os.Rename(aside, tr.p(name)); err != nil {
		tr.t.Fatal(err)
	}
}

// TestFolderReaderRootSwapped: the corpus folder is a link swapped to
// another version mid-load; both readers read every file of the version
// opened.
func TestFolderReaderRootSwapped(t *testing.T) {
	base := t.TempDir()
	tr := tree{t, base}
	for _, v := range []string{"v1", "v2"} {
		for _, name := range []string{"a.md", "sub/b.md", "sub/deeper/c.md"} {
			tr.write(v+"/"+name, policyText(strings.NewReplacer("/", "-", ".md", "").Replace(name), "From "+v+"."))
		}
	}
	got := map[bool][]string{}
	var reads int64
	for _, fast := range []bool{true, false} {
		os.Remove(tr.p("current"))
		tr.link("v1", "current")
		var once sync.Once
		var n int64
		got[fast], n = loadWith(t, tr.p("current"), fast, func(string) {
			once.Do(func() { tr.replace("current", func(p string) error { return os.Symlink("v2", p) }) })
		})
		reads += n
	}
	fast, slow := got[true], got[false]
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Errorf("fast reader and os.Root disagree (-os.Root +fast):\n%s", diff)
	}
	if reads != 6 || strings.Contains(strings.Join(fast, "\n"), "v2") {
		t.Errorf("fast load read %d files on its fast path, want 6 (3 by the load, 3 one by one), all from v1:\n%s", reads, strings.Join(fast, "\n"))
	}
}

// TestFolderReaderRandom: over random trees of files, folders and links,
// the fast reader loads what os.Root loads.
func TestFolderReaderRandom(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 29))
			base := t.TempDir()
			tr := tree{t, filepath.Join(base, "corpus")}
			tr.write("../outside.md", policyText("outside", "Outside."))
			if err := os.Mkdir(tr.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			dirs := []string{"."}
			var files []string
			for i := range 60 {
				dir := dirs[r.IntN(len(dirs))]
				name := path.Join(dir, fmt.Sprintf("n%d", i))
				switch k := r.IntN(10); {
				case k < 2:
					if r.IntN(4) == 0 {
						name = path.Join(dir, fmt.Sprintf(".h%d", i))
					}
					dirs = append(dirs, name)
					if err := os.MkdirAll(tr.p(name), 0o755); err != nil {
						t.Fatal(err)
					}
				case k < 7:
					body := strings.Repeat("Policy text. ", r.IntN(1<<r.IntN(13)+1))
					data := policyText(fmt.Sprintf("id-%d", r.IntN(40)), body) // some ids clash
					switch r.IntN(8) {
					case 0:
						data = ""
					case 1:
						data = data[:len(data)/2]
					}
					tr.write(name+".md", data)
					files = append(files, name+".md")
				case k < 9 && len(files)+len(dirs) > 1:
					targets := append(append([]string{"../outside.md", "missing.md"}, files...), dirs...)
					target := targets[r.IntN(len(targets))]
					rel, _ := filepath.Rel(tr.p(dir), tr.p(target))
					if target == "../outside.md" {
						rel = filepath.Join(strings.Repeat("../", strings.Count(dir, "/")+1), "..", "outside.md")
						if dir == "." {
							rel = "../outside.md"
						}
					}
					suffix := ""
					if r.IntN(2) == 0 {
						suffix = ".md"
					}
					tr.link(rel, name+suffix)
				default:
					if err := syscall.Mkfifo(tr.p(name+".md"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			fast, slow, _ := loadBoth(t, tr.dir)
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("fast reader and os.Root disagree (-os.Root +fast):\n%s", diff)
			}
		})
	}
}
