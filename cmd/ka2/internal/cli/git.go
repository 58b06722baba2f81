package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"testing/fstest"
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
// without touching the work tree: git archive streams the folder's files,
// which are read into memory. It also returns the folder's path below the
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
	args := []string{"-C", strings.TrimSuffix(string(top), "\n"), "archive", "--format=tar", commit}
	if pfx != "" {
		if _, err := git(ctx, "-C", dir, "rev-parse", "--verify", "--quiet", commit+":"+pfx); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, "", cerr
			}
			return fstest.MapFS{}, pfx, nil // the folder is new since then
		}
		// Literal: a folder named like pathspec magic (*, :) is a name.
		args = append(args, "--", ":(literal)"+pfx)
	}
	archive, err := git(ctx, args...)
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
		name := strings.TrimPrefix(h.Name, pfx)
		switch h.Typeflag {
		case tar.TypeReg:
			data, err := io.ReadAll(tr)
			if err != nil {
				return nil, "", fmt.Errorf("%s %s: read git archive: %w", flag, ref, err)
			}
			fsys[name] = &fstest.MapFile{Data: data, Mode: 0o644}
		case tar.TypeSymlink:
			if strings.HasSuffix(name, ".md") {
				return nil, "", fmt.Errorf("%s %s: %s is a symbolic link, which %s cannot follow; check the revision out instead", flag, ref, path.Join(pfx, name), flag)
			}
		}
	}
	return fsys, pfx, nil
}
