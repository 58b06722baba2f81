package cli

import (
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
)

// Release builds stamp these with the linker, as .goreleaser.yaml does:
//
//	-X github.com/ka2/ka2/cmd/ka2/internal/cli.version=v1.2.3
//	-X github.com/ka2/ka2/cmd/ka2/internal/cli.commit=<full hash>
//	-X github.com/ka2/ka2/cmd/ka2/internal/cli.date=<RFC 3339 commit time>
//
// A stamped value wins over the build info: a release archive is built
// from a tag, but its build info may say "(devel)" or carry a pseudo-version
// when the builder works from a shallow or detached checkout.
var (
	version string
	commit  string
	date    string
)

// VersionInfo describes the running binary: what `ka2 version` prints.
type VersionInfo struct {
	// Version is the release version stamped in at link time, else the
	// module version from the build info (v1.2.3 after `go install
	// …@v1.2.3`, a pseudo-version for a build inside a checkout), else
	// "(devel)".
	Version string `json:"version"`
	// Module is the main module's path.
	Module string `json:"module,omitempty"`
	// Revision is the VCS commit the binary was built from, when known.
	Revision string `json:"revision,omitempty"`
	// Dirty reports that the work tree had uncommitted changes.
	Dirty bool `json:"dirty"`
	// Date is the revision's commit time (vcs.time), RFC 3339; it stays
	// the same however often the same commit is built, unlike a wall-clock
	// build time.
	Date string `json:"date,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// stamp is what the linker may have set.
type stamp struct{ version, commit, date string }

// readVersion combines the linker stamp with the build info. bi may be
// nil: binaries built without module support have none.
func readVersion(s stamp, bi *debug.BuildInfo) VersionInfo {
	v := VersionInfo{Version: "(devel)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		v.Module = bi.Main.Path
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			v.GoVersion = bi.GoVersion
		}
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				v.Revision = kv.Value
			case "vcs.time":
				v.Date = kv.Value
			case "vcs.modified":
				v.Dirty = kv.Value == "true"
			}
		}
	}
	if s.version != "" {
		v.Version = s.version
	}
	// A release tool fills a value it could not read with a placeholder
	// ("none", a zero time); those say nothing and the build info stays.
	if isRevision(s.commit) && s.commit != v.Revision {
		// The build info describes another checkout than the one the
		// release was tagged from; its dirty flag is not the release's.
		v.Revision, v.Dirty = s.commit, false
	}
	if t, err := time.Parse(time.RFC3339, s.date); err == nil && t.Year() > 1 {
		v.Date = s.date
	}
	return v
}

// isRevision reports whether s looks like a commit hash.
func isRevision(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// currentVersion describes this binary. It is the one source of ka2's
// version: `ka2 version`, traces, SARIF and the Action pin that init writes
// all read it, so no output names a version the binary does not have.
var currentVersion = sync.OnceValue(func() VersionInfo {
	bi, _ := debug.ReadBuildInfo()
	return readVersion(stamp{version, commit, date}, bi)
})

// releaseTag matches a version the Action can install.
var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// Release returns v's version when it names a published release
// (vMAJOR.MINOR.PATCH): a development build, a pseudo-version or a
// snapshot has none.
func (v VersionInfo) Release() (string, bool) {
	return v.Version, releaseTag.MatchString(v.Version)
}

// writeText prints v as `ka2 version` and `ka2 --version` show it.
func (v VersionInfo) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ka2 %s\n", v.Version)
	if v.Revision != "" {
		dirty := ""
		if v.Dirty {
			dirty = " (dirty: built with uncommitted changes)"
		}
		fmt.Fprintf(&b, "revision: %s%s\n", v.Revision, dirty)
	}
	if v.Date != "" {
		fmt.Fprintf(&b, "date:     %s\n", v.Date)
	}
	fmt.Fprintf(&b, "go:       %s %s\n", v.GoVersion, v.Platform)
	_, err := io.WriteString(w, b.String())
	return err
}

// VersionOptions are the inputs of `ka2 version`.
type VersionOptions struct {
	f      *Factory
	Format string
	// BuildInfo reads the binary's build info; tests replace it, since a
	// test binary carries no VCS settings.
	BuildInfo func() (*debug.BuildInfo, bool)
	// Stamp holds the linker-stamped release values; tests replace it.
	Stamp stamp
}

// NewCmdVersion makes `ka2 version`.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{f: f, BuildInfo: debug.ReadBuildInfo, Stamp: stamp{version, commit, date}}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print ka2's version, revision, commit date and Go version",
		Long: `Version prints the release version (or the module version a go install
recorded), the VCS revision the binary was built from and whether the work
tree had uncommitted changes, that revision's commit date, and the Go
version and platform. ka2 --version prints the same.`,
		Example: `  ka2 version
  ka2 version --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
	enumVar(cmd.Flags(), &opts.Format, "format", "text", textJSON, "output format")
	return cmd
}

func runVersion(o *VersionOptions) error {
	bi, ok := o.BuildInfo()
	if !ok {
		bi = nil
	}
	v := readVersion(o.Stamp, bi)
	if o.Format == "json" {
		return writeJSON(o.f.Out, v, true)
	}
	return v.writeText(o.f.Out)
}

// setVersionFlag makes the root's --version print what `ka2 version` does.
func setVersionFlag(root *cobra.Command) {
	var b strings.Builder
	_ = currentVersion().writeText(&b)
	root.Version = strings.TrimSuffix(b.String(), "\n")
	root.SetVersionTemplate("{{.Version}}\n")
}
