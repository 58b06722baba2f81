//go:build unix

package cli_test

import (
	"syscall"
	"testing"
)

// TestReportMergeFIFO: a shard named by a FIFO with no writer is refused
// at once (a read would block for good), as an input error.
func TestReportMergeFIFO(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := syscall.Mkfifo("shard.json", 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	r := regressCLI(t, "", "report", "merge", "shard.json").want(t, 2)
	if want := "ka2: read report: read shard.json: it is a named pipe (FIFO), not a regular file; ka2 reads only regular files\n"; r.stderr != want || r.stdout != "" {
		t.Errorf("stdout %q, stderr %q; want %q", r.stdout, r.stderr, want)
	}
}
