package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
// without touching the work tree: git archive streams the folder's policy
// files (*.md) and .ka2ignore files, the only ones a corpus reads, which
// are read into memory, each under inputfile.MaxSize and all of them under
// git's output cap. It also returns the folder's path below the
// repository root.
func gitTreeFS(ctx context.Context, git GitRunner, dir, flag, ref string) (fstest.MapFS, string, error) {
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
			return fstest.MapFS{}, pfx, nil // the folder is new since then
		}
	}
	root := strings.TrimSuffix(string(top), "\n")
	patterns, err := gitCorpusFiles(ctx, git, root, commit, pfx, flag, ref)
	if err != nil {
		return nil, "", err
	}
	if len(patterns) == 0 {
		return fstest.MapFS{}, pfx, nil // no policy files, so an empty corpus
	}
	archive, err := git(ctx, append([]string{"-C", root, "archive", "--format=tar", commit, "--"}, patterns...)...)
	if errors.Is(err, errGitTooLarge) {
		return nil, "", fmt.Errorf("%s %s: the corpus folder %s at that revision: %w; check that the revision and the folder are the ones meant", flag, ref, folderName(pfx), err)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w; check that the revision exists and has the folder %s", flag, ref, err, pfx)
	}
	fsys := fstest.MapFS{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s %s: read git archive: %w", flag, ref, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := inputfile.ReadAll(tr, h.Name, inputfile.MaxSize)
		if err != nil {
			return nil, "", fmt.Errorf("%s %s: read git archive: %w", flag, ref, err)
		}
		fsys[strings.TrimPrefix(h.Name, pfx)] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys, pfx, nil
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

// gitCorpusFiles lists the files a corpus reads (policy files, *.md, and
// .ka2ignore files) in the folder pfx of the repository at root, at
// commit, and returns git pathspecs that match them, none when there are
// none (git refuses a pathspec that matches nothing): git archive then
// sends only those, not the folder's other files. From the listing's
// sizes it refuses a file over inputfile.MaxSize before any is read, and
// it refuses a policy file that is a symbolic link.
func gitCorpusFiles(ctx context.Context, git GitRunner, root, commit, pfx, flag, ref string) ([]string, error) {
	// Literal: a folder named like pathspec magic (*, :) is a name.
	list, err := git(ctx, "-C", root, "ls-tree", "-r", "-z", "--long", commit, "--", ":(literal)"+pfx)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w; check that the revision exists and has the folder %s", flag, ref, err, pfx)
	}
	// The folder's name is escaped, so that one named like a pattern (*,
	// ?, [) is a name.
	folder := ":(glob)" + globEscaper.Replace(pfx) + "**/"
	found := map[string]bool{}
	for _, entry := range splitZ(list) {
		// <mode> <type> <object> <size>\t<path>
		meta, name, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 {
			return nil, fmt.Errorf("%s %s: unexpected git ls-tree output %q", flag, ref, entry)
		}
		var pattern string
		switch {
		case path.Base(name) == corpus.IgnoreFile:
			pattern = folder + corpus.IgnoreFile
		case path.Ext(name) == ".md":
			pattern = folder + "*.md"
		default:
			continue
		}
		if fields[0] == "120000" && pattern == folder+"*.md" {
			return nil, fmt.Errorf("%s %s: %s is a symbolic link, which %s cannot follow; check the revision out instead", flag, ref, name, flag)
		}
		if size, err := strconv.ParseInt(fields[3], 10, 64); err == nil && size > inputfile.MaxSize {
			return nil, fmt.Errorf("%s %s: %s at that revision: %s", flag, ref, name, inputfile.Reason(inputfile.TooLarge(name, inputfile.MaxSize)))
		}
		found[pattern] = true
	}
	return slices.Sorted(maps.Keys(found)), nil
}
