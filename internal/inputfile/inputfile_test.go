package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small.md", "0123456789")
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("small.md", link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		max     int64
		want    string
		wantErr error
		wantMsg string
	}{
		{name: "exactly the cap", path: small, max: 10, want: "0123456789"},
		{name: "one byte over the cap", path: small, max: 9, wantErr: ErrTooLarge, wantMsg: "it is larger than 9 bytes, the most ka2 reads from one file"},
		{name: "a link to a regular file", path: link, max: MaxSize, want: "0123456789"},
		{name: "empty", path: write("empty.md", ""), max: MaxSize, want: ""},
		{name: "a folder", path: dir, max: MaxSize, wantErr: ErrNotRegular, wantMsg: "it is a folder, not a regular file; ka2 reads only regular files"},
		{name: "missing", path: filepath.Join(dir, "nope.md"), max: MaxSize, wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFile(tt.path, tt.max)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("ReadFile() = %q, %v; want %v containing %q", got, err, tt.wantErr, tt.wantMsg)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadFile() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":   {Data: []byte("hello")},
		"big.md": {Data: []byte(strings.Repeat("x", 100))},
		"dir/x":  {Data: []byte("x")},
	}
	if data, info, err := ReadFS(fsys, "a.md", 5); err != nil || string(data) != "hello" || info.Size() != 5 {
		t.Errorf("ReadFS(a.md) = %q, %v, %v", data, info, err)
	}
	if _, _, err := ReadFS(fsys, "big.md", 99); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFS(big.md) error = %v, want ErrTooLarge", err)
	}
	if _, _, err := ReadFS(fsys, "dir", MaxSize); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFS(dir) error = %v, want ErrNotRegular", err)
	}
}

// TestReadListed: a listed file reads as ReadFS reads it, and the open
// file is still checked: a folder or a file over max is refused.
func TestReadListed(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":   {Data: []byte("hello")},
		"big.md": {Data: []byte(strings.Repeat("x", 100))},
		"dir/x":  {Data: []byte("x")},
	}
	if data, info, err := ReadListed(fsys, "a.md", 5); err != nil || string(data) != "hello" || info.Size() != 5 {
		t.Errorf("ReadListed(a.md) = %q, %v, %v", data, info, err)
	}
	if _, _, err := ReadListed(fsys, "big.md", 99); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadListed(big.md) error = %v, want ErrTooLarge", err)
	}
	if _, _, err := ReadListed(fsys, "dir", MaxSize); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadListed(dir) error = %v, want ErrNotRegular", err)
	}
	if _, _, err := ReadListed(fsys, "gone.md", MaxSize); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadListed(gone.md) error = %v, want fs.ErrNotExist", err)
	}
}

func TestReadAll(t *testing.T) {
	if got, err := ReadAll(strings.NewReader("abc"), "-", 3); err != nil || string(got) != "abc" {
		t.Errorf("ReadAll() = %q, %v", got, err)
	}
	if _, err := ReadAll(strings.NewReader("abcd"), "-", 3); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "read -: it is larger than 3 bytes") {
		t.Errorf("ReadAll() error = %v, want ErrTooLarge naming -", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{MaxSize: "4 MiB", 1 << 10: "1 KiB", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReason(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "missing.md"), MaxSize)
	if got := Reason(err); got == "" || strings.Contains(got, "missing.md") {
		t.Errorf("Reason(%v) = %q, want the cause without the path", err, got)
	}
	if got := Reason(ErrTooLarge); got != ErrTooLarge.Error() {
		t.Errorf("Reason(ErrTooLarge) = %q", got)
	}
}
