package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/inputfile"
)

// checkRevision refuses a revision that git would read as an option:
// --changed-since=--output=FILE once made git diff truncate FILE.
func checkRevision(flag, rev string) error {
	if strings.HasPrefix(rev, "-") {
		return usageError{fmt.Errorf("%s %q: a git revision cannot start with '-'; name a branch, tag or commit, such as origin/main", flag, rev)}
	}
	return nil
}

// gitCommit resolves rev, given to flag, to the ID of a commit in the git
// repository holding dir. Later git commands get that ID, never the text a
// user typed.
func gitCommit(ctx context.Context, git GitRunner, dir, flag, rev string) (string, error) {
	if err := checkRevision(flag, rev); err != nil {
		return "", err
	}
	// Outside a repository (or without git) the revision is not the
	// problem: say what git said, not "not a commit".
	if _, err := git(ctx, "-C", dir, "rev-parse", "--git-dir"); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		return "", usageError{fmt.Errorf("%s %s: %s is not in a git repository (%v); run it in a git checkout, or leave out %s", flag, rev, dir, err, flag)}
	}
	out, err := git(ctx, "-C", dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		return "", usageError{fmt.Errorf("%s %s: not a commit in the git repository holding %s (%v); name a branch, tag or commit, such as origin/main", flag, rev, dir, err)}
	}
	return strings.TrimSpace(string(out)), nil
}

// splitZ splits git's -z output (names ended by NUL) into names.
func splitZ(out []byte) []string {
	var names []string
	for name := range strings.SplitSeq(string(out), "\x00") {
		if name != "" {
			names = append(names, name)
		}
	}
	return names
}

// gitChanged lists the files under dir changed since commit, committed or
// not, plus untracked ones, relative to dir.
func gitChanged(ctx context.Context, git GitRunner, dir, commit string) ([]string, error) {
	diff, err := git(ctx, "-C", dir, "diff", "-z", "--name-only", "--no-renames", "--relative", commit, "--", ".")
	if err != nil {
		return nil, err
	}
	untracked, err := git(ctx, "-C", dir, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return nil, err
	}
	return append(splitZ(diff), splitZ(untracked)...), nil
}

// gitTreeFS reads the folder dir as git has it at ref, given to flag,
// without touching the work tree, into a file system that corpus.Load
// reads as it reads the same tree checked out on disk. git archive
// streams the folder's policy files (*.md), its .ka2ignore files and its
// symbolic links, then the files that links named like those lead to,
// the only ones a corpus reads; each is read into memory under
// inputfile.MaxSize, all of them under git's output cap. Folders, and
// files that links lead to but a corpus never reads, are there without
// their content, so that a link to them resolves as on disk. Links are
// kept as links: corpus.Load's own rules follow them, or report one that
// leaves the folder or loops. It also returns the folder's path below
// the repository root.
func gitTreeFS(ctx context.Context, git GitRunner, dir, flag, ref string) (fs.FS, string, error) {
	top, err := git(ctx, "-C", dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, "", fmt.Errorf("%s: %s is not in a git work tree: %w", flag, dir, err)
	}
	prefix, err := git(ctx, "-C", dir, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", flag, err)
	}
	commit, err := gitCommit(ctx, git, dir, flag, ref)
	if err != nil {
		return nil, "", err
	}
	// Only the line end is git's; a folder name may end in a space.
	pfx := strings.TrimSuffix(string(prefix), "\n")
	if pfx != "" {
		if _, err := git(ctx, "-C", dir, "rev-parse", "--verify", "--quiet", commit+":"+pfx); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, "", cerr
			}
			return treeFS{fstest.MapFS{}}, pfx, nil // the folder is new since then
		}
	}
	t := &gitTree{git: git, root: strings.TrimSuffix(string(top), "\n"), commit: commit, pfx: pfx, flag: flag, ref: ref}
	fsys, err := t.read(ctx)
	if err != nil {
		return nil, "", err
	}
	return treeFS{fsys}, pfx, nil
}

// gitTree reads one corpus folder at one commit (see gitTreeFS).
type gitTree struct {
	git          GitRunner
	root, commit string
	pfx          string // the folder below root, ending in a slash, or ""
	flag, ref    string // for messages
	fsys         fstest.MapFS
	entries      []treeEntry // sorted by name
}

// treeEntry is one entry of the folder's git ls-tree listing.
type treeEntry struct {
	name string // below the folder
	mode string // git's: 040000 a folder, 120000 a link, 160000 a submodule, else a file
	size int64  // a file's or a link's; -1 for a folder
}

const (
	gitLink      = "120000"
	gitFolder    = "040000"
	gitSubmodule = "160000"
)

// notRead stands in for a file the corpus never reads, but a link leads
// to: not a regular file, so that reading it fails rather than returning
// nothing.
var notRead = &fstest.MapFile{Mode: fs.ModeIrregular | 0o444}

// read lists the folder and fetches what a corpus reads of it (see
// gitTreeFS).
func (t *gitTree) read(ctx context.Context) (fstest.MapFS, error) {
	if err := t.list(ctx); err != nil {
		return nil, err
	}
	// The corpus's own files by pattern, links by name (few, and not
	// told apart from files by any pattern).
	folder := ":(glob)" + globEscaper.Replace(t.pfx) + "**/"
	patterns := map[string]bool{}
	var links []string
	for _, e := range t.entries {
		switch pattern := corpusPattern(e.name); {
		case pattern != "":
			if err := t.checkSize(e); err != nil {
				return nil, err
			}
			patterns[folder+pattern] = true
		case e.mode == gitLink:
			links = append(links, ":(literal)"+t.pfx+e.name)
		}
	}
	if err := t.archive(ctx, append(slices.Sorted(maps.Keys(patterns)), links...)); err != nil {
		return nil, err
	}
	// Then the files that links named *.md or .ka2ignore lead to, when
	// named otherwise (current.md -> .archive/hotel-v1.txt).
	leadTo, read := map[string]bool{}, map[string]bool{}
	for _, e := range t.entries {
		if e.mode != gitLink {
			continue
		}
		target, err := corpus.ResolveLinks(t.fsys, e.name)
		if err != nil || t.fsys[target] != notRead {
			// A bad link, which corpus.Load reports as on disk, or one
			// to a folder or to a file read already.
			continue
		}
		leadTo[target] = true
		if corpusPattern(e.name) != "" && !read[target] {
			if err := t.checkSize(t.entry(target)); err != nil {
				return nil, err
			}
			read[target] = true
		}
	}
	var targets []string
	for _, target := range slices.Sorted(maps.Keys(read)) {
		targets = append(targets, ":(literal)"+t.pfx+target)
	}
	if err := t.archive(ctx, targets); err != nil {
		return nil, err
	}
	for name, f := range t.fsys {
		if f == notRead && !leadTo[name] {
			delete(t.fsys, name) // nothing reaches it
		}
	}
	return t.fsys, nil
}

// corpusPattern returns the pattern that matches name when it is a file
// a corpus reads, policy file or .ka2ignore, and "" for any other.
func corpusPattern(name string) string {
	switch {
	case path.Base(name) == corpus.IgnoreFile:
		return corpus.IgnoreFile
	case path.Ext(name) == ".md":
		return "*.md"
	}
	return ""
}

// checkSize refuses a file over inputfile.MaxSize, from the listing's
// size, before any is read.
func (t *gitTree) checkSize(e treeEntry) error {
	if e.size > inputfile.MaxSize {
		return fmt.Errorf("%s %s: %s at that revision: %s", t.flag, t.ref, t.pfx+e.name, inputfile.Reason(inputfile.TooLarge(t.pfx+e.name, inputfile.MaxSize)))
	}
	return nil
}

// entry returns the listing's entry for name.
func (t *gitTree) entry(name string) treeEntry {
	i, _ := slices.BinarySearchFunc(t.entries, name, func(e treeEntry, name string) int { return strings.Compare(e.name, name) })
	return t.entries[i]
}

// list lists the folder's entries, recursively, into t.entries and t.fsys:
// folders, and every file as notRead until it is read.
func (t *gitTree) list(ctx context.Context) error {
	// Literal: a folder named like pathspec magic (*, :) is a name.
	list, err := t.git(ctx, "-C", t.root, "ls-tree", "-r", "-t", "-z", "--long", t.commit, "--", ":(literal)"+t.pfx)
	if err != nil {
		return fmt.Errorf("%s %s: %w; check that the revision exists and has the folder %s", t.flag, t.ref, err, t.pfx)
	}
	t.fsys = fstest.MapFS{}
	for _, line := range splitZ(list) {
		// <mode> <type> <object> <size>\t<path>
		meta, name, ok := strings.Cut(line, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 {
			return fmt.Errorf("%s %s: unexpected git ls-tree output %q", t.flag, t.ref, line)
		}
		name, ok = strings.CutPrefix(name, t.pfx)
		if !ok || name == "" {
			continue // a folder holding the corpus folder
		}
		e := treeEntry{name: name, mode: fields[0], size: -1}
		if n, err := strconv.ParseInt(fields[3], 10, 64); err == nil {
			e.size = n
		}
		t.entries = append(t.entries, e)
		switch e.mode {
		case gitFolder, gitSubmodule: // a submodule is a folder on disk
			t.fsys[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		default:
			t.fsys[name] = notRead
		}
	}
	// git lists a folder's entries in its own order (a folder sorts as
	// its name and a slash); entry searches by name.
	slices.SortFunc(t.entries, func(a, b treeEntry) int { return strings.Compare(a.name, b.name) })
	return nil
}

// archive reads the files and links git archive sends for pathspecs into
// t.fsys; none asks for nothing (git refuses a pathspec that matches
// nothing, so only those of listed entries are given).
func (t *gitTree) archive(ctx context.Context, pathspecs []string) error {
	if len(pathspecs) == 0 {
		return nil
	}
	archive, err := t.git(ctx, append([]string{"-C", t.root, "archive", "--format=tar", t.commit, "--"}, pathspecs...)...)
	if errors.Is(err, errGitTooLarge) {
		return fmt.Errorf("%s %s: the corpus folder %s at that revision: %w; check that the revision and the folder are the ones meant", t.flag, t.ref, folderName(t.pfx), err)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w; check that the revision exists and has the folder %s", t.flag, t.ref, err, t.pfx)
	}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s %s: read git archive: %w", t.flag, t.ref, err)
		}
		name := strings.TrimPrefix(h.Name, t.pfx)
		switch h.Typeflag {
		case tar.TypeReg:
			data, err := inputfile.ReadAll(tr, h.Name, inputfile.MaxSize)
			if err != nil {
				return fmt.Errorf("%s %s: read git archive: %w", t.flag, t.ref, err)
			}
			t.fsys[name] = &fstest.MapFile{Data: data, Mode: 0o644}
		case tar.TypeSymlink:
			t.fsys[name] = &fstest.MapFile{Data: []byte(h.Linkname), Mode: fs.ModeSymlink | 0o777}
		}
	}
}

// treeFS is a corpus folder read from git. fstest.MapFS follows its
// links without bound, so a loop among them would recurse until the
// stack overflowed, where a disk fails with ELOOP: every name is first
// resolved as corpus.Load resolves links, at most 40 of them.
type treeFS struct{ m fstest.MapFS }

// Open opens name, following links.
func (t treeFS) Open(name string) (fs.File, error) {
	if err := t.bounded("open", name, name); err != nil {
		return nil, err
	}
	return t.m.Open(name)
}

// Lstat describes name, a link itself.
func (t treeFS) Lstat(name string) (fs.FileInfo, error) {
	if err := t.bounded("lstat", name, path.Dir(name)); err != nil {
		return nil, err
	}
	return t.m.Lstat(name)
}

// ReadLink returns the target of the link name.
func (t treeFS) ReadLink(name string) (string, error) {
	if err := t.bounded("readlink", name, path.Dir(name)); err != nil {
		return "", err
	}
	return t.m.ReadLink(name)
}

// bounded fails, for op on name, when the links on the path p loop. Any
// other failure is the map's to report.
func (t treeFS) bounded(op, name, p string) error {
	if _, err := corpus.ResolveLinks(t.m, p); errors.Is(err, corpus.ErrLinkLoop) {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// globEscaper escapes the characters git's glob pathspecs give a meaning.
var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)

// folderName names the folder at pfx (a path below the repository root,
// ending in a slash, or "" for the root) for a message.
func folderName(pfx string) string {
	if pfx == "" {
		return "(the repository root)"
	}
	return strings.TrimSuffix(pfx, "/")
}
