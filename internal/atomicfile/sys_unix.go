//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// syncDirOS fsyncs folder dir inside root, so that a rename into it
// survives a crash. File systems that cannot sync a folder (EINVAL) have
// nothing to do.
func syncDirOS(root *os.Root, dir string) error {
	d, err := root.Open(dir)
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

// inPlaceFlags open a device or FIFO without waiting for a reader and
// without making a terminal the process's controlling terminal.
const inPlaceFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// blocking puts an open file back in blocking mode after an open that
// did not wait, so that a slow reader slows the write rather than
// failing it.
func blocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
