package cli

import (
	"context"
	"fmt"
	"strings"
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
