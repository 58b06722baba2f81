//go:build !linux && !darwin

package corpus

import "io/fs"

// sysStat returns zeros: this platform's file status carries no inode or
// change time that stamps use.
func sysStat(info fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
