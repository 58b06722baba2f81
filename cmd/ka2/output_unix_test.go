//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// outputFlags are the command lines of every flag that writes a file,
// with OUT where the file goes, the exit status each has in the project
// `ka2 init` makes, and a text the written output holds.
var outputFlags = []struct {
	name string
	args []string
	exit int
	want string
}{
	{"regress --report", []string{"regress", "--format", "junit", "--report", "OUT", "cases"}, 0, "<testsuites"},
	{"report merge --report", []string{"report", "merge", "--format", "html", "--report", "OUT", "shard.json"}, 0, "<!DOCTYPE html>"},
	{"report merge --junit", []string{"report", "merge", "--junit", "OUT", "shard.json"}, 0, "<testsuites"},
	{"report merge --json", []string{"report", "merge", "--json", "OUT", "shard.json"}, 0, `"format": "ka2-regress-report-v1"`},
	{"build --trace", []string{"build", "--subject", "meals", "--date", "2026-01-01", "--question", "q", "--trace", "OUT"}, 0, `"decisions"`},
	{"build --audit", []string{"build", "--subject", "meals", "--date", "2026-01-01", "--question", "q", "--audit", "OUT"}, 0, `"op"`},
	{"eval --report", []string{"eval", "cases", "--conditions", "base", "--format", "junit", "--report", "OUT", "--exec", "sh", "--", "-c", "cat >/dev/null; echo x"}, 1, "<testsuites"},
	{"timeline --output", []string{"timeline", "--subject", "meals", "--format", "svg", "--output", "OUT"}, 0, "<svg"},
}

// initProject makes the project `ka2 init` writes, with a shard report
// for report merge, and returns its folder.
func initProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	if out, err := exec.Command("ka2", "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("ka2 init: %v\n%s", err, out)
	}
	cmd := exec.Command("ka2", "regress", "--shard", "1/1", "--format", "json", "--report", "shard.json", "cases")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ka2 regress: %v\n%s", err, out)
	}
	return dir
}

// runOutput runs ka2 in dir with OUT in args replaced by out, and returns
// its exit status and standard output (a pipe, so /proc/self/fd/1 in ka2
// is that pipe) and standard error.
func runOutput(t *testing.T, dir string, args []string, out string) (int, string, string) {
	t.Helper()
	args = append([]string(nil), args...)
	for i, a := range args {
		if a == "OUT" {
			args[i] = out
		}
	}
	cmd := exec.Command("ka2", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestOutputsNotRegular: every output flag writes a character device, a
// FIFO and a link to /proc/self/fd/1 in place, and leaves each what it
// was; ka2 used to rename a regular file over them (as root, /dev/null
// became a file holding the report).
func TestOutputsNotRegular(t *testing.T) {
	dir := initProject(t)
	_, haveProc := os.Stat("/proc/self/fd/1")
	for _, of := range outputFlags {
		t.Run(of.name, func(t *testing.T) {
			t.Run("character device", func(t *testing.T) {
				if os.Geteuid() != 0 {
					t.Skip("making a character device (mknod) needs root; CI runs the suite as root")
				}
				dev := filepath.Join(t.TempDir(), "null")
				info, err := os.Stat(os.DevNull)
				if err != nil {
					t.Skip(err)
				}
				if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(info.Sys().(*syscall.Stat_t).Rdev)); err != nil {
					t.Skipf("mknod: %v", err)
				}
				code, _, stderr := runOutput(t, dir, of.args, dev)
				if code != of.exit {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, of.exit, stderr)
				}
				if info, err := os.Lstat(dev); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
					t.Errorf("the device became %v (%v)", info.Mode(), err)
				}
			})
			t.Run("FIFO with a reader", func(t *testing.T) {
				fifo := filepath.Join(t.TempDir(), "pipe")
				if err := syscall.Mkfifo(fifo, 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				// Opened without waiting, the reader is there before ka2
				// writes; the pipe's buffer holds the output until ka2
				// closes it.
				r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				code, _, stderr := runOutput(t, dir, of.args, fifo)
				if code != of.exit {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, of.exit, stderr)
				}
				got, err := io.ReadAll(r)
				if err != nil || !strings.Contains(string(got), of.want) {
					t.Errorf("the reader got %.200q, %v; want it to hold %q", got, err, of.want)
				}
				if info, err := os.Lstat(fifo); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
					t.Errorf("the FIFO became %v (%v)", info.Mode(), err)
				}
			})
			t.Run("link to /proc/self/fd/1", func(t *testing.T) {
				if haveProc != nil {
					t.Skip("no /proc/self/fd here")
				}
				link := filepath.Join(t.TempDir(), "stdout")
				if err := os.Symlink("/proc/self/fd/1", link); err != nil {
					t.Fatal(err)
				}
				code, stdout, stderr := runOutput(t, dir, of.args, link)
				if code != of.exit {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, of.exit, stderr)
				}
				if !strings.Contains(stdout, of.want) {
					t.Errorf("standard output lacks %q:\n%.300s", of.want, stdout)
				}
				if to, err := os.Readlink(link); err != nil || to != "/proc/self/fd/1" {
					t.Errorf("the link became %q (%v)", to, err)
				}
			})
			t.Run("FIFO with no reader", func(t *testing.T) {
				fifo := filepath.Join(t.TempDir(), "pipe")
				if err := syscall.Mkfifo(fifo, 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				code, _, stderr := runOutput(t, dir, of.args, fifo)
				if code != 2 || !strings.Contains(stderr, "a named pipe (FIFO) with no reader") {
					t.Errorf("exit %d, stderr %q; want 2 and no reader", code, stderr)
				}
			})
		})
	}
}

// TestOutputsDash: "-" is standard output for every output flag that
// does not share it with another output (build's contract goes there).
func TestOutputsDash(t *testing.T) {
	dir := initProject(t)
	for _, of := range outputFlags {
		t.Run(of.name, func(t *testing.T) {
			code, stdout, stderr := runOutput(t, dir, of.args, "-")
			if of.args[0] == "build" {
				if code != 2 || stdout != "" || !strings.Contains(stderr, "-: standard output carries the contract") {
					t.Errorf("exit %d, stdout %q, stderr %q; want a usage error", code, stdout, stderr)
				}
				return
			}
			if code != of.exit || !strings.Contains(stdout, of.want) {
				t.Errorf("exit %d (want %d), stdout lacks %q:\n%.300s\nstderr: %s", code, of.exit, of.want, stdout, stderr)
			}
			if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
				t.Errorf("a file named - was written")
			}
		})
	}
	if code, _, stderr := runOutput(t, dir, []string{"report", "merge", "--junit", "-", "--json", "-", "shard.json"}, ""); code != 2 || !strings.Contains(stderr, "only one report can go to standard output") {
		t.Errorf("two reports on standard output: exit %d, stderr %q", code, stderr)
	}
}

// TestOutputsStdoutFile: with standard output redirected to a regular
// file, an output flag naming standard output (/dev/stdout, a link to
// /proc/self/fd/1) adds to that file where the output stands, as a
// write to standard output does: the file is not replaced (the text after
// the report would go to a file no path names) nor written from its
// start.
func TestOutputsStdoutFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/1"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	dir := initProject(t)
	for _, to := range []string{"/dev/stdout", "/proc/self/fd/1"} {
		t.Run(to, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.txt")
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			before, _ := f.Stat()
			link := filepath.Join(t.TempDir(), "report.xml")
			if err := os.Symlink(to, link); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("ka2", "regress", "--format", "junit", "--report", link, "cases")
			var stderr bytes.Buffer
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, f, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			after, err := os.Stat(out)
			if err != nil || !os.SameFile(before, after) {
				t.Fatalf("the redirected file was replaced (%v)", err)
			}
			data, _ := os.ReadFile(out)
			got := string(data)
			if !strings.HasPrefix(got, "<?xml") || !strings.HasSuffix(got, "2 cases, 2 passed, 0 failed: ok\n") {
				t.Errorf("the file holds %q, want the report and then the text", got)
			}
		})
	}
}
