package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// gitFunc runs git with the given arguments and returns its standard
// output; tests replace it.
type gitFunc func(args ...string) ([]byte, error)

// runGit runs git and returns its standard output; a failure carries git's
// standard error. Paths are never quoted (core.quotePath=false), so a file
// such as 住宿.md comes out as its name; callers also ask for -z output.
func runGit(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotePath=false"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return nil, fmt.Errorf("this needs git: %w", err)
	}
	return out, nil
}

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
func gitCommit(git gitFunc, dir, flag, rev string) (string, error) {
	if err := checkRevision(flag, rev); err != nil {
		return "", err
	}
	out, err := git("-C", dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
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
func gitChanged(git gitFunc, dir, commit string) ([]string, error) {
	diff, err := git("-C", dir, "diff", "-z", "--name-only", "--no-renames", "--relative", commit, "--", ".")
	if err != nil {
		return nil, err
	}
	untracked, err := git("-C", dir, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return nil, err
	}
	return append(splitZ(diff), splitZ(untracked)...), nil
}
