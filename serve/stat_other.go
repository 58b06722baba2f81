//go:build !linux && !darwin

package serve

import "io/fs"

// sysStat returns zeros: this platform's file status carries no inode or
// change time that reloads use.
func sysStat(info fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }

// idOf returns zero: this platform's file status tells no folder from
// another that took its name, so Watch goes by the watches alone.
func idOf(info fs.FileInfo) fileID { return fileID{} }
