package project

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ka2/ka2/internal/diag"
)

// Trust says whose settings files, found by walking up from a folder, are
// believed: as git does with safe.directory, a file owned by neither the
// user ka2 runs as nor root is passed over (a ka2.yaml in a shared parent
// folder written by another user would otherwise choose the corpus of
// every run below it). Files a caller names itself (--config) are not
// checked: naming one is trusting it.
type Trust struct {
	// UID is the user ka2 runs as: files it owns are believed, and so are
	// files root owns.
	UID int
	// Allowed are folders whose files are believed whoever owns them,
	// with the folders below them; "*" allows every folder.
	Allowed []string
}

// Skipped is a settings file that was found and passed over because of
// its owner, for the front end to warn about.
type Skipped struct {
	// Path is the file, as it was found.
	Path string `json:"path"`
	// Owner is the user id that owns it.
	Owner int `json:"owner"`
}

// CodeUntrustedFile is the code of the warning about a Skipped file.
const CodeUntrustedFile diag.Code = "untrusted_file"

// SettingTrustedDirs names, in a hint, the setting that lists the folders
// whose files are used whoever owns them.
const SettingTrustedDirs = "trusted_dirs"

// Warning is the warning a front end gives about s: the file, why it was
// not used, and how to use it after all.
func (s Skipped) Warning() *diag.Diagnostic {
	return &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(s.Path)}, Code: CodeUntrustedFile, Severity: diag.SeverityWarning,
		Message: fmt.Sprintf("not used: it is owned by user %d, neither you nor root", s.Owner),
		Hint:    diag.Set("if you trust it, add its folder to {" + SettingTrustedDirs + "}")}
}

// Believes reports whether the file at path may be used: nil is no check.
// It returns the Skipped to report when not. A file that cannot be
// examined is believed here; reading it reports the problem.
func (t *Trust) Believes(path string) (Skipped, bool) {
	if t == nil {
		return Skipped{}, true
	}
	info, err := os.Stat(path)
	if err != nil {
		return Skipped{}, true
	}
	owner, ok := fileOwner(info)
	if !ok || t.believes(path, owner) {
		return Skipped{}, true
	}
	return Skipped{Path: path, Owner: owner}, false
}

// believes is the decision, apart from the file system.
func (t *Trust) believes(path string, owner int) bool {
	if owner == t.UID || owner == 0 || slices.Contains(t.Allowed, "*") {
		return true
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, a := range t.Allowed {
		if a == "" || !filepath.IsAbs(a) {
			continue // a relative folder would depend on where ka2 runs
		}
		if rel, err := filepath.Rel(filepath.Clean(a), dir); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// ParseAllowed splits a list of folders (as an environment variable holds
// them, separated by the system's list separator) into Allowed, refusing
// a relative folder.
func ParseAllowed(list string) ([]string, error) {
	var out []string
	for _, a := range filepath.SplitList(list) {
		switch {
		case a == "":
		case a == "*" || filepath.IsAbs(a):
			out = append(out, a)
		default:
			return nil, fmt.Errorf("%q is not an absolute folder (or *)", a)
		}
	}
	return out, nil
}
