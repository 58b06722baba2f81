//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// mknodNull makes a private character device with /dev/null's numbers
// (1, 3 on Linux), so a test can see that the device is written in place
// and stays a device. Only root may make one.
func mknodNull(t *testing.T, name string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a character device (mknod) needs root; CI runs the suite as root")
	}
	info, err := os.Stat(os.DevNull)
	if err != nil {
		t.Skipf("no %s to copy the device numbers of: %v", os.DevNull, err)
	}
	st := info.Sys().(*syscall.Stat_t)
	if err := syscall.Mknod(name, syscall.S_IFCHR|0o666, int(st.Rdev)); err != nil {
		t.Skipf("mknod: %v (a container without CAP_MKNOD)", err)
	}
}

// fifoWithReader makes a FIFO and opens it for reading without waiting,
// so that a writer finds a reader; what was written is read back after
// the writer closed it.
func fifoWithReader(t *testing.T, name string) *os.File {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	r, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestWriteSpecial: a device, a FIFO and a link to one are written in
// place and stay what they were; a link to a regular file is written
// through, the link kept; nothing else is replaced by a file.
func TestWriteSpecial(t *testing.T) {
	data := []byte("<report/>\n")
	t.Run("character device", func(t *testing.T) {
		dir := t.TempDir()
		dev := filepath.Join(dir, "null")
		mknodNull(t, dev)
		if err := Write(t.Context(), dev, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(dev); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("after Write the device is %v, %v; want a character device", info.Mode(), err)
		}
		assertOnly(t, dir, "null")
	})
	t.Run("link to a character device", func(t *testing.T) {
		dir := t.TempDir()
		dev := filepath.Join(dir, "null")
		mknodNull(t, dev)
		link := filepath.Join(dir, "out")
		if err := os.Symlink("null", link); err != nil {
			t.Fatal(err)
		}
		if err := Write(t.Context(), link, data, 0o644); err != nil {
			t.Fatal(err)
		}
		assertLink(t, link, "null")
		assertOnly(t, dir, "null", "out")
	})
	t.Run("FIFO with a reader", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "pipe")
		r := fifoWithReader(t, fifo)
		if err := Write(t.Context(), fifo, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(r); err != nil || string(got) != string(data) {
			t.Errorf("the reader got %q, %v; want %q", got, err, data)
		}
		if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("after Write the FIFO is %v, %v", info.Mode(), err)
		}
		assertOnly(t, dir, "pipe")
	})
	t.Run("FIFO with no reader", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("cannot make a FIFO: %v", err)
		}
		// Would hang for good if the open waited for a reader.
		if err := Write(t.Context(), fifo, data, 0o644); !errors.Is(err, ErrNoReader) {
			t.Errorf("Write() = %v, want ErrNoReader", err)
		}
		assertOnly(t, dir, "pipe")
	})
	t.Run("link to /proc/self/fd of a pipe", func(t *testing.T) {
		if _, err := os.Stat("/proc/self/fd"); err != nil {
			t.Skip("no /proc/self/fd here")
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		dir := t.TempDir()
		link := filepath.Join(dir, "stdout")
		to := "/proc/self/fd/" + strconv.Itoa(int(pw.Fd()))
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
		err = Write(t.Context(), link, data, 0o644)
		pw.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(pr); err != nil || string(got) != string(data) {
			t.Errorf("the pipe got %q, %v; want %q", got, err, data)
		}
		assertLink(t, link, to)
		assertOnly(t, dir, "stdout")
	})
	t.Run("link to a regular file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, "real", "report.xml")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "report.xml")
		if err := os.Symlink(filepath.Join("real", "report.xml"), link); err != nil {
			t.Fatal(err)
		}
		if err := Write(t.Context(), link, data, 0o644); err != nil {
			t.Fatal(err)
		}
		assertLink(t, link, filepath.Join("real", "report.xml"))
		if got, _ := os.ReadFile(target); string(got) != string(data) {
			t.Errorf("target = %q, want %q", got, data)
		}
		assertOnly(t, dir, "real", "report.xml")
		assertOnly(t, filepath.Join(dir, "real"), "report.xml")
	})
	refused := []struct {
		name string
		make func(t *testing.T, p string)
	}{
		{"dangling link", func(t *testing.T, p string) { symlink(t, "missing", p) }},
		{"link loop", func(t *testing.T, p string) { symlink(t, filepath.Base(p), p) }},
		{"link to a folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p+".d", 0o755); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Base(p)+".d", p)
		}},
		{"folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out")
			tt.make(t, p)
			before := listing(t, dir)
			if err := Write(t.Context(), p, data, 0o644); !errors.Is(err, ErrNotFile) {
				t.Errorf("Write() = %v, want ErrNotFile", err)
			}
			if after := listing(t, dir); after != before {
				t.Errorf("the folder changed:\n%s\nwant\n%s", after, before)
			}
		})
	}
}

// TestWriteIn: nothing outside the root is read or written, however the
// tree's links lead; links inside it to regular files are written
// through.
func TestWriteIn(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		write string
		// want is where the data lands, relative to the tree; "" for a
		// refusal (ErrNotFile).
		want string
	}{
		{name: "new file in new folders", write: "a/b/x.golden", want: "a/b/x.golden"},
		{name: "link inside to a regular file", write: "g/x.golden", want: "g/real.golden", setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "g", "real.golden"))
			symlink(t, "real.golden", filepath.Join(dir, "g", "x.golden"))
		}},
		{name: "link through a linked folder with ..", write: "g/x.golden", want: "deep/er/y.golden", setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "deep", "er", "y.golden"))
			write(t, filepath.Join(dir, "y.golden")) // where a lexical reading of ".." would go
			if err := os.MkdirAll(filepath.Join(dir, "deep", "er", "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join("deep", "er", "sub"), filepath.Join(dir, "g"))
			symlink(t, filepath.Join("..", "y.golden"), filepath.Join(dir, "deep", "er", "sub", "x.golden"))
		}},
		{name: "absolute link out", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			symlink(t, secret, filepath.Join(dir, "g", "x.golden"))
		}},
		{name: "relative link out", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			rel, _ := filepath.Rel(filepath.Join(dir, "g"), secret)
			symlink(t, rel, filepath.Join(dir, "g", "x.golden"))
		}},
		{name: "folder linked out", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			symlink(t, outside, filepath.Join(dir, "g"))
		}},
		{name: "dangling link", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			symlink(t, "nothing", filepath.Join(dir, "g", "x.golden"))
		}},
		{name: "link loop", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			symlink(t, "y", filepath.Join(dir, "g", "x.golden"))
			symlink(t, "x.golden", filepath.Join(dir, "g", "y"))
		}},
		{name: "FIFO", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "g"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "g", "x.golden"), 0o644); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
		}},
		{name: "link to a folder", write: "g/x.golden", setup: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "g", "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			symlink(t, "d", filepath.Join(dir, "g", "x.golden"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			before := listing(t, dir)
			err = WriteIn(t.Context(), root, tt.write, []byte("new"), 0o644)
			if got, _ := os.ReadFile(secret); string(got) != "keep" {
				t.Fatalf("the file outside the tree was written: %q", got)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Fatalf("a file was made outside the tree: %v", entries)
			}
			if tt.want == "" {
				if !errors.Is(err, ErrNotFile) {
					t.Errorf("WriteIn() = %v, want ErrNotFile", err)
				}
				if after := listing(t, dir); after != before {
					t.Errorf("the tree changed:\n%s\nwant\n%s", after, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tt.want))); err != nil || string(got) != "new" {
				t.Errorf("%s = %q, %v; want \"new\"", tt.want, got, err)
			}
		})
	}
}

func symlink(t *testing.T, to, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, name); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertLink(t *testing.T, link, to string) {
	t.Helper()
	if got, err := os.Readlink(link); err != nil || got != to {
		t.Errorf("%s is no longer a link to %s: %q, %v", link, to, got, err)
	}
}

// listing is every name under dir with its type and, for files, content.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out += rel + " " + d.Type().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			out += " " + string(b)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(p)
			out += " -> " + to
		}
		out += "\n"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
