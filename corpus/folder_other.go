//go:build !linux

package corpus

import (
	"io/fs"
	"os"
)

// rootFolder is the file system of the corpus folder root, and what
// releases it (see OpenFolder).
func rootFolder(root *os.Root) (fs.FS, func()) {
	return root.FS(), func() { root.Close() }
}
