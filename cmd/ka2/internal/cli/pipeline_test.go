package cli_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/internal/testutil"
)

const pipelineFixtures = "../../../../pipeline/testdata"

func TestPipelineCheckFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    cli.PipelineCheckOptions
		wantErr string
	}{
		{name: "defaults", args: []string{"p.yaml"}, want: cli.PipelineCheckOptions{File: "p.yaml", Mode: "strict", Format: "text"}},
		{name: "all flags", args: []string{"--mode", "warn", "--format", "json", "--definition", "c.json", "-"},
			want: cli.PipelineCheckOptions{File: "-", Mode: "warn", Format: "json", Contract: "c.json"}},
		{name: "bad mode", args: []string{"--mode", "lenient", "p.yaml"}, wantErr: `invalid value "lenient" for --mode: want one of strict, warn`},
		{name: "bad format", args: []string{"--format", "yaml", "p.yaml"}, wantErr: `invalid value "yaml" for --format: want one of text, json`},
		{name: "no file", args: []string{}, wantErr: "accepts 1 arg(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(cli.NewCmdPipelineCheck, tt.args)
			if flagsFailed(t, err, tt.wantErr, true) {
				return
			}
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreUnexported(cli.PipelineCheckOptions{})); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPipelineRunFlags(t *testing.T) {
	type opts struct {
		File, Input, InputText, Snapshots, Corpus, Counter string
		Resume                                             bool
		Timeout                                            time.Duration
	}
	tests := []struct {
		name    string
		args    []string
		want    opts
		wantErr string
	}{
		{name: "defaults", args: []string{"p.yaml", "--input", "q.json"},
			want: opts{File: "p.yaml", Input: "q.json", Timeout: time.Minute}},
		{name: "all flags", args: []string{"p.yaml", "--input", "-", "--snapshots", "out", "--timeout", "5s", "--corpus", "c", "--counter", "cl100k_base"},
			want: opts{File: "p.yaml", Input: "-", Snapshots: "out", Timeout: 5 * time.Second, Corpus: "c", Counter: "cl100k_base"}},
		{name: "no input", args: []string{"p.yaml"}, wantErr: "--input is required"},
		{name: "input text", args: []string{"p.yaml", "--input-text", "quantum computing 2024", "--snapshots", "s", "--resume"},
			want: opts{File: "p.yaml", InputText: "quantum computing 2024", Snapshots: "s", Resume: true, Timeout: time.Minute}},
		{name: "both inputs", args: []string{"p.yaml", "--input", "q.json", "--input-text", "q"}, wantErr: "not both"},
		{name: "resume without snapshots", args: []string{"p.yaml", "--input", "q.json", "--resume"}, wantErr: "--resume needs --snapshots"},
		{name: "stdin twice", args: []string{"-", "--input", "-"}, wantErr: "cannot both be standard input"},
		{name: "zero timeout", args: []string{"p.yaml", "--input", "q.json", "--timeout", "0s"}, wantErr: "positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(cli.NewCmdPipelineRun, tt.args)
			if flagsFailed(t, err, tt.wantErr, true) {
				return
			}
			g := opts{File: got.File, Input: got.Input, InputText: got.InputText, Snapshots: got.Snapshots, Resume: got.Resume,
				Timeout: got.Timeout, Corpus: got.Corpus, Counter: got.Counter}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPipelineCheckCommand(t *testing.T) {
	answer := filepath.Join(pipelineFixtures, "pipelines", "answer.yaml")
	incompatible := filepath.Join(pipelineFixtures, "check", "incompatible-pair.yaml")
	unused := filepath.Join(pipelineFixtures, "check", "unused.yaml")
	src, err := os.ReadFile(incompatible)
	if err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t, goldie.WithFixtureDir("testdata/golden"))
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		golden   string // compares stdout and stderr with testdata/golden/NAME.golden
	}{
		{name: "clean file", args: []string{"pipeline", "check", answer}, golden: "pipeline-check-ok"},
		{name: "warnings do not fail", args: []string{"pipeline", "check", unused}, golden: "pipeline-check-warning"},
		{name: "strict", args: []string{"pipeline", "check", incompatible}, wantCode: cli.ExitProblems, golden: "pipeline-check-strict"},
		{name: "warn mode", args: []string{"pipeline", "check", "--mode", "warn", incompatible}, golden: "pipeline-check-warn"},
		{name: "json", args: []string{"pipeline", "check", "--format", "json", incompatible}, wantCode: cli.ExitProblems, golden: "pipeline-check-json"},
		{name: "stdin", stdin: string(src), args: []string{"pipeline", "check", "-"}, wantCode: cli.ExitProblems, golden: "pipeline-check-stdin"},
		{name: "bad mode", args: []string{"pipeline", "check", "--mode", "x", answer}, wantCode: cli.ExitInput, golden: "pipeline-check-usage"},
		{name: "missing file", args: []string{"pipeline", "check", "testdata/no-such.yaml"}, wantCode: cli.ExitInput, golden: "pipeline-check-missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runKA2(t, tt.stdin, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			g.Assert(t, tt.golden, []byte("-- stdout --\n"+out+"-- stderr --\n"+errOut))
		})
	}
}

// buildPipelineStages puts the test stage programs of the pipeline
// package, answer and check, into dir, where the pipeline files run them
// as ./answer and ./check. go build writes them to a folder kept between
// runs (one per checkout of the module) and copies them from there: a
// program that is up to date is not linked again, which saves most of
// the build's time on every run after the first.
func buildPipelineStages(t *testing.T, dir string) {
	t.Helper()
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(root))
	cache := filepath.Join(os.TempDir(), fmt.Sprintf("ka2-cli-test-stages-%x", sum[:8]))
	cmd := exec.Command("go", "build", "-o", cache+string(filepath.Separator),
		"github.com/ka2/ka2/pipeline/testdata/stages/answer", "github.com/ka2/ka2/pipeline/testdata/stages/check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the test stages: %v\n%s", err, out)
	}
	for _, name := range []string{"answer", "check"} {
		data, err := os.ReadFile(filepath.Join(cache, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPipelineRunCommand(t *testing.T) {
	dir := t.TempDir()
	buildPipelineStages(t, dir)
	src, err := os.ReadFile(filepath.Join(pipelineFixtures, "pipelines", "answer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, text)
		return p
	}
	good := write("answer.yaml", string(src))
	lying := write("lying.yaml", strings.Replace(string(src), "exec: [./answer]", "exec: [./answer, -amount, '600']", 1))
	broken := write("broken.yaml", strings.Replace(string(src), "input_schema: CitedAnswer", "input_schema: CitedAnswr", 1))
	question := write("q.json", `{"question": "What is the Beijing lodging limit?", "subjects": ["lodging"], "dates": ["2026-09-14"]}`)
	nothing := write("none.json", `{"question": "Lodging in 2024?", "subjects": ["lodging"], "dates": ["2024-09-14"], "require_evidence": true}`)
	surrogate := write("surrogate.json", `{"question":"\ud800","subjects":["lodging"],"dates":["2026-09-14"]}`)
	typo := write("typo.json", `{"questoin": "?", "subjects": ["lodging"], "dates": ["2026-09-14"]}`)
	const verdict = `{"ok":true,"citation":"travel-v2:3-3","cited":"The lodging limit is 750 CNY per room-night."}` + "\n"

	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantOut    string
		wantErr    string // part of stderr
		wantSnaps  []string
		lastStatus int
	}{
		{name: "three stages", args: []string{good, "--input", question}, wantOut: verdict},
		{name: "input on stdin, snapshots", stdin: `{"question":"Limit?","subject":"lodging","dates":["2026-09-14"]}`,
			args: []string{good, "--input", "-", "--snapshots", "SNAPS"}, wantOut: verdict,
			wantSnaps: []string{"00-input.json", "01-build.json", "02-answer.json", "03-check.json"}},
		{name: "a stage fails", args: []string{lying, "--input", question, "--snapshots", "SNAPS"}, wantCode: cli.ExitStage,
			wantErr:   "ka2: stage 'check': stage failed: ./check exited with status 1: check: lines travel-v2:3-3 do not state 600",
			wantSnaps: []string{"00-input.json", "01-build.json", "02-answer.json", "03-check.json"}, lastStatus: 1},
		{name: "over budget", args: []string{good, "--input", question, "--capacity", "500"}, wantCode: cli.ExitBudget,
			wantErr: "ka2: stage 'build': over budget"},
		{name: "no evidence", args: []string{good, "--input", nothing}, wantCode: cli.ExitNoEvidence, wantErr: "no applicable evidence"},
		{name: "bad input", args: []string{good, "--input", typo}, wantCode: cli.ExitInput, wantErr: `input:1:2: unknown key "questoin"`},
		// A broken pipeline file is a broken input file: exit 2, as for a
		// broken corpus (it was 1, the code of a check that found problems).
		{name: "pipeline with errors", args: []string{broken, "--input", question}, wantCode: cli.ExitInput,
			wantErr: "C-002: input_schema of stage 'check' names unknown protocol 'CitedAnswr'"},
		{name: "no input", args: []string{good}, wantCode: cli.ExitInput, wantErr: "Try: ka2 pipeline run --help"},
		{name: "lone surrogate in the input", args: []string{good, "--input", surrogate}, wantCode: cli.ExitInput,
			wantErr: `--input ` + surrogate + `: bad run input: input:1:14: question: invalid text: lone UTF-16 surrogate escape \ud800`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snaps := filepath.Join(t.TempDir(), "snaps")
			args := []string{"pipeline", "run"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "SNAPS", snaps))
			}
			code, out, errOut := runKA2(t, tt.stdin, args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, tt.wantCode, errOut)
			}
			if out != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantErr)
			}
			if tt.wantSnaps == nil {
				return
			}
			entries, err := os.ReadDir(snaps)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if diff := cmp.Diff(tt.wantSnaps, names); diff != "" {
				t.Errorf("snapshot files mismatch (-want +got):\n%s", diff)
			}
			var last struct {
				ExitCode int    `json:"exit_code"`
				Stderr   string `json:"stderr"`
			}
			data, err := os.ReadFile(filepath.Join(snaps, names[len(names)-1]))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &last); err != nil {
				t.Fatal(err)
			}
			if last.ExitCode != tt.lastStatus || (tt.lastStatus != 0 && last.Stderr == "") {
				t.Errorf("last snapshot: exit %d, stderr %q; want exit %d with stderr kept", last.ExitCode, last.Stderr, tt.lastStatus)
			}
		})
	}
}
