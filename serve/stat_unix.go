//go:build linux || darwin

package serve

import (
	"io/fs"
	"syscall"
)

// idOf returns the device and inode of a file, which tell it from another
// that took its name.
func idOf(info fs.FileInfo) fileID {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: st.Ino}
	}
	return fileID{}
}
