//go:build !linux && !darwin

package serve

import "io/fs"

// idOf returns zero: this platform's file status tells no folder from
// another that took its name, so Watch goes by the watches alone.
func idOf(info fs.FileInfo) fileID { return fileID{} }
