package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
)

// TestOneVersionEverywhere checks that every output recording ka2's
// version (a trace, SARIF, the workflow init writes) takes it from the one
// place `ka2 version` reads, for a release and for a development build.
func TestOneVersionEverywhere(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		wantPin  string
		wantNote bool
	}{
		{"release", "v1.4.2", "v1.4.2", false},
		{"development build", "(devel)", "vX.Y.Z", true},
		{"pseudo-version", "v0.0.0-20261130120000-0123456789ab", "vX.Y.Z", true},
		{"snapshot", "v1.5.0-next", "vX.Y.Z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			run := func(args ...string) (string, string) {
				t.Helper()
				f, out, errOut := cli.TestFactory("")
				f.Dir = dir
				f.Version = func() cli.VersionInfo { return cli.VersionInfo{Version: tt.version} }
				if code := cli.Run(t.Context(), f, args); code != 0 {
					t.Fatalf("ka2 %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
				}
				return out.String(), errOut.String()
			}

			_, stderr := run("init", dir)
			if got := strings.Contains(stderr, "not a release"); got != tt.wantNote {
				t.Errorf("init stderr = %q, want a note about the pin: %v", stderr, tt.wantNote)
			}
			wf, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "ka2.yml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"uses: ka2/ka2@" + tt.wantPin + "\n", "version: " + tt.wantPin + "\n"} {
				if !strings.Contains(string(wf), want) {
					t.Errorf("workflow lacks %q:\n%s", want, wf)
				}
			}

			sarif, _ := run("lint", "--format", "sarif")
			var s struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Version string `json:"version"`
						} `json:"driver"`
					} `json:"tool"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(sarif), &s); err != nil || len(s.Runs) != 1 {
				t.Fatalf("lint --format sarif: %v\n%s", err, sarif)
			}
			if got := s.Runs[0].Tool.Driver.Version; got != tt.version {
				t.Errorf("SARIF driver.version = %q, want %q", got, tt.version)
			}

			trace := filepath.Join(dir, "run.json")
			run("build", "--subject", "meals", "--date", "2026-07-01", "--question", "What is the daily meal allowance?", "--trace", trace)
			data, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			var tr struct {
				Version string `json:"ka2_version"`
			}
			if err := json.Unmarshal(data, &tr); err != nil {
				t.Fatal(err)
			}
			if tr.Version != tt.version {
				t.Errorf("trace ka2_version = %q, want %q", tr.Version, tt.version)
			}
		})
	}
}
