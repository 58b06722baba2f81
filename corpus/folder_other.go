//go:build !linux

package corpus

import (
	"io/fs"
	"os"
)

func openFolder(dir string) (fs.FS, func(), error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return root.FS(), func() { root.Close() }, nil
}
