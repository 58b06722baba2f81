//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// syncDirOS fsyncs a folder, so that a rename into it survives a crash.
// File systems that cannot sync a folder (EINVAL) have nothing to do.
func syncDirOS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// running reports whether a process with this PID exists. EPERM means it
// exists but belongs to another user.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
