package corpus

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/ka2/ka2/internal/gitignore"
	"github.com/ka2/ka2/internal/inputfile"
)

// IgnoreFile is the name of the file, in any folder of a corpus, that
// lists in .gitignore syntax the files and folders below it that are not
// policies: a README.md, drafts, templates. Load, Files, Reload and
// Update leave them out. Its own name starts with ".", so it is never
// read as a policy.
const IgnoreFile = ".ka2ignore"

// Exclude returns fsys with the files and folders that match patterns
// left out of Load, LoadContext, Reload, Files and Update, on top of what
// the corpus's own IgnoreFile files leave out. The patterns are in
// .gitignore syntax and relative to a folder of which base is the corpus
// root's path (slash-separated): a project's settings written beside
// its ka2.yaml say `policies/drafts/` for the corpus "policies", which
// is base. A base that leaves that folder ("../x") or is absolute gets no
// pattern to match, as git ignores the patterns of another tree. With no
// patterns, Exclude returns fsys.
//
// The result is for those functions only: it reads like fsys and hides
// nothing from other callers.
func Exclude(fsys fs.FS, base string, patterns []string) fs.FS {
	if len(patterns) == 0 {
		return fsys
	}
	base = path.Clean(base)
	if base == ".." || strings.HasPrefix(base, "../") || path.IsAbs(base) {
		return fsys
	}
	prefix := ""
	if base != "." {
		prefix = base + "/"
	}
	x := &excludeFS{FS: fsys}
	if inner, ok := fsys.(*excludeFS); ok {
		// Exclude of an Exclude: the patterns of both apply.
		x.FS, x.extra = inner.FS, append([]prefixed(nil), inner.extra...)
	}
	for _, line := range patterns {
		if p, ok := gitignore.ParseLine(line, ""); ok {
			x.extra = append(x.extra, prefixed{p, prefix})
		}
	}
	return x
}

// excludeFS is fsys with patterns from outside the corpus (see Exclude).
// Only the walk and Update look inside it; it embeds fsys so that it
// opens files as fsys does.
type excludeFS struct {
	fs.FS
	extra []prefixed
}

// ReadLink and Lstat let the walk and Update resolve links as fsys does.
func (x *excludeFS) ReadLink(name string) (string, error) { return fs.ReadLink(x.FS, name) }

// Lstat is fsys's Lstat.
func (x *excludeFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(x.FS, name) }

// prefixed is a pattern matched against a corpus path with prefix in
// front: the corpus root's path in the folder the pattern is relative to,
// with a trailing slash ("" for an IgnoreFile's own patterns).
type prefixed struct {
	gitignore.Pattern
	prefix string
}

func (p prefixed) match(logical string, isDir bool) gitignore.Result {
	return p.Match(p.prefix+logical, isDir)
}

// unwrapExclude returns the file system under an Exclude, and its
// patterns.
func unwrapExclude(fsys fs.FS) (fs.FS, []prefixed) {
	if x, ok := fsys.(*excludeFS); ok {
		return x.FS, x.extra
	}
	return fsys, nil
}

// ignorer decides which paths of a corpus are left out: the patterns
// given with Exclude and those of every IgnoreFile on the way to a path,
// a deeper file's taking precedence, as in git.
type ignorer struct {
	fsys  fs.FS
	extra []prefixed
	// dirs holds the patterns in force below each folder read so far
	// (its logical path), those of its parents first.
	dirs map[string][]prefixed
	errs []error
}

func newIgnorer(fsys fs.FS, extra []prefixed) *ignorer {
	return &ignorer{fsys: fsys, extra: extra, dirs: map[string][]prefixed{}}
}

// enter reads the IgnoreFile of the folder real (every link resolved),
// named logical.
func (ig *ignorer) enter(real, logical string) {
	inherited := ig.extra
	if logical != "." {
		inherited = ig.patterns(path.Dir(logical))
	}
	own, err := readIgnoreFile(ig.fsys, real, logical)
	if err != nil {
		ig.errs = append(ig.errs, err)
	}
	if len(own) == 0 {
		ig.dirs[logical] = inherited
		return
	}
	ig.dirs[logical] = append(append([]prefixed(nil), inherited...), own...)
}

// patterns returns the patterns in force below the folder logical.
func (ig *ignorer) patterns(logical string) []prefixed {
	for {
		if ps, ok := ig.dirs[logical]; ok {
			return ps
		}
		if logical == "." || logical == "" {
			return ig.extra
		}
		logical = path.Dir(logical)
	}
}

// ignored reports whether the entry at logical (a file, or a folder when
// isDir) is left out.
func (ig *ignorer) ignored(logical string, isDir bool) bool {
	ps := ig.patterns(path.Dir(logical))
	if len(ps) == 0 {
		return false
	}
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].match(logical, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// readIgnoreFile reads the IgnoreFile in the folder real, if there is
// one, as patterns of the folder logical.
func readIgnoreFile(fsys fs.FS, real, logical string) ([]prefixed, error) {
	data, _, err := inputfile.ReadFS(fsys, path.Join(real, IgnoreFile), inputfile.MaxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said below, as the corpus names it
		}
		return nil, &fs.PathError{Op: "read", Path: path.Join(logical, IgnoreFile), Err: err}
	}
	var ps []prefixed
	for _, p := range gitignore.Parse(data, logical) {
		ps = append(ps, prefixed{Pattern: p})
	}
	return ps, nil
}

// Ignored reports whether Load leaves the file at p (slash-separated,
// relative to the root of fsys) out because of an IgnoreFile or the
// patterns of Exclude: a server that is told one file changed asks it
// before reading the file. Links on the way are not resolved.
func Ignored(fsys fs.FS, p string) (bool, error) {
	base, extra := unwrapExclude(fsys)
	ig := newIgnorer(base, extra)
	ig.enter(".", ".")
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if ig.ignored(dir, true) {
			return true, nil
		}
		ig.enter(dir, dir)
	}
	if len(ig.errs) > 0 {
		return false, ig.errs[0]
	}
	return ig.ignored(p, false), nil
}
