package corpus_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
)

// TestLoadFixtures loads each corpus in testdata/load/*.txtar from disk,
// through os.Root as the CLI does, and compares a summary of the result
// (every source, or every problem) with testdata/golden/load-NAME.golden.
//
// Refresh the golden files after an intended change with
//
//	go test ./corpus -run TestLoadFixtures -update
//
// or, for every package of the module at once, GOLDIE_UPDATE=1 go test ./...
// (a bare -update fails in packages that do not import goldie).
func TestLoadFixtures(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "load", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no fixtures in testdata/load")
	}
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("testdata", "golden")))
	for _, name := range names {
		base := strings.TrimSuffix(filepath.Base(name), ".txtar")
		t.Run(base, func(t *testing.T) {
			a := readArchive(t, filepath.Join("load", base+".txtar"))
			dir := t.TempDir()
			writeFiles(t, dir, a.Files)
			c, err := loadDir(t, dir)
			got := summary(t, c, err)
			g.Assert(t, "load-"+base, []byte(got))

			// The same files in memory give the same result.
			mc, merr := corpus.Load(archiveFS(a))
			if diff := cmp.Diff(got, summary(t, mc, merr)); diff != "" {
				t.Errorf("Load(MapFS) and Load(os.Root) disagree (-disk +memory):\n%s", diff)
			}
		})
	}
}

func TestLoadSample(t *testing.T) {
	c, err := corpus.Load(corpus.Sample())
	if err != nil {
		t.Fatalf("Load(Sample()) error: %v", err)
	}
	type row struct{ ID, Lang, Path, Version string }
	var got []row
	for _, s := range c.Sources {
		got = append(got, row{s.ID, s.Lang, s.Path, s.Version})
	}
	want := []row{
		{"notice-hostile", "", "notice-hostile.md", "v1"},
		{"rail-faq-v1", "en", "en/rail-faq-v1.md", "v1"},
		{"rail-faq-v1", "zh", "zh/rail-faq-v1.md", "v1"},
		{"travel-v1", "en", "en/travel-v1.md", "v1"},
		{"travel-v1", "zh", "zh/travel-v1.md", "v1"},
		{"travel-v2", "en", "en/travel-v2.md", "v2"},
		{"travel-v2", "zh", "zh/travel-v2.md", "v2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load(Sample()) sources mismatch (-want +got):\n%s", diff)
	}
	if len(c.Digest) != 64 {
		t.Errorf("Digest = %q, want 64 hex digits", c.Digest)
	}

	// The facts of the worked example in SPEC.md.
	for _, lang := range []string{"en", "zh"} {
		v1, err := c.Lookup("travel-v1", lang)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := c.Lookup("travel-v2", lang)
		if err != nil {
			t.Fatal(err)
		}
		rail, err := c.Lookup("rail-faq-v1", lang)
		if err != nil {
			t.Fatal(err)
		}
		checks := []struct {
			what string
			ok   bool
		}{
			{"travel-v1 applies from 2025-01-01 until 2026-01-01", v1.ValidFrom == corpus.MustDate(2025, 1, 1) && v1.ValidUntil == corpus.MustDate(2026, 1, 1)},
			{"travel-v2 applies from 2026-01-01, open-ended", v2.ValidFrom == corpus.MustDate(2026, 1, 1) && v2.ValidUntil.IsZero()},
			{"travel-v2 supersedes travel-v1", slices.Equal(v2.Supersedes, []string{"travel-v1"})},
			{"both travel versions are about lodging", v1.HasSubject("lodging") && v2.HasSubject("lodging")},
			{"the rail FAQ is not about lodging", !rail.HasSubject("lodging") && rail.HasSubject("rail")},
			{"travel-v1 says 600", strings.Contains(v1.Text(), "600")},
			{"travel-v2 says 750", strings.Contains(v2.Text(), "750")},
			{"both travel versions carry a unit", v1.Unit != "" && v2.Unit != ""},
			{"travel cite ranges are 1-3", slices.Equal(v1.Cite, []corpus.Range{{Start: 1, End: 3}}) && slices.Equal(v2.Cite, []corpus.Range{{Start: 1, End: 3}})},
		}
		for _, check := range checks {
			if !check.ok {
				t.Errorf("%s: want %s", lang, check.what)
			}
		}
	}
	hostile, err := c.Lookup("notice-hostile", "en")
	if err != nil {
		t.Fatal(err)
	}
	if text := hostile.Text(); !strings.Contains(text, "A-104") {
		t.Errorf("notice-hostile does not mention order A-104:\n%s", text)
	}
}

// TestLoadSampleFiles checks that every embedded sample file parses on its
// own with the path Load gives it.
func TestLoadSampleFiles(t *testing.T) {
	files := sampleFiles(t)
	if len(files) != 7 {
		t.Errorf("sample has %d files, want 7", len(files))
	}
	for _, f := range files {
		if _, err := corpus.Parse(f.Name, f.Data); err != nil {
			t.Errorf("Parse(%s): %v", f.Name, err)
		}
	}
}

// generated returns n valid policy files with a few subjects, languages
// and consecutive versions, each with its own content.
func generated(n int) []txtar.File {
	var files []txtar.File
	for i := range n {
		subject := fmt.Sprintf("subject-%d", i%5)
		version := i / 5
		lang := []string{"en", "zh", ""}[i%3]
		id := fmt.Sprintf("%s-v%d", subject, version)
		if lang == "" {
			id += "-all"
		}
		fm := []string{
			"source_id: " + id,
			fmt.Sprintf("version: v%d", version),
			"subjects: [" + subject + "]",
			fmt.Sprintf("valid_from: %s", corpus.MustDate(2020, 1, 1).AddDays(40*version)),
		}
		if lang != "" {
			fm = append(fm, "lang: "+lang)
		}
		body := fmt.Sprintf("Rule %d of %s.\nThe amount is %d CNY.\n", version, subject, 100+i)
		files = append(files, txtar.File{Name: id + "-" + lang + ".md", Data: []byte(doc(fm, body))})
	}
	return files
}

// shuffled gives every file a new random name in a random folder, and
// returns them in a random order.
func shuffled(files []txtar.File, seed uint64) []txtar.File {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	perm := r.Perm(len(files))
	out := make([]txtar.File, len(files))
	for i, j := range perm {
		folder := []string{"", "a/", "b/c/", "z/y/x/"}[r.IntN(4)]
		out[i] = txtar.File{Name: fmt.Sprintf("%sfile-%04d.md", folder, r.IntN(1_000_000)*len(files)+i), Data: files[j].Data}
	}
	return out
}

func TestLoadDeterministic(t *testing.T) {
	files := append(sampleFiles(t), generated(60)...)
	var results []*corpus.Corpus
	for _, seed := range []uint64{1, 2, 3} {
		dir := t.TempDir()
		writeFiles(t, dir, shuffled(files, seed))
		c, err := loadDir(t, dir)
		if err != nil {
			t.Fatalf("seed %d: Load() error: %v", seed, err)
		}
		results = append(results, c)
	}
	if len(results[0].Sources) != len(files) {
		t.Fatalf("Load() gave %d sources, want %d", len(results[0].Sources), len(files))
	}
	for i, c := range results[1:] {
		if diff := cmp.Diff(results[0].Sources, c.Sources, dateCmp, cmpopts.IgnoreFields(corpus.Source{}, "Path")); diff != "" {
			t.Errorf("seed %d: Sources differ from seed 1 (ignoring Path) (-seed 1 +seed %d):\n%s", i+2, i+2, diff)
		}
	}
	for i := 1; i < len(results[0].Sources); i++ {
		a, b := results[0].Sources[i-1], results[0].Sources[i]
		if a.ID > b.ID || (a.ID == b.ID && a.Lang >= b.Lang) {
			t.Errorf("Sources not sorted by source_id, then lang: %s/%s before %s/%s", a.ID, a.Lang, b.ID, b.Lang)
		}
	}
}

func TestLoadRepeatable(t *testing.T) {
	// The same files loaded again and again, with parallel parsing, give
	// the same corpus every time, from disk or from memory.
	files := shuffled(append(sampleFiles(t), generated(60)...), 7)
	dir := t.TempDir()
	writeFiles(t, dir, files)
	first, err := loadDir(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	mem := fstest.MapFS{}
	for _, f := range files {
		mem[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	for i := range 5 {
		again, err := loadDir(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again, dateCmp, cmpopts.IgnoreUnexported(corpus.Corpus{})); diff != "" {
			t.Fatalf("load %d differs from the first (-first +again):\n%s", i+2, diff)
		}
	}
	inMemory, err := corpus.Load(mem)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, inMemory, dateCmp, cmpopts.IgnoreUnexported(corpus.Corpus{})); diff != "" {
		t.Errorf("Load(MapFS) differs from Load(os.Root) (-disk +memory):\n%s", diff)
	}
}

func TestLoadDigest(t *testing.T) {
	files := append(sampleFiles(t), generated(20)...)
	load := func(files []txtar.File) *corpus.Corpus {
		t.Helper()
		dir := t.TempDir()
		writeFiles(t, dir, files)
		c, err := loadDir(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := load(files)

	reversed := slices.Clone(files)
	slices.Reverse(reversed)
	r := rand.New(rand.NewPCG(11, 12))
	random := slices.Clone(files)
	r.Shuffle(len(random), func(i, j int) { random[i], random[j] = random[j], random[i] })

	renamed := slices.Clone(files)
	renamed[0].Name = "moved/" + renamed[0].Name

	edited := slices.Clone(files)
	edited[3].Data = append(slices.Clone(edited[3].Data), "One more line.\n"...)

	tests := []struct {
		name      string
		files     []txtar.File
		wantEqual bool
	}{
		{name: "same paths, files created in reverse order", files: reversed, wantEqual: true},
		{name: "same paths, files created in random order", files: random, wantEqual: true},
		{name: "one file moved", files: renamed, wantEqual: false},
		{name: "one file edited", files: edited, wantEqual: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := load(tt.files)
			if got := c.Digest == base.Digest; got != tt.wantEqual {
				t.Errorf("Digest equal = %t, want %t (%s vs %s)", got, tt.wantEqual, c.Digest, base.Digest)
			}
			if tt.wantEqual {
				if diff := cmp.Diff(base.Sources, c.Sources, dateCmp); diff != "" {
					t.Errorf("Sources mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// symlinkSetup makes files and links for a case: dir is the corpus folder
// base/c, and base/out lies outside it.
type symlinkSetup func(t *testing.T, base, dir string)

func TestLoadSymlinks(t *testing.T) {
	policy := func(id string) []byte {
		return []byte(doc(hotelReplacing(0, "source_id: "+id), threeLines))
	}
	file := func(t *testing.T, p string, data []byte) {
		t.Helper()
		writeFiles(t, filepath.Dir(p), []txtar.File{{Name: filepath.Base(p), Data: data}})
	}
	link := func(t *testing.T, target, name string) {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	outsideHint := "replace the link with a copy of its target, or make it a relative link to a target inside the corpus"
	loopHint := "make the link lead to a file or folder, not back to another link of the loop"
	twiceHint := "make each folder reachable through one link only, and no link lead back to a folder above it"
	tests := []struct {
		name    string
		setup   symlinkSetup
		wantIDs []string
		want    []string
	}{
		{
			name: "link to a file inside the root",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, ".archive", "hotel-v1.txt"), policy("hotel-v1"))
				link(t, filepath.Join(".archive", "hotel-v1.txt"), filepath.Join(dir, "hotel-v1.md"))
			},
			wantIDs: []string{"hotel-v1@hotel-v1.md"},
		},
		{
			name: "link up and down inside the root",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, ".archive", "hotel-v1.txt"), policy("hotel-v1"))
				link(t, filepath.Join("..", ".archive", "hotel-v1.txt"), filepath.Join(dir, "current", "hotel-v1.md"))
			},
			wantIDs: []string{"hotel-v1@current/hotel-v1.md"},
		},
		{
			name: "link to a folder inside the root is not followed",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "real", "hotel-v1.md"), policy("hotel-v1"))
				link(t, "real", filepath.Join(dir, "alias"))
			},
			wantIDs: []string{"hotel-v1@real/hotel-v1.md"},
		},
		{
			name: "relative link leaving the root",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				file(t, filepath.Join(base, "out", "secret.md"), policy("secret"))
				link(t, filepath.Join("..", "out", "secret.md"), filepath.Join(dir, "secret.md"))
			},
			want: []string{"[symlink_outside] secret.md: symbolic link leads outside the corpus root, or to nothing; " + outsideHint},
		},
		{
			name: "absolute link leaving the root",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(base, "out", "secret.md"), policy("secret"))
				link(t, filepath.Join(base, "out", "secret.md"), filepath.Join(dir, "sub", "secret.md"))
			},
			want: []string{"[symlink_outside] sub/secret.md: symbolic link leads outside the corpus root, or to nothing; " + outsideHint},
		},
		{
			name: "link to a folder outside the root",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				file(t, filepath.Join(base, "out", "secret.md"), policy("secret"))
				link(t, filepath.Join("..", "out"), filepath.Join(dir, "shared"))
			},
			want: []string{"[symlink_outside] shared: symbolic link leads outside the corpus root, or to nothing; " + outsideHint},
		},
		{
			name: "dangling link",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				link(t, "hotel-v9.md", filepath.Join(dir, "hotel-v0.md"))
			},
			want: []string{"[symlink_outside] hotel-v0.md: symbolic link leads outside the corpus root, or to nothing; " + outsideHint},
		},
		{
			name: "link to itself",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				link(t, "hotel-v0.md", filepath.Join(dir, "hotel-v0.md"))
			},
			want: []string{"[symlink_loop] hotel-v0.md: symbolic link loop: too many links to follow; " + loopHint},
		},
		{
			name: "links in a loop",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				link(t, "b", filepath.Join(dir, "a"))
				link(t, "a", filepath.Join(dir, "b"))
			},
			want: []string{
				"[symlink_loop] a: symbolic link loop: too many links to follow; " + loopHint,
				"[symlink_loop] b: symbolic link loop: too many links to follow; " + loopHint,
			},
		},
		{
			// A ConfigMap mounted with plain keys: every key a file link
			// at the top, through ..data to the timestamped folder.
			name: "configmap keys",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "..2026_11_30_12_00_00.123456789", "hotel-v1.md"), policy("hotel-v1"))
				file(t, filepath.Join(dir, "..2026_11_30_12_00_00.123456789", "rail-v1.md"), policy("rail-v1"))
				link(t, "..2026_11_30_12_00_00.123456789", filepath.Join(dir, "..data"))
				link(t, filepath.Join("..data", "hotel-v1.md"), filepath.Join(dir, "hotel-v1.md"))
				link(t, filepath.Join("..data", "rail-v1.md"), filepath.Join(dir, "rail-v1.md"))
			},
			wantIDs: []string{"hotel-v1@hotel-v1.md", "rail-v1@rail-v1.md"},
		},
		{
			// A ConfigMap mounted with items[].path in folders: the top
			// holds folder links (en -> ..data/en), which the walk follows.
			name: "configmap items with folders",
			setup: func(t *testing.T, base, dir string) {
				ts := filepath.Join(dir, "..2026_11_30_12_00_00.123456789")
				file(t, filepath.Join(ts, "en", "hotel-v1.md"), policy("hotel-en"))
				file(t, filepath.Join(ts, "en", "rules", "rail-v1.md"), policy("rail-en"))
				file(t, filepath.Join(ts, "zh", "hotel-v1.md"), policy("hotel-zh"))
				link(t, "..2026_11_30_12_00_00.123456789", filepath.Join(dir, "..data"))
				link(t, filepath.Join("..data", "en"), filepath.Join(dir, "en"))
				link(t, filepath.Join("..data", "zh"), filepath.Join(dir, "zh"))
			},
			wantIDs: []string{"hotel-en@en/hotel-v1.md", "hotel-zh@zh/hotel-v1.md", "rail-en@en/rules/rail-v1.md"},
		},
		{
			name: "linked folder with a link leading back up",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, ".h", "d", "hotel-v1.md"), policy("hotel-v1"))
				link(t, filepath.Join("..", ".h", "d"), filepath.Join(dir, "sub", "d"))
				link(t, "..", filepath.Join(dir, ".h", "d", "up"))
			},
			want: []string{"[symlink_loop] sub/d/up: symbolic link loop: the link leads to a folder that holds it; " + twiceHint},
		},
		{
			name: "two links to one folder",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, ".h", "d", "hotel-v1.md"), policy("hotel-v1"))
				link(t, filepath.Join(".h", "d"), filepath.Join(dir, "a"))
				link(t, filepath.Join(".h", "d"), filepath.Join(dir, "b"))
			},
			want: []string{"[symlink_loop] b: symbolic link leads to a folder also read through a; " + twiceHint},
		},
		{
			name: "linked folder with a link leaving the root",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, ".h", "d", "hotel-v1.md"), policy("hotel-v1"))
				file(t, filepath.Join(base, "out", "secret.md"), policy("secret"))
				link(t, filepath.Join(".h", "d"), filepath.Join(dir, "a"))
				link(t, filepath.Join("..", "..", "..", "out"), filepath.Join(dir, ".h", "d", "out"))
			},
			want: []string{"[symlink_outside] a/out: symbolic link leads outside the corpus root, or to nothing; " + outsideHint},
		},
		{
			name: "hidden folder that no link leads to is skipped",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				file(t, filepath.Join(dir, ".git", "stash.md"), []byte("not a policy"))
			},
			wantIDs: []string{"hotel-v1@hotel-v1.md"},
		},
		{
			name: "markdown-named link to a folder",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "real", "hotel-v1.md"), policy("hotel-v1"))
				link(t, "real", filepath.Join(dir, "all.md"))
			},
			want: []string{"[symlink_outside] all.md: symbolic link does not lead to a file inside the corpus root; replace the link with a copy of the file, or move its target into the corpus"},
		},
		{
			name: "hidden link is skipped like any hidden file",
			setup: func(t *testing.T, base, dir string) {
				file(t, filepath.Join(dir, "hotel-v1.md"), policy("hotel-v1"))
				link(t, filepath.Join("..", "out"), filepath.Join(dir, ".cache"))
			},
			wantIDs: []string{"hotel-v1@hotel-v1.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "c")
			if err := os.MkdirAll(filepath.Join(base, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "current"), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, base, dir)
			c, err := loadDir(t, dir)
			if diff := cmp.Diff(tt.want, problems(t, err)); diff != "" {
				t.Errorf("Load() problems mismatch (-want +got):\n%s", diff)
			}
			if err != nil {
				if c != nil {
					t.Errorf("Load() returned a corpus with an error")
				}
				return
			}
			var got []string
			for _, s := range c.Sources {
				got = append(got, s.ID+"@"+s.Path)
			}
			if diff := cmp.Diff(tt.wantIDs, got); diff != "" {
				t.Errorf("Load() sources mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// openOnly hides every method of a file system but Open, so that it
// cannot tell where a link leads.
type openOnly struct{ fsys fs.FS }

func (o openOnly) Open(name string) (fs.File, error) { return o.fsys.Open(name) }

// TestLoadFolderLinkUnresolvable: a link to a folder on a file system that
// cannot read links is a problem, not a folder silently left out.
func TestLoadFolderLinkUnresolvable(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, ".h", "en"), []txtar.File{{Name: "hotel-v1.md", Data: []byte(doc(hotelReplacing(0, ""), threeLines))}})
	if err := os.Symlink(filepath.Join(".h", "en"), filepath.Join(dir, "en")); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = corpus.Load(openOnly{root.FS()})
	want := []string{"[symlink_outside] en: symbolic link to a folder that cannot be resolved on this file system; replace the link with a copy of the folder"}
	if diff := cmp.Diff(want, problems(t, err)); diff != "" {
		t.Errorf("Load() problems mismatch (-want +got):\n%s", diff)
	}
}

// failFS refuses to open the named paths, as a file system does for files
// without read permission (which root can read anyway, so chmod cannot
// stand in for it in a test).
type failFS struct {
	fs.FS
	fail map[string]bool
}

func (f failFS) Open(name string) (fs.File, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.FS.Open(name)
}

func TestLoadUnreadable(t *testing.T) {
	mem := fstest.MapFS{
		"hotel-v1.md":              {Data: []byte(doc(hotel, threeLines))},
		"policies/meals-v1.md":     {Data: []byte(doc(hotelReplacing(0, "source_id: meals-v1"), threeLines))},
		"locked/parking-v1.md":     {Data: []byte(doc(hotelReplacing(0, "source_id: parking-v1"), threeLines))},
		"policies/locked-notes.md": {Data: []byte(doc(hotelReplacing(0, "source_id: notes"), threeLines))},
	}
	tests := []struct {
		name string
		fail []string
		want []string
	}{
		{
			name: "unreadable file",
			fail: []string{"policies/locked-notes.md"},
			want: []string{"[unreadable] policies/locked-notes.md: cannot read: permission denied; check the file's permissions, and that links stay inside the corpus"},
		},
		{
			name: "unreadable folder",
			fail: []string{"locked"},
			want: []string{"[unreadable] locked: cannot read: permission denied; check that the path exists and is readable"},
		},
		{
			name: "unreadable root",
			fail: []string{"."},
			want: []string{"[unreadable] .: cannot read: permission denied; check that the path exists and is readable"},
		},
		{
			name: "several",
			fail: []string{"hotel-v1.md", "locked", "policies/locked-notes.md"},
			want: []string{
				"[unreadable] hotel-v1.md: cannot read: permission denied; check the file's permissions, and that links stay inside the corpus",
				"[unreadable] locked: cannot read: permission denied; check that the path exists and is readable",
				"[unreadable] policies/locked-notes.md: cannot read: permission denied; check the file's permissions, and that links stay inside the corpus",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := failFS{FS: mem, fail: map[string]bool{}}
			for _, p := range tt.fail {
				fsys.fail[p] = true
			}
			c, err := corpus.Load(fsys)
			if c != nil {
				t.Errorf("Load() returned a corpus although files could not be read")
			}
			if diff := cmp.Diff(tt.want, problems(t, err)); diff != "" {
				t.Errorf("Load() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadMissingFolder(t *testing.T) {
	c, err := corpus.Load(os.DirFS(filepath.Join(t.TempDir(), "no-such-folder")))
	if c != nil {
		t.Errorf("Load() returned a corpus for a missing folder")
	}
	want := []string{"[unreadable] .: cannot read: no such file or directory; check that the path exists and is readable"}
	if diff := cmp.Diff(want, problems(t, err)); diff != "" {
		t.Errorf("Load() mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadEmpty(t *testing.T) {
	want := []string{"[empty_corpus] no policy files (*.md) found; point the corpus setting at the folder that holds the policy files"}
	tests := []struct {
		name string
		fsys fs.FS
	}{
		{name: "no files", fsys: fstest.MapFS{}},
		{name: "empty folders", fsys: fstest.MapFS{"a/b": {Mode: fs.ModeDir}}},
		{name: "only other files and hidden ones", fsys: fstest.MapFS{
			"README.txt":      {Data: []byte("read me")},
			"policy.MD":       {Data: []byte(doc(hotel, threeLines))},
			".hidden.md":      {Data: []byte(doc(hotel, threeLines))},
			".drafts/next.md": {Data: []byte(doc(hotel, threeLines))},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Load(tt.fsys)
			if c != nil {
				t.Errorf("Load() returned a corpus without sources")
			}
			if diff := cmp.Diff(want, problems(t, err)); diff != "" {
				t.Errorf("Load() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	src := func(id, lang, p string) *corpus.Source {
		return &corpus.Source{ID: id, Lang: lang, Path: p, Version: "v1", Subjects: []string{"x"},
			ValidFrom: corpus.MustDate(2026, 1, 1), Keys: keys(map[string]corpus.Pos{"source_id": {Line: 2, Col: 1}})}
	}
	tests := []struct {
		name    string
		sources []*corpus.Source
		want    []string // id/lang@path in order
		wantErr []string
	}{
		{name: "none", sources: nil},
		{
			name:    "sorted by source_id, then lang",
			sources: []*corpus.Source{src("b", "zh", "3.md"), src("b", "en", "2.md"), src("a", "", "1.md"), src("a-b", "en", "0.md")},
			want:    []string{"a/@1.md", "a-b/en@0.md", "b/en@2.md", "b/zh@3.md"},
		},
		{
			name:    "same id and lang",
			sources: []*corpus.Source{src("hotel-v1", "en", "y.md"), src("hotel-v1", "en", "x.md")},
			wantErr: []string{"[duplicate_source] y.md:2:1: source_id hotel-v1 (lang en) is also used by x.md; give each source its own source_id, or set a different lang on each translation"},
		},
		{
			name:    "same id, one without lang",
			sources: []*corpus.Source{src("hotel-v1", "en", "en/hotel-v1.md"), src("hotel-v1", "", "hotel-v1.md")},
			wantErr: []string{"[duplicate_source] en/hotel-v1.md:2:1: source_id hotel-v1 (lang en) is also used by hotel-v1.md; give each source its own source_id, or set a different lang on each translation"},
		},
		{
			name:    "three copies",
			sources: []*corpus.Source{src("hotel-v1", "", "c.md"), src("hotel-v1", "", "a.md"), src("hotel-v1", "", "b.md")},
			wantErr: []string{
				"[duplicate_source] b.md:2:1: source_id hotel-v1 is also used by a.md; give each source its own source_id, or set a different lang on each translation",
				"[duplicate_source] c.md:2:1: source_id hotel-v1 is also used by a.md; give each source its own source_id, or set a different lang on each translation",
				"[duplicate_source] c.md:2:1: source_id hotel-v1 is also used by b.md; give each source its own source_id, or set a different lang on each translation",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.sources)
			c, err := corpus.New(tt.sources)
			if diff := cmp.Diff(tt.wantErr, problems(t, err)); diff != "" {
				t.Errorf("New() problems mismatch (-want +got):\n%s", diff)
			}
			if !slices.Equal(in, tt.sources) {
				t.Errorf("New() reordered its argument")
			}
			if err != nil {
				return
			}
			var got []string
			for _, s := range c.Sources {
				got = append(got, s.ID+"/"+s.Lang+"@"+s.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("New() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// fixtureCorpus loads testdata/load/translations.txtar.
func fixtureCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Load(archiveFS(readArchive(t, path.Join("load", "translations.txtar"))))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLookup(t *testing.T) {
	c := fixtureCorpus(t)
	tests := []struct {
		name     string
		id, lang string
		wantPath string
		wantErr  string
		wantCode diag.Code
	}{
		{name: "english", id: "meals-v1", lang: "en", wantPath: "policies/meals/en/meals-v1.md"},
		{name: "chinese", id: "meals-v1", lang: "zh", wantPath: "policies/meals/zh/meals-v1.md"},
		{name: "source without lang, no lang asked", id: "holiday-note", wantPath: "notes/holiday-note.md"},
		{name: "source without lang, any lang asked", id: "holiday-note", lang: "zh", wantPath: "notes/holiday-note.md"},
		{name: "two languages, none asked", id: "meals-v1",
			wantErr: "source meals-v1 exists in en, zh; pass the lang setting to choose one", wantCode: corpus.CodeAmbiguousAddress},
		{name: "a language the source is not in", id: "meals-v1", lang: "fr",
			wantErr: "no source meals-v1 (lang fr); it exists in en, zh; pass one of those with the lang setting", wantCode: corpus.CodeUnknownSource},
		{name: "no such source", id: "meals-v9", lang: "en",
			wantErr: "no source meals-v9 (lang en); check the source_id; `ka2 subjects` lists every source by subject", wantCode: corpus.CodeUnknownSource},
		{name: "no such source, no lang", id: "meals-v9",
			wantErr: "no source meals-v9; check the source_id; `ka2 subjects` lists every source by subject", wantCode: corpus.CodeUnknownSource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := c.Lookup(tt.id, tt.lang)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Lookup(%q, %q) = %s, want an error", tt.id, tt.lang, s.Path)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Lookup() error mismatch (-want +got):\n%s", diff)
				}
				assertCode(t, err, tt.wantCode)
				return
			}
			if err != nil {
				t.Fatalf("Lookup(%q, %q) error: %v", tt.id, tt.lang, err)
			}
			if s.Path != tt.wantPath {
				t.Errorf("Lookup(%q, %q) = %s, want %s", tt.id, tt.lang, s.Path, tt.wantPath)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	c := fixtureCorpus(t)
	tests := []struct {
		name      string
		addr      string
		lang      string
		wantPath  string
		wantRange corpus.Range
		wantQuote string
		wantErr   string
		wantCode  diag.Code
	}{
		{name: "a range", addr: "meals-v1:1-2", lang: "en", wantPath: "policies/meals/en/meals-v1.md",
			wantRange: corpus.Range{Start: 1, End: 2},
			wantQuote: "Scope: meal allowance on business trips inside the country.\nThe daily meal allowance is 120 CNY."},
		{name: "a citation in another language", addr: "[meals-v1:2]", lang: "zh", wantPath: "policies/meals/zh/meals-v1.md",
			wantRange: corpus.Range{Start: 2, End: 2}, wantQuote: "每日餐费补贴为 120 元。"},
		{name: "whole body", addr: "holiday-note", wantPath: "notes/holiday-note.md",
			wantRange: corpus.Range{Start: 1, End: 1}, wantQuote: "Trips that start on a public holiday need the manager's written approval."},
		{name: "past the end", addr: "meals-v1:3-5", lang: "en",
			wantErr:  "policies/meals/en/meals-v1.md: lines 3-5 are outside the body of meals-v1, which has 4 lines; cite lines between 1 and 4",
			wantCode: corpus.CodeRangeOutsideBody},
		{name: "ambiguous language", addr: "meals-v1:1", lang: "",
			wantErr: "source meals-v1 exists in en, zh; pass the lang setting to choose one", wantCode: corpus.CodeAmbiguousAddress},
		{name: "unknown source", addr: "hotel-v1:1", lang: "en",
			wantErr: "no source hotel-v1 (lang en); check the source_id; `ka2 subjects` lists every source by subject", wantCode: corpus.CodeUnknownSource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := corpus.ParseAddress(tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			s, r, q, err := c.Resolve(a, tt.lang)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Resolve(%s) = %q, want an error", a, q)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Resolve() error mismatch (-want +got):\n%s", diff)
				}
				assertCode(t, err, tt.wantCode)
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%s) error: %v", a, err)
			}
			if s.Path != tt.wantPath {
				t.Errorf("Resolve(%s) source = %s, want %s", a, s.Path, tt.wantPath)
			}
			if r != tt.wantRange {
				t.Errorf("Resolve(%s) range = %v, want %v", a, r, tt.wantRange)
			}
			if diff := cmp.Diff(tt.wantQuote, q); diff != "" {
				t.Errorf("Resolve(%s) mismatch (-want +got):\n%s", a, diff)
			}
		})
	}
}

// TestLoadSpecialFiles: only regular files of at most inputfile.MaxSize
// bytes are read; a named pipe, a device or an oversized file is a
// problem naming its path.
func TestLoadSpecialFiles(t *testing.T) {
	ok := []byte(doc(hotel, threeLines))
	big := append([]byte(doc(hotelReplacing(0, "source_id: big"), threeLines)), bytes.Repeat([]byte("x"), inputfile.MaxSize)...)
	fsys := fstest.MapFS{
		"hotel-v1.md":    {Data: ok},
		"pipe.md":        {Mode: fs.ModeNamedPipe},
		"dev/zero.md":    {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"sock.md":        {Mode: fs.ModeSocket},
		"big.md":         {Data: big},
		"exactly-cap.md": {Data: append([]byte(doc(hotelReplacing(0, "source_id: cap"), threeLines)), bytes.Repeat([]byte("y"), inputfile.MaxSize-len(doc(hotelReplacing(0, "source_id: cap"), threeLines)))...)},
		"notes/pipe.txt": {Mode: fs.ModeNamedPipe}, // not a policy file: never opened
	}
	_, err := corpus.Load(fsys)
	want := []string{
		"[unreadable] big.md: cannot read: it is larger than 4 MiB, the most ka2 reads from one file; split the policy into several files",
		"[unreadable] dev/zero.md: cannot read: it is a character device, not a regular file; ka2 reads only regular files; replace it with a regular file, or rename it so that it does not end in .md",
		"[unreadable] pipe.md: cannot read: it is a named pipe (FIFO), not a regular file; ka2 reads only regular files; replace it with a regular file, or rename it so that it does not end in .md",
		"[unreadable] sock.md: cannot read: it is a socket, not a regular file; ka2 reads only regular files; replace it with a regular file, or rename it so that it does not end in .md",
	}
	if diff := cmp.Diff(want, problems(t, err)); diff != "" {
		t.Errorf("Load() mismatch (-want +got):\n%s", diff)
	}
}
