package corpus

import "io/fs"

// ErrLinkLoop matches the error of ResolveLinks for a path whose links
// loop, or take more than 40 hops.
var ErrLinkLoop = errLinkLoop

// ResolveLinks returns the path p inside fsys with every symbolic link on
// it resolved as Load resolves them: relative to the link's folder, never
// leaving the root, and at most 40 links, after which the error matches
// ErrLinkLoop. A file system that holds links without resolving them
// itself (a corpus read from git) uses it to follow them as Load does.
func ResolveLinks(fsys fs.ReadLinkFS, p string) (string, error) {
	return resolveLinks(fsys, p)
}
