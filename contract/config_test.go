package contract_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/diag"
)

// errAny stands for an error whose cause the test does not name.
var errAny = errors.New("any error")

// TestConfigNamesItsCorpus: no zero value means the embedded sample. A
// Config or a load that has no corpus is an error with a hint naming the
// setting; the sample is used only when Sample gives it.
func TestConfigNamesItsCorpus(t *testing.T) {
	tests := []struct {
		name     string
		corpus   contract.Corpus
		wantErr  error  // nil: loads
		wantHint string // the setting the hint names
	}{
		{"unset", contract.Corpus{}, contract.ErrNoCorpus, "corpus"},
		{"named but no files", contract.Corpus{Name: "policies"}, contract.ErrNoCorpus, "corpus"},
		{"no folder", contract.Folder(""), contract.ErrNoCorpus, "corpus"},
		{"sample", contract.Sample(), nil, ""},
		{"folder", contract.Folder("../corpus/sample"), nil, ""},
		{"missing folder", contract.Folder("no-such-folder"), errAny, "corpus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := contract.Config{Corpus: tt.corpus}.Builder()
			_, lerr := contract.LoadCorpus(context.Background(), tt.corpus)
			if tt.wantErr == nil {
				if err != nil || lerr != nil {
					t.Fatalf("Builder() = %v, LoadCorpus() = %v, want no error", err, lerr)
				}
				if len(b.Index.Corpus().Sources) == 0 {
					t.Error("the corpus is empty")
				}
				return
			}
			for _, err := range []error{err, lerr} {
				var ce *contract.ConfigError
				if !errors.As(err, &ce) || ce.Setting != contract.SettingCorpus {
					t.Fatalf("error %v, want a ConfigError about the corpus", err)
				}
				if tt.wantErr != errAny && !errors.Is(err, tt.wantErr) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.wantErr)
				}
				ds := diag.As(err)
				if len(ds) != 1 || len(ds[0].Hint.Settings()) != 1 || ds[0].Hint.Settings()[0] != tt.wantHint {
					t.Errorf("hint of %v names %v, want [%s]", err, ds, tt.wantHint)
				}
			}
		})
	}
	for c, want := range map[contract.Corpus]string{
		contract.Sample():                        contract.SampleCorpus,
		contract.Folder(filepath.Join("a", "b")): "a/b",
		contract.Folder("."):                     ".",
	} {
		if got := (contract.Config{Corpus: c}).Location(); got != want {
			t.Errorf("Location() = %q, want %q", got, want)
		}
	}
}

// TestFolder: a Folder's files are read through the folder as it is at
// each call, so a link swapped in under it is followed, and links inside
// it resolve only inside it.
func TestFolder(t *testing.T) {
	base := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	write("v1/a.md", "one")
	write("v1/sub/b.md", "b")
	write("v2/a.md", "two")
	write("secret.md", "secret")
	link("v1", "current")
	link("a.md", filepath.Join("v1", "in.md"))

	fsys := contract.Folder(filepath.Join(base, "current")).FS
	if err := fstest.TestFS(fsys, "a.md", "sub/b.md", "in.md"); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join("..", "secret.md"), filepath.Join("v1", "out.md"))
	read := func(name string) string {
		t.Helper()
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := read("in.md"); got != "one" {
		t.Errorf("in.md = %q, want the file it links to inside the folder", got)
	}
	if data, err := fs.ReadFile(fsys, "out.md"); err == nil {
		t.Errorf("out.md, a link out of the folder, read %q, want an error", data)
	}
	if got, err := fs.ReadLink(fsys, "in.md"); err != nil || got != "a.md" {
		t.Errorf("ReadLink(in.md) = %q, %v, want a.md", got, err)
	}
	if got := read("a.md"); got != "one" {
		t.Fatalf("a.md = %q before the swap, want one", got)
	}
	// Swap current to v2 as a deploy does: a new link renamed over the old.
	link("v2", "next")
	if err := os.Rename(filepath.Join(base, "next"), filepath.Join(base, "current")); err != nil {
		t.Fatal(err)
	}
	if got := read("a.md"); got != "two" {
		t.Errorf("a.md = %q after the swap, want two", got)
	}
}
