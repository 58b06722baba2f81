//go:build linux || darwin

package serve

import (
	"io/fs"
	"syscall"
)

// sysStat returns the inode and change time (Unix nanoseconds) of a file,
// or zeros when info does not carry them.
func sysStat(info fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		ts := ctimespec(st)
		return st.Ino, ts.Nano()
	}
	return 0, 0
}

// idOf returns the device and inode of a file, which tell it from another
// that took its name.
func idOf(info fs.FileInfo) fileID {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: st.Ino}
	}
	return fileID{}
}
