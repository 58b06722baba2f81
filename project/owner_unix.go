//go:build unix

package project

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the user id that owns the file.
func fileOwner(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
