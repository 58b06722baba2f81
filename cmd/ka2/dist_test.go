package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/internal/testutil"
)

// decodeStrict decodes a YAML file of the repository root into v,
// refusing keys v does not name.
func decodeStrict(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// preCommitHook is one hook of .pre-commit-hooks.yaml, with the keys
// pre-commit's manifest schema allows that ka2's hook may use.
type preCommitHook struct {
	ID                      string   `yaml:"id"`
	Name                    string   `yaml:"name"`
	Description             string   `yaml:"description"`
	Language                string   `yaml:"language"`
	Entry                   string   `yaml:"entry"`
	Args                    []string `yaml:"args"`
	Files                   string   `yaml:"files"`
	Exclude                 string   `yaml:"exclude"`
	PassFilenames           *bool    `yaml:"pass_filenames"`
	RequireSerial           bool     `yaml:"require_serial"`
	MinimumPreCommitVersion string   `yaml:"minimum_pre_commit_version"`
	AdditionalDependencies  []string `yaml:"additional_dependencies"`
	Stages                  []string `yaml:"stages"`
	AlwaysRun               bool     `yaml:"always_run"`
	LanguageVersion         string   `yaml:"language_version"`
	Verbose                 bool     `yaml:"verbose"`
	FailFast                bool     `yaml:"fail_fast"`
	Types                   []string `yaml:"types"`
	TypesOr                 []string `yaml:"types_or"`
	ExcludeTypes            []string `yaml:"exclude_types"`
	LogFile                 string   `yaml:"log_file"`
}

// runKa2 runs one ka2 command line in dir and returns its exit code and
// streams.
func runKa2(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	f := &cli.Factory{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Now: func() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }}
	return cli.Run(t.Context(), f, args), out.String(), errOut.String()
}

// copyDir copies the files under src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPreCommitHook checks .pre-commit-hooks.yaml against pre-commit's
// manifest keys and runs the hook's command line the way pre-commit does:
// entry, then args, then (with pass_filenames) the changed files. ka2 lint
// takes folders only, so the hook must not pass file names; the test shows
// both that the hook's command lints a corpus folder and that the file
// names would break it.
func TestPreCommitHook(t *testing.T) {
	var hooks []preCommitHook
	decodeStrict(t, ".pre-commit-hooks.yaml", &hooks)
	i := slices.IndexFunc(hooks, func(h preCommitHook) bool { return h.ID == "ka2-lint" })
	if i < 0 {
		t.Fatalf("no ka2-lint hook in %+v", hooks)
	}
	h := hooks[i]
	if h.Name == "" || h.Entry == "" {
		t.Errorf("hook needs a name and an entry: %+v", h)
	}
	// The languages pre-commit 3 runs without extra setup for a Go repo.
	if !slices.Contains([]string{"golang", "system"}, h.Language) {
		t.Errorf("language %q, want golang or system", h.Language)
	}
	files, err := regexp.Compile(h.Files)
	if err != nil {
		t.Fatalf("files: %v", err)
	}
	for name, want := range map[string]bool{"policies/travel.md": true, "policies/zh/住宿.md": true, "main.go": false, "cases/a.yaml": false} {
		if files.MatchString(name) != want {
			t.Errorf("files %q matches %s: %v, want %v", h.Files, name, !want, want)
		}
	}
	if h.PassFilenames == nil || *h.PassFilenames {
		t.Errorf("pass_filenames must be false: ka2 lint takes corpus folders, not files")
	}
	entry := strings.Fields(h.Entry)
	if entry[0] != "ka2" || len(entry) < 2 || entry[1] != "lint" {
		t.Fatalf("entry %q, want ka2 lint", h.Entry)
	}

	dir := t.TempDir()
	copyDir(t, filepath.Join("..", "..", "corpus", "sample"), filepath.Join(dir, "policies"))
	argv := append(entry[1:], h.Args...)
	code, out, errOut := runKa2(t, dir, argv...)
	if code != cli.ExitOK || !strings.Contains(out, "policies/") {
		t.Errorf("hook %q: exit %d, stdout %q, stderr %q; want exit 0 and findings under policies/", argv, code, out, errOut)
	}
	// What pass_filenames: true would run: the folder and the changed file.
	code, _, _ = runKa2(t, dir, append(argv, "policies/notice-hostile.md")...)
	if code == cli.ExitOK {
		t.Errorf("ka2 lint with a file name succeeded; if lint now accepts files, pass_filenames may be true")
	}
	// A policy error fails the commit.
	testutil.WriteFile(t, filepath.Join(dir, "policies", "broken.md"), "---\nsource_id: [\n---\nbody\n")
	if code, _, _ := runKa2(t, dir, argv...); code != cli.ExitProblems {
		t.Errorf("hook on a broken policy file: exit %d, want %d", code, cli.ExitProblems)
	}
}

// actionMetadata is action.yml, with the keys GitHub's metadata syntax
// allows for a composite action.
type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description        string `yaml:"description"`
		Required           bool   `yaml:"required"`
		Default            string `yaml:"default"`
		DeprecationMessage string `yaml:"deprecationMessage"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID               string            `yaml:"id"`
			Name             string            `yaml:"name"`
			If               string            `yaml:"if"`
			Shell            string            `yaml:"shell"`
			Run              string            `yaml:"run"`
			Uses             string            `yaml:"uses"`
			With             map[string]string `yaml:"with"`
			Env              map[string]string `yaml:"env"`
			WorkingDirectory string            `yaml:"working-directory"`
			ContinueOnError  bool              `yaml:"continue-on-error"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// TestActionMetadata checks action.yml's structure beyond what actionlint
// checks of a local action (.ci/run runs that too): a composite action
// whose every run step names its shell, whose expressions name only
// declared inputs and step ids, which never expands an input inside a
// script (inputs reach scripts through env, so a corpus path cannot
// inject shell), which installs a pinned version, and which runs lint as
// SARIF (uploaded) and regress as JUnit.
func TestActionMetadata(t *testing.T) {
	var a actionMetadata
	decodeStrict(t, "action.yml", &a)
	if a.Name == "" || a.Description == "" {
		t.Error("action.yml needs a name and a description")
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	for _, in := range []string{"version", "corpus", "cases"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("no input %q", in)
		}
	}
	if v := a.Inputs["version"]; !v.Required || v.Default != "" {
		t.Errorf("input version must be required with no default, so that the release is pinned: %+v", v)
	}
	expr := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	ref := regexp.MustCompile(`\b(inputs|steps)\.([A-Za-z0-9_-]+)`)
	ids := map[string]bool{}
	var all strings.Builder
	for i, s := range a.Runs.Steps {
		if (s.Run == "") == (s.Uses == "") {
			t.Errorf("step %d (%s): needs exactly one of run and uses", i, s.Name)
		}
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %d (%s): a composite run step needs shell", i, s.Name)
		}
		if expr.MatchString(s.Run) {
			t.Errorf("step %d (%s): run expands %q; pass inputs through env", i, s.Name, expr.FindString(s.Run))
		}
		if s.ID != "" {
			ids[s.ID] = true
		}
		all.WriteString(s.If + "\n" + s.Run + "\n" + s.Uses + "\n")
		for _, v := range s.With {
			all.WriteString(v + "\n")
		}
		for _, v := range s.Env {
			all.WriteString(v + "\n")
		}
	}
	for _, o := range a.Outputs {
		all.WriteString(o.Value + "\n")
	}
	for _, m := range ref.FindAllStringSubmatch(all.String(), -1) {
		if m[1] == "inputs" && a.Inputs[m[2]].Description == "" || m[1] == "steps" && !ids[m[2]] {
			t.Errorf("%s.%s is not declared", m[1], m[2])
		}
	}
	text := all.String()
	for _, want := range []string{
		`ka2 lint "${strict[@]}" --format sarif`,
		"github/codeql-action/upload-sarif@",
		"ka2 regress --format junit --report",
		`--report "html=$KA2_HTML"`,
		`--report "json=$KA2_JSON"`,
		`ka2 impact --cases`,
		`>> "$GITHUB_STEP_SUMMARY"`,
		"sha256sum -c",
		`/ka2" version`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("action.yml does not contain %q", want)
		}
	}
}

// TestReleaseNamesAgree checks that the Action downloads what the release
// configuration publishes, and that every -X stamp in the release
// configuration and the Dockerfile names a variable `ka2 version` reads
// (a misspelt -X is silently ignored by the linker).
func TestReleaseNamesAgree(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	goreleaser, action, dockerfile := read(".goreleaser.yaml"), read("action.yml"), read("Dockerfile")
	versionGo := read("cmd/ka2/internal/cli/version.go")
	for _, pair := range [][2]string{
		{`name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"`, `archive="ka2_${number}_${os}_${arch}.${ext}"`},
		{`name_template: "{{ .ProjectName }}_{{ .Version }}_checksums.txt"`, `"$base/ka2_${number}_checksums.txt"`},
		{"formats: [zip]", "Windows) os=windows ext=zip"},
	} {
		if !strings.Contains(goreleaser, pair[0]) || !strings.Contains(action, pair[1]) {
			t.Errorf("release and Action disagree: want %q in .goreleaser.yaml and %q in action.yml", pair[0], pair[1])
		}
	}
	stamp := regexp.MustCompile(`-X (\S+)\.(\w+)=`)
	for name, text := range map[string]string{".goreleaser.yaml": goreleaser, "Dockerfile": dockerfile} {
		found := stamp.FindAllStringSubmatch(text, -1)
		if len(found) != 3 {
			t.Errorf("%s: %d -X stamps, want version, commit and date", name, len(found))
		}
		for _, m := range found {
			if m[1] != "github.com/ka2/ka2/cmd/ka2/internal/cli" || !regexp.MustCompile(`(?m)^\t`+m[2]+` +string$`).MatchString(versionGo) {
				t.Errorf("%s: -X %s.%s names no string variable of cmd/ka2/internal/cli/version.go", name, m[1], m[2])
			}
		}
	}
}

// TestReleaseShipsDocs: a release archive holds the README and the docs/
// pages it links to, so its "Where to read on" list resolves offline.
func TestReleaseShipsDocs(t *testing.T) {
	var cfg struct {
		Archives []struct {
			Files []string `yaml:"files"`
		} `yaml:"archives"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Archives) == 0 {
		t.Fatal(".goreleaser.yaml has no archives")
	}
	for i, a := range cfg.Archives {
		for _, want := range []string{"LICENSE", "README.md", "docs/*"} {
			if !slices.Contains(a.Files, want) {
				t.Errorf(".goreleaser.yaml: archive %d ships %v, without %s", i, a.Files, want)
			}
		}
	}
}

// TestActionLintStrict runs the Action's lint step as the runner would
// (bash, its env), with a stand-in ka2 that records its arguments: the
// strict input adds --strict to both lint runs, and a value other than
// "true" or "false" fails the step before ka2 runs.
func TestActionLintStrict(t *testing.T) {
	var a actionMetadata
	decodeStrict(t, "action.yml", &a)
	script := ""
	for _, s := range a.Runs.Steps {
		if s.ID == "lint" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step with id lint")
	}
	if in, ok := a.Inputs["strict"]; !ok || in.Default != "false" {
		t.Fatalf(`input strict = %+v, want one with default "false"`, in)
	}
	tests := []struct {
		strict   string
		wantArgs []string // one line per ka2 run
		wantCode int
	}{
		{"false", []string{"lint --format sarif policies", "lint --format github policies"}, 0},
		{"true", []string{"lint --strict --format sarif policies", "lint --strict --format github policies"}, 0},
		{"yes", nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.strict, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(dir, "args")
			stub := "#!/bin/sh\necho \"$*\" >> " + log + "\n"
			if err := os.WriteFile(filepath.Join(bin, "ka2"), []byte(stub), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "KA2_CORPUS=policies", "KA2_SARIF=lint.sarif",
				"KA2_STRICT=" + tt.strict, "GITHUB_OUTPUT=" + filepath.Join(dir, "out")}
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, out)
			}
			got, _ := os.ReadFile(log)
			var lines []string
			if s := strings.TrimSpace(string(got)); s != "" {
				lines = strings.Split(s, "\n")
			}
			if strings.Join(lines, "\n") != strings.Join(tt.wantArgs, "\n") {
				t.Errorf("ka2 ran with\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.wantArgs, "\n"))
			}
		})
	}
}
