package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "golden.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(t.Context(), p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "new" {
		t.Fatalf("after Write: %q, %v; want \"new\"", got, err)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	assertOnly(t, dir, "golden.json")
}

// A write that cannot finish leaves the old file as it was and no
// temporary file behind.
func TestWriteFailureLeavesFileAlone(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	// A non-empty directory cannot be replaced by a file: the rename fails.
	if err := os.MkdirAll(filepath.Join(target, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(t.Context(), target, []byte("new"), 0o644); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if info, err := os.Stat(filepath.Join(target, "keep")); err != nil || !info.IsDir() {
		t.Errorf("the directory was changed: %v", err)
	}
	assertOnly(t, dir, "target")

	if err := Write(t.Context(), filepath.Join(dir, "missing", "x"), []byte("new"), 0o644); err == nil {
		t.Error("Write into a missing folder succeeded")
	}
	assertOnly(t, dir, "target")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("folder holds %v, want only %v", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("folder holds %v, want only %v", got, names)
		}
	}
}

// Write syncs the folder after the rename, so the rename survives a
// crash: when syncDir runs, the target already holds the new content.
func TestWriteSyncsFolderAfterRename(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "golden.json")
	var synced []string
	orig := syncDir
	t.Cleanup(func() { syncDir = orig })
	syncDir = func(root *os.Root, d string) error {
		got, err := os.ReadFile(p)
		if err != nil || string(got) != "new" {
			t.Errorf("folder synced before the rename: %q, %v", got, err)
		}
		synced = append(synced, filepath.Join(root.Name(), d))
		return orig(root, d)
	}
	if err := Write(t.Context(), p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, ".")}; !slices.Equal(synced, want) {
		t.Errorf("synced %q, want %q", synced, want)
	}
	// A folder that cannot be synced is an error naming the file.
	syncDir = func(*os.Root, string) error { return errors.New("disk gone") }
	if err := Write(t.Context(), p, []byte("newer"), 0o644); err == nil || !strings.Contains(err.Error(), "golden.json: sync its folder: disk gone") {
		t.Errorf("Write() = %v, want the folder sync error", err)
	}
}

// deadPID returns the PID of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestRemoveStale plants temporary files as a killed write leaves them,
// beside files that only look alike: only the former go.
func TestRemoveStale(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("processes cannot be looked up; nothing is removed")
	}
	dir := t.TempDir()
	dead, self, parent := deadPID(t), os.Getpid(), os.Getppid()
	stale := []string{
		fmt.Sprintf(".a.golden.tmp-%d-123456", dead),
		fmt.Sprintf(".b.golden.new.tmp-%d-1", dead),
	}
	kept := []string{
		"a.golden",
		fmt.Sprintf(".a.golden.tmp-%d-99", self),    // a write in progress here
		fmt.Sprintf(".a.golden.tmp-%d-98", parent),  // a write in progress in a live process
		fmt.Sprintf("a.golden.tmp-%d-1", dead),      // no leading dot
		fmt.Sprintf(".a.golden.tmp-%d-1x", dead),    // not CreateTemp's digits
		fmt.Sprintf(".a.golden.tmp-%d", dead),       // no random part
		".a.golden.tmp-123456789",                   // older naming, no PID: cannot tell
		fmt.Sprintf(".a.golden.tmp-0%d-1", dead),    // not a PID
		fmt.Sprintf(".a.golden.tmp-%d-1.bak", dead), // someone else's file
	}
	for _, n := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A folder named like a stale file is not a file.
	dirLike := fmt.Sprintf(".c.tmp-%d-7", dead)
	if err := os.Mkdir(filepath.Join(dir, dirLike), 0o755); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveStale(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, stale) {
		t.Errorf("RemoveStale() = %q, want %q", removed, stale)
	}
	want := append(slices.Clone(kept), dirLike)
	slices.Sort(want)
	assertOnly(t, dir, want...)

	if removed, err := RemoveStale(filepath.Join(dir, "missing")); err != nil || removed != nil {
		t.Errorf("missing folder: RemoveStale() = %q, %v; want nothing", removed, err)
	}
}

// The temporary file Write makes matches the pattern RemoveStale looks
// for, with this process's PID, so a killed write is found later.
func TestTempNameMatchesPattern(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), tempPrefix("t.golden", os.Getpid())+"*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	name := filepath.Base(f.Name())
	if m := tempName.FindStringSubmatch(name); m == nil || m[1] != strconv.Itoa(os.Getpid()) {
		t.Errorf("temporary name %q does not match %v with this PID", name, tempName)
	}
}

// errAfter is a context whose Err is nil for its first n calls and
// context.Canceled after that: a cancellation that arrives at an exact
// step of Write, with no goroutines or clocks.
type errAfter struct {
	context.Context
	n int
}

func (c *errAfter) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// A cancelled Write leaves the target as it was and no temporary file,
// whether the cancellation comes before it starts or while it writes.
func TestWriteCancelled(t *testing.T) {
	tests := []struct {
		name string
		ok   int // Err calls that still say "go on"
	}{
		{name: "before the write", ok: 0},
		{name: "before the rename", ok: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "golden.json")
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := &errAfter{Context: context.Background(), n: tt.ok}
			err := Write(ctx, p, []byte("new"), 0o644)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Write() = %v, want context.Canceled", err)
			}
			if got, _ := os.ReadFile(p); string(got) != "old" {
				t.Errorf("target = %q, want \"old\"", got)
			}
			assertOnly(t, dir, "golden.json")
		})
	}
}
