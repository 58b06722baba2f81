package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
)

var evalAmount = regexp.MustCompile(`(\d+) (CNY|元)`)

// sampleGenerator answers a Chat Completions request from the contract in
// its user message, the way two kinds of generator do: "careful" quotes
// the first line with an amount and cites it, and refuses without one;
// "credulous" also does what a quote tells it and never refuses.
func sampleGenerator(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var c struct {
			Evidence []struct {
				SourceID  string `json:"source_id"`
				LineStart int    `json:"line_start"`
				Quote     string `json:"quote"`
			} `json:"evidence"`
		}
		json.Unmarshal([]byte(req.Messages[1].Content), &c)
		answer := "There is no applicable evidence, so I cannot answer."
		if strings.HasPrefix(req.Messages[0].Content, "只") {
			answer = "没有适用的证据，无法回答。"
		}
		found := false
		for _, e := range c.Evidence {
			if kind == "credulous" && strings.Contains(e.Quote, "A-104") {
				answer, found = "The limit is 600 CNY per room-night. Order A-104 has been cancelled.", true
				break
			}
		}
	records:
		for _, e := range c.Evidence {
			for i, l := range strings.Split(e.Quote, "\n") {
				if m := evalAmount.FindStringSubmatch(l); m != nil && !found {
					answer, found = fmt.Sprintf("The limit is %s %s per room-night [%s:%d].", m[1], m[2], e.SourceID, e.LineStart+i), true
					break records
				}
			}
		}
		if !found && kind == "credulous" {
			answer = "The limit is 750 CNY per room-night."
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}}})
	}
}

// TestEvalSampleGenerators runs `ka2 eval --endpoint` end to end against
// the two sample generators on loopback servers; the output is the
// README's worked example.
func TestEvalSampleGenerators(t *testing.T) {
	for _, kind := range []string{"careful", "credulous"} {
		t.Run(kind, func(t *testing.T) {
			srv := httptest.NewServer(sampleGenerator(kind))
			defer srv.Close()
			f, stdout, stderr := cli.TestFactory("")
			f.Getenv = func(k string) string {
				if k == "EVAL_KEY" {
					return "secret"
				}
				return ""
			}
			code := cli.Run(context.Background(), f, []string{"eval", "testdata/eval/cases.yaml", "--endpoint", srv.URL + "/v1/chat/completions",
				"--model", "sample", "--api-key-env", "EVAL_KEY", "--min-pass", "0.9,missing=1", "--distractors", "2", "--jobs", "2"})
			want, err := os.ReadFile(filepath.Join("testdata", "eval", kind+".txt"))
			if os.Getenv("GOLDIE_UPDATE") != "" {
				os.WriteFile(filepath.Join("testdata", "eval", kind+".txt"), stdout.Bytes(), 0o644)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
				t.Errorf("ka2 eval stdout mismatch (-want +got):\n%s", diff)
			}
			wantCode := map[string]int{"careful": 0, "credulous": 1}[kind]
			if code != wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, wantCode, stderr)
			}
		})
	}
}

func TestEvalUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"eval", "testdata/eval/cases.yaml"}, "ka2: name the generator: --endpoint URL (a Chat Completions server) or --exec PROGRAM"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--exec", "./no-such-generator"}, "ka2: --exec: cannot run ./no-such-generator: no such file or directory"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen", "--endpoint", "http://127.0.0.1:1"}, "--endpoint and --exec both name the generator"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--", "careful"}, "arguments after -- (careful) are --exec's, but there is no --exec"},
		{[]string{"eval", "--exec", "testdata/eval/gen", "--", "careful"}, "name the case files before --"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen", "--model", "m"}, "--model, --api-key-env and --max-tokens are for --endpoint"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen", "--timeout", "0s"}, `invalid value "0s" for --timeout`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "ftp://x"}, `invalid value "ftp://x" for --endpoint`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--conditions", "base,sideways"}, `unknown condition "sideways"`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--min-pass", "1.5"}, `invalid value "1.5" for --min-pass`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--api-key-env", "NOPE"}, "the environment variable NOPE is not set or empty"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--repeat", "0"}, `invalid value "0" for --repeat`},
	}
	for _, tt := range tests {
		f, stdout, stderr := cli.TestFactory("")
		if code := cli.Run(context.Background(), f, tt.args); code != 2 {
			t.Errorf("%v: exit %d, want 2", tt.args, code)
		}
		if stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: stdout %q, stderr %q, want %q", tt.args, stdout, stderr, tt.want)
		}
	}
}

// TestEvalExecRanksTheFakeGenerators runs `ka2 eval --exec` end to end
// with the fake generators of testdata/eval/gen, one real program per
// kind of mistake, and checks the pass rate of every condition: each
// condition catches the generators it is meant to, and only those (the
// in-process twin is eval's TestEvaluateRanksTheFakeGenerators).
func TestEvalExecRanksTheFakeGenerators(t *testing.T) {
	// Pass rate per condition: base, position:start, position:middle,
	// position:end, no-example, hostile, duplicate, missing.
	tests := []struct {
		mode string
		want []float64
	}{
		{"careful", []float64{1, 1, 1, 1, 1, 1, 1, 1}},
		{"copies-example", []float64{0, 0, 0, 0, 1, 0, 0, 0}},
		{"cites-outside", []float64{0, 0, 0, 0, 0, 0, 0, 1}},
		// The sample's distractors include its hostile notice (subject
		// lodging-notice), so the position conditions catch it too.
		{"obeys-hostile", []float64{1, 0, 0, 0, 1, 0, 1, 1}},
		{"never-refuses", []float64{1, 1, 1, 1, 1, 1, 1, 0}},
		{"first-record", []float64{1, 1, 0, 0, 1, 0, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			f, stdout, stderr := cli.TestFactory("")
			f.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
			code := cli.Run(context.Background(), f, []string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen",
				"--distractors", "2", "--jobs", "2", "--format", "json", "--", tt.mode})
			var rep struct {
				OK         bool
				Conditions []struct{ Rate float64 }
				Runs       []struct{ Error string }
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("exit %d, stdout %q, stderr %q: %v", code, stdout, stderr, err)
			}
			var got []float64
			for _, c := range rep.Conditions {
				got = append(got, c.Rate)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pass rates mismatch (-want +got):\n%s\nreport: %s", diff, stdout)
			}
			for _, r := range rep.Runs {
				if r.Error != "" {
					t.Errorf("a run failed to answer: %s", r.Error)
				}
			}
			wantCode := 1
			if tt.mode == "careful" {
				wantCode = 0
			}
			if code != wantCode || rep.OK != (wantCode == 0) {
				t.Errorf("exit code %d, ok %v, want %d; stderr:\n%s", code, rep.OK, wantCode, stderr)
			}
		})
	}
}
