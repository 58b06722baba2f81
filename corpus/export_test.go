package corpus

import "io/fs"

// DeltaOnly is LoadChanged without its fallback to a walk: ok is false
// where LoadChanged would walk. Tests use it to know the delta path ran.
func DeltaOnly(fsys fs.FS, prev *Corpus, changed []string) (c *Corpus, err error, ok bool) {
	return loadChanged(fsys, prev, changed)
}
