package cli

import (
	"bytes"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeBuildInfo is what `go build` records in a checkout of a tagged or
// modified tree; a test binary records no VCS settings, so the version
// command's reading of them is tested through this.
func fakeBuildInfo(version string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/ka2/ka2", Version: version}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

func TestReadVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name  string
		stamp stamp
		bi    *debug.BuildInfo
		want  VersionInfo
	}{
		{
			name: "checkout with changes",
			bi:   fakeBuildInfo("v0.0.0-20260914090000-0123456789ab+dirty", "vcs", "git", "vcs.revision", rev, "vcs.time", "2026-09-14T09:00:00Z", "vcs.modified", "true"),
			want: VersionInfo{Version: "v0.0.0-20260914090000-0123456789ab+dirty", Module: "github.com/ka2/ka2", Revision: rev, Dirty: true, Date: "2026-09-14T09:00:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name: "clean checkout",
			bi:   fakeBuildInfo("(devel)", "vcs.revision", rev, "vcs.time", "2026-09-14T09:00:00Z", "vcs.modified", "false"),
			want: VersionInfo{Version: "(devel)", Module: "github.com/ka2/ka2", Revision: rev, Date: "2026-09-14T09:00:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name: "go install at a tag: a module version, no VCS settings",
			bi:   fakeBuildInfo("v1.2.3"),
			want: VersionInfo{Version: "v1.2.3", Module: "github.com/ka2/ka2", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name:  "release build: the stamp wins over a pseudo-version and a dirty flag",
			stamp: stamp{version: "v1.2.3", commit: "fedcba9876543210fedcba9876543210fedcba98", date: "2026-10-01T00:00:00Z"},
			bi:    fakeBuildInfo("v0.0.0-20260914090000-0123456789ab+dirty", "vcs.revision", rev, "vcs.time", "2026-09-14T09:00:00Z", "vcs.modified", "true"),
			want:  VersionInfo{Version: "v1.2.3", Module: "github.com/ka2/ka2", Revision: "fedcba9876543210fedcba9876543210fedcba98", Date: "2026-10-01T00:00:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name:  "release build from the same commit keeps the build info's dirty flag",
			stamp: stamp{version: "v1.2.3", commit: rev},
			bi:    fakeBuildInfo("(devel)", "vcs.revision", rev, "vcs.time", "2026-09-14T09:00:00Z", "vcs.modified", "true"),
			want:  VersionInfo{Version: "v1.2.3", Module: "github.com/ka2/ka2", Revision: rev, Dirty: true, Date: "2026-09-14T09:00:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name:  "placeholders from a release tool that could not read git are ignored",
			stamp: stamp{version: "v0.0.1-next", commit: "none", date: "0001-01-01T00:00:00Z"},
			bi:    fakeBuildInfo("(devel)", "vcs.revision", rev, "vcs.time", "2026-09-14T09:00:00Z"),
			want:  VersionInfo{Version: "v0.0.1-next", Module: "github.com/ka2/ka2", Revision: rev, Date: "2026-09-14T09:00:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name: "no build info",
			want: VersionInfo{Version: "(devel)", GoVersion: runtime.Version(), Platform: platform},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readVersion(tt.stamp, tt.bi)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("readVersion() mismatch (-want +got)\n%s", diff)
			}
		})
	}
}

func TestRunVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	bi := fakeBuildInfo("(devel)", "vcs.revision", rev, "vcs.time", "2026-09-14T09:00:00Z", "vcs.modified", "true")
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name   string
		format string
		stamp  stamp
		want   string
	}{
		{
			name:   "text",
			format: "text",
			want: "ka2 (devel)\n" +
				"revision: " + rev + " (dirty: built with uncommitted changes)\n" +
				"date:     2026-09-14T09:00:00Z\n" +
				"go:       go1.26.8 " + platform + "\n",
		},
		{
			name:   "json",
			format: "json",
			stamp:  stamp{version: "v1.2.3"},
			want: `{
  "version": "v1.2.3",
  "module": "github.com/ka2/ka2",
  "revision": "` + rev + `",
  "dirty": true,
  "date": "2026-09-14T09:00:00Z",
  "go": "go1.26.8",
  "platform": "` + platform + `"
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			o := &VersionOptions{f: &Factory{Out: &out}, Format: tt.format, Stamp: tt.stamp,
				BuildInfo: func() (*debug.BuildInfo, bool) { return bi, true }}
			if err := runVersion(o); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("runVersion() mismatch (-want +got)\n%s", diff)
			}
			if tt.format == "json" {
				var v VersionInfo
				if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Revision != rev {
					t.Errorf("JSON output does not round-trip: %v %+v", err, v)
				}
			}
		})
	}
}

// TestVersionFlag checks that --version prints what `ka2 version` does and
// that the command refuses arguments and unknown formats as usage errors.
func TestVersionFlag(t *testing.T) {
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(t.Context(), &Factory{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
		return out.String(), errOut.String(), code
	}
	flag, _, code := run("--version")
	if code != ExitOK {
		t.Fatalf("--version exit %d", code)
	}
	cmd, _, code := run("version")
	if code != ExitOK || cmd != flag {
		t.Errorf("ka2 version = %q (exit %d), ka2 --version = %q; want the same", cmd, code, flag)
	}
	if !strings.HasPrefix(flag, "ka2 ") || !strings.Contains(flag, "go:       go1.") {
		t.Errorf("--version = %q, want a ka2 line and a go line", flag)
	}
	for _, args := range [][]string{{"version", "extra"}, {"version", "--format", "xml"}} {
		out, errOut, code := run(args...)
		if code != ExitInput || out != "" || errOut == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, an error", args, code, out, errOut)
		}
	}
}
