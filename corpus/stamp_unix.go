//go:build linux || darwin

package corpus

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
