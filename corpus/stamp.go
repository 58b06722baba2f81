package corpus

import (
	"io/fs"
	"time"
)

// Stamp is what a file's status tells of whether the file changed: its
// size, mode and modification time and, where the platform reports them,
// its inode and change time. Whoever watches a corpus folder compares
// stamps (the service's reloads and settling, the language server); the
// zero Stamp is no status (a file gone, or not taken).
type Stamp struct {
	Size    int64
	Mode    fs.FileMode
	ModTime int64 // Unix nanoseconds
	// ChangeTime is in Unix nanoseconds, 0 where unknown; Inode 0 where
	// unknown.
	ChangeTime int64
	Inode      uint64
}

// StampOf is the stamp of the file info describes.
func StampOf(info fs.FileInfo) Stamp {
	st := Stamp{Size: info.Size(), Mode: info.Mode(), ModTime: info.ModTime().UnixNano()}
	st.Inode, st.ChangeTime = sysStat(info)
	return st
}

// Changed is when the file last changed, as far as its status tells.
func (st Stamp) Changed() time.Time {
	return time.Unix(0, max(st.ModTime, st.ChangeTime))
}
