package corpus

import (
	"io/fs"
	"os"
)

// OpenFolder opens the corpus folder dir for one load, the one place that
// opens a corpus folder (contract's Folder loads, lint, the language
// server, the service's change stamps go through it). It opens dir once,
// with os.OpenRoot: a link swapped in under dir since the last opening is
// followed (a ConfigMap's ..data, current -> v2), every file is read from
// that one folder even if the link is swapped again mid-load, and links
// resolve inside the folder only, so that a link that leaves it fails to
// open. done releases the folder once the load is over.
func OpenFolder(dir string) (fsys fs.FS, done func(), err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return root.FS(), func() { root.Close() }, nil
}
