package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/internal/testutil"
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
		if err := json.Unmarshal([]byte(req.Messages[1].Content), &c); err != nil {
			http.Error(w, "the user message is not a contract: "+err.Error(), http.StatusBadRequest)
			return
		}
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
		{[]string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen", "--model", "m"}, "--model and --api-key-env are for --endpoint"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen", "--timeout", "0s"}, `invalid value "0s" for --timeout`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "ftp://x"}, `invalid value "ftp://x" for --endpoint`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--conditions", "base,sideways"}, `unknown condition "sideways"`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--min-pass", "1.5"}, `invalid value "1.5" for --min-pass`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--api-key-env", "NOPE"}, "the environment variable NOPE is not set or empty"},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--repeat", "0"}, `invalid value "0" for --repeat`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--jobs", "65"}, `ka2: invalid value "65" for --jobs: want 1..64`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--distractors", "0"}, `ka2: invalid value "0" for --distractors: want 1..100`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--max-tokens", "-1"}, `ka2: invalid value "-1" for --max-tokens: want 1 or more`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--min-pass", "0.9,hostile=2"}, `ka2: invalid value "2" for --min-pass: want a rate from 0 to 1`},
		{[]string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--min-pass", "sideways=1"}, `ka2: --min-pass: unknown condition "sideways"`},
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
	// position:end, no_example, hostile, duplicate, missing.
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

// evalReport is the part of `ka2 eval --format json` the tests read.
type evalReport struct {
	OK         bool
	Conditions []struct {
		Name         string
		Runs, Passed int
		Degenerate   int
		OverBudget   int `json:"over_budget"`
		OK           bool
	}
	Skipped []struct {
		Case, Kind, Reason string
		Expected           bool
	}
	Variants []struct {
		Case, Condition, Status, Reason string
		Distractors                     int
		Injected                        []string
		Budget                          struct {
			Counter      string
			Total, Limit int
		}
		MaxTokens     int    `json:"max_tokens"`
		MaxTokensFrom string `json:"max_tokens_from"`
		SHA256        string
		Contract      json.RawMessage
	}
	Runs []struct {
		Case, Condition, Answer, Error string
		Repeat                         int
		Pass                           bool
		Findings                       []struct{ Code, Message string }
	}
}

// chatRequest is what a recording endpoint keeps of each request.
type chatRequest struct {
	MaxTokens int    `json:"max_tokens"`
	Template  string // the contract's template, from the user message
	Size      int    // the contract's code points: the user message and the instruction
}

// recordingEndpoint serves h on a loopback port and keeps each request
// it answers.
func recordingEndpoint(t *testing.T, h http.HandlerFunc) (string, func() []chatRequest) {
	t.Helper()
	var mu sync.Mutex
	var got []chatRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct{ Content string }
		}
		var c struct{ Template string }
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.Unmarshal(body, &req)
		}
		if err == nil && len(req.Messages) == 2 {
			err = json.Unmarshal([]byte(req.Messages[1].Content), &c)
		}
		if err != nil {
			t.Errorf("request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, chatRequest{MaxTokens: req.MaxTokens, Template: c.Template})
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	t.Cleanup(func() {
		srv.Client().CloseIdleConnections()
		srv.Close()
	})
	return srv.URL + "/v1/chat/completions", func() []chatRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// runEvalJSON runs `ka2 eval ARGS --format json` and decodes the report.
func runEvalJSON(t *testing.T, args ...string) (evalReport, int, string) {
	t.Helper()
	f, stdout, stderr := cli.TestFactory("")
	code := cli.Run(context.Background(), f, append(append([]string{"eval"}, args...), "--format", "json"))
	var rep evalReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("exit %d, stdout %q, stderr %q: %v", code, stdout, stderr, err)
	}
	return rep, code, stderr.String()
}

type variantKey struct{ Case, Condition string }

// TestEvalDegenerate: a variant that does not differ from its base as
// its condition says is not sent and not a pass, and the report says how
// many distractors each position variant really had. On the sample
// corpus, 2025 has no record of another subject (every position variant
// would be the base), one distractor cannot put the evidence in the
// middle, and in 2024 nothing applies, so there is nothing to place,
// repeat or remove.
func TestEvalDegenerate(t *testing.T) {
	url, requests := recordingEndpoint(t, sampleGenerator("careful"))
	rep, code, stderr := runEvalJSON(t, "testdata/eval/degenerate.yaml", "--endpoint", url, "--distractors", "1",
		"--conditions", "base,position,duplicate,missing")
	const (
		last = "testdata/eval/degenerate.yaml last-year"
		cur  = "testdata/eval/degenerate.yaml current"
		none = "testdata/eval/degenerate.yaml before-any-policy"
	)
	type want struct {
		Status      string
		Distractors int
	}
	wantVariants := map[variantKey]want{
		{last, "base"}: {"sent", 0}, {last, "position:start"}: {"degenerate", 0}, {last, "position:middle"}: {"degenerate", 0},
		{last, "position:end"}: {"degenerate", 0}, {last, "duplicate"}: {"sent", 0}, {last, "missing"}: {"sent", 0},
		{cur, "base"}: {"sent", 0}, {cur, "position:start"}: {"sent", 1}, {cur, "position:middle"}: {"degenerate", 1},
		{cur, "position:end"}: {"sent", 1}, {cur, "duplicate"}: {"sent", 0}, {cur, "missing"}: {"sent", 0},
		{none, "base"}: {"sent", 0}, {none, "position:start"}: {"degenerate", 0}, {none, "position:middle"}: {"degenerate", 0},
		{none, "position:end"}: {"degenerate", 0}, {none, "duplicate"}: {"degenerate", 0}, {none, "missing"}: {"degenerate", 0},
	}
	got := map[variantKey]want{}
	sent := 0
	for _, v := range rep.Variants {
		got[variantKey{v.Case, v.Condition}] = want{v.Status, v.Distractors}
		if v.Status == "degenerate" && v.Reason == "" {
			t.Errorf("%s [%s]: degenerate without a reason", v.Case, v.Condition)
		}
		if v.Status == "sent" {
			sent++
		}
	}
	if diff := cmp.Diff(wantVariants, got); diff != "" {
		t.Errorf("variants mismatch (-want +got):\n%s", diff)
	}
	if n := len(requests()); n != sent || len(rep.Runs) != sent {
		t.Errorf("%d variants sent, but %d requests and %d runs", sent, n, len(rep.Runs))
	}
	// position:middle was never sent: it tested nothing, and fails.
	for _, c := range rep.Conditions {
		wantOK := c.Name != "position:middle"
		if c.OK != wantOK || c.Passed != c.Runs {
			t.Errorf("condition %s: %d/%d passed, degenerate %d, ok %v; want ok %v", c.Name, c.Passed, c.Runs, c.Degenerate, c.OK, wantOK)
		}
	}
	if code != 1 || rep.OK || !strings.Contains(stderr, "nothing was tested: position:middle") {
		t.Errorf("exit %d, ok %v, stderr %q; want exit 1 naming position:middle", code, rep.OK, stderr)
	}
}

// TestEvalBudgetsVariants: every variant is counted as a build is; one
// over the case's budget is reported and never reaches the generator.
// The case's base contract fills its budget exactly, so a variant that
// adds a record does not fit and one that removes something does.
func TestEvalBudgetsVariants(t *testing.T) {
	url, requests := recordingEndpoint(t, sampleGenerator("careful"))
	rep, code, stderr := runEvalJSON(t, "testdata/eval/budget.yaml", "--endpoint", url, "--distractors", "2")
	want := map[string]string{"base": "sent", "position:start": "over_budget", "position:middle": "over_budget", "position:end": "over_budget",
		"no_example": "sent", "hostile": "over_budget", "duplicate": "over_budget", "missing": "sent"}
	got := map[string]string{}
	for _, v := range rep.Variants {
		got[v.Condition] = v.Status
		if v.Budget.Limit != 1193 || v.Budget.Counter != "codepoint" {
			t.Errorf("%s: budget %+v, want the case's limit 1193", v.Condition, v.Budget)
		}
		if fits := v.Budget.Total <= v.Budget.Limit; fits != (v.Status == "sent") {
			t.Errorf("%s: %s with %d of %d", v.Condition, v.Status, v.Budget.Total, v.Budget.Limit)
		}
		if v.Status == "over_budget" && (v.Contract != nil || !strings.Contains(v.Reason, fmt.Sprintf("%d of 1193 codepoint", v.Budget.Total))) {
			t.Errorf("%s: over budget with reason %q and a contract of %d bytes", v.Condition, v.Reason, len(v.Contract))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("variant statuses mismatch (-want +got):\n%s", diff)
	}
	var templates []string
	for _, r := range requests() {
		templates = append(templates, r.Template)
	}
	slices.Sort(templates)
	if diff := cmp.Diff([]string{"ka2-context-v1", "ka2-context-v1+missing", "ka2-context-v1+no_example"}, templates); diff != "" {
		t.Errorf("contracts the generator received mismatch (-want +got):\n%s", diff)
	}
	// The five conditions over budget tested nothing.
	if code != 1 || !strings.Contains(stderr, "nothing was tested: position:start, position:middle, position:end, hostile, duplicate") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestEvalMaxTokens: the reply is held to the case's reserve when the
// case counts in a token encoding; --max-tokens overrides it; a case
// counted in code points sends the definition's o200k_base reserve. The
// report says which applied.
func TestEvalMaxTokens(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     int
		wantFrom string
	}{
		{"token case: its reserve", []string{"testdata/eval/tokens.yaml"}, 300, "reserve"},
		{"token case, --max-tokens", []string{"testdata/eval/tokens.yaml", "--max-tokens", "128"}, 128, "override"},
		{"code-point case: the default", []string{"testdata/eval/cases.yaml"}, 512, "default"},
		{"code-point case, --max-tokens", []string{"testdata/eval/cases.yaml", "--max-tokens", "64"}, 64, "override"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, requests := recordingEndpoint(t, sampleGenerator("careful"))
			rep, code, stderr := runEvalJSON(t, append(tt.args, "--endpoint", url, "--conditions", "base,hostile")...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			reqs := requests()
			if len(reqs) == 0 {
				t.Fatal("no request")
			}
			for _, r := range reqs {
				if r.MaxTokens != tt.want {
					t.Errorf("request max_tokens %d, want %d", r.MaxTokens, tt.want)
				}
			}
			for _, v := range rep.Variants {
				if v.MaxTokens != tt.want || v.MaxTokensFrom != tt.wantFrom {
					t.Errorf("%s [%s]: max_tokens %d from %q, want %d from %q", v.Case, v.Condition, v.MaxTokens, v.MaxTokensFrom, tt.want, tt.wantFrom)
				}
			}
		})
	}
}

// TestEvalSkipsCasesWithoutContract: a case file regress passes, with a
// case that expects a build error and one whose build fails as its
// golden pins, evaluates its other case and lists those two, instead of
// stopping with the build's exit code.
func TestEvalSkipsCasesWithoutContract(t *testing.T) {
	f, stdout, stderr := cli.TestFactory("")
	if code := cli.Run(context.Background(), f, []string{"regress", "testdata/eval/expect-error.yaml"}); code != 0 {
		t.Fatalf("regress: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	url, _ := recordingEndpoint(t, sampleGenerator("careful"))
	rep, code, stderr2 := runEvalJSON(t, "testdata/eval/expect-error.yaml", "--endpoint", url, "--distractors", "2")
	if code != 0 || !rep.OK {
		t.Errorf("exit %d, ok %v, stderr %q; want 0", code, rep.OK, stderr2)
	}
	type skip struct {
		Case, Kind string
		Expected   bool
	}
	var got []skip
	for _, s := range rep.Skipped {
		got = append(got, skip{s.Case, s.Kind, s.Expected})
		if s.Reason == "" {
			t.Errorf("%s skipped without a reason", s.Case)
		}
	}
	want := []skip{{"testdata/eval/expect-error.yaml too-small", "budget_exceeded", true}, {"testdata/eval/expect-error.yaml nothing-applies", "no_evidence", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped mismatch (-want +got):\n%s", diff)
	}
	for _, r := range rep.Runs {
		if r.Case != "testdata/eval/expect-error.yaml current" {
			t.Errorf("a skipped case ran: %s [%s]", r.Case, r.Condition)
		}
	}
	if len(rep.Runs) != 8 {
		t.Errorf("%d runs, want 8 (one case, every condition)", len(rep.Runs))
	}
	// The text report lists them too.
	f, stdout, _ = cli.TestFactory("")
	cli.Run(context.Background(), f, []string{"eval", "testdata/eval/expect-error.yaml", "--endpoint", url, "--conditions", "base"})
	if !strings.Contains(stdout.String(), "\nskipped\ntestdata/eval/expect-error.yaml too-small: the case expects its build to fail with budget_exceeded\n"+
		"testdata/eval/expect-error.yaml nothing-applies: no applicable evidence for subject lodging on 2024-06-01 in lang en\n") {
		t.Errorf("text report does not list the skipped cases:\n%s", stdout)
	}
}

// TestEvalNoContent: a reply without content is a failed run under every
// condition, whatever else the reply holds, also for a case without
// expect.answer (where nothing else would fail it).
func TestEvalNoContent(t *testing.T) {
	tests := []struct {
		name    string
		message string
		want    string
	}{
		{"null content, a tool call", `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"cancel_order","arguments":"{\"order\":\"A-104\"}"}}]}`,
			`endpoint: the reply has no content and 1 tool call (finish_reason "tool_calls"): no answer`},
		{"empty content", `{"role":"assistant","content":""}`, `endpoint: the reply has an empty content (finish_reason "tool_calls"): no answer`},
		{"white space", `{"role":"assistant","content":" \n\t"}`, `endpoint: the reply has an empty content (finish_reason "tool_calls"): no answer`},
		{"no content key", `{"role":"assistant"}`, `endpoint: the reply has no content (finish_reason "tool_calls"): no answer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := recordingEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `{"choices":[{"index":0,"message":%s,"finish_reason":"tool_calls"}]}`, tt.message)
			})
			rep, code, _ := runEvalJSON(t, "testdata/eval/cases.yaml", "testdata/eval/plain.yaml", "--endpoint", url, "--distractors", "2",
				"--conditions", "base,position,no_example,hostile,duplicate")
			if code != 1 || rep.OK {
				t.Errorf("exit %d, ok %v; want 1", code, rep.OK)
			}
			if len(rep.Runs) != 21 {
				t.Errorf("%d runs, want 21", len(rep.Runs))
			}
			for _, r := range rep.Runs {
				if r.Pass || r.Error != tt.want {
					t.Errorf("%s [%s]: pass %v, error %q; want a failed run: %q", r.Case, r.Condition, r.Pass, r.Error, tt.want)
				}
			}
			for _, c := range rep.Conditions {
				if c.Passed != 0 {
					t.Errorf("condition %s: %d passed", c.Name, c.Passed)
				}
			}
		})
	}
}

// TestEvalReportRegrades: the JSON report keeps each sent variant's
// contract, exactly as sent (its SHA-256 matches), so ka2 grade, given it
// and a run's answer, prints the findings the report records (eval's own
// missing_expected aside).
func TestEvalReportRegrades(t *testing.T) {
	url, _ := recordingEndpoint(t, sampleGenerator("credulous"))
	dir := t.TempDir()
	report := filepath.Join(dir, "eval.json")
	f, stdout, stderr := cli.TestFactory("")
	code := cli.Run(context.Background(), f, []string{"eval", "testdata/eval/cases.yaml", "--endpoint", url, "--distractors", "2",
		"--format", "json", "--report", report})
	if code != 1 || !strings.HasPrefix(stdout.String(), "condition ") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and the text report", code, stdout, stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	contracts := map[variantKey][]byte{}
	injected := map[variantKey][]string{}
	for _, v := range rep.Variants {
		if v.Status != "sent" {
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, v.Contract); err != nil {
			t.Fatalf("%s [%s]: %v", v.Case, v.Condition, err)
		}
		if sum := sha256.Sum256(b.Bytes()); hex.EncodeToString(sum[:]) != v.SHA256 {
			t.Errorf("%s [%s]: the contract kept is not the one sent (SHA-256 %x, recorded %s)", v.Case, v.Condition, sum, v.SHA256)
		}
		contracts[variantKey{v.Case, v.Condition}] = b.Bytes()
		injected[variantKey{v.Case, v.Condition}] = v.Injected
	}
	findings := 0
	for i, r := range rep.Runs {
		doc, ok := contracts[variantKey{r.Case, r.Condition}]
		if !ok {
			t.Fatalf("run %s [%s]: no contract in the report", r.Case, r.Condition)
		}
		cpath, apath := filepath.Join(dir, fmt.Sprintf("c%d.json", i)), filepath.Join(dir, fmt.Sprintf("a%d.txt", i))
		testutil.WriteFile(t, cpath, string(doc))
		testutil.WriteFile(t, apath, r.Answer)
		f, stdout, stderr := cli.TestFactory("")
		args := []string{"grade", cpath, "--answer", apath, "--format", "json"}
		for _, id := range injected[variantKey{r.Case, r.Condition}] {
			args = append(args, "--injected", id)
		}
		gcode := cli.Run(context.Background(), f, args)
		var g struct {
			Findings []struct{ Code, Message string }
		}
		if err := json.Unmarshal(stdout.Bytes(), &g); err != nil {
			t.Fatalf("grade: exit %d, stderr %q: %v", gcode, stderr, err)
		}
		var recorded []struct{ Code, Message string }
		for _, x := range r.Findings {
			if x.Code != "missing_expected" {
				recorded = append(recorded, x)
			}
		}
		if diff := cmp.Diff(recorded, g.Findings, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s [%s]: ka2 grade's findings differ from the report's (-report +grade):\n%s", r.Case, r.Condition, diff)
		}
		if (gcode == 0) != (len(recorded) == 0) {
			t.Errorf("%s [%s]: grade exit %d with %d findings", r.Case, r.Condition, gcode, len(recorded))
		}
		findings += len(recorded)
	}
	if len(rep.Runs) != 16 || findings == 0 {
		t.Errorf("%d runs with %d findings re-graded; want 16 runs and some findings", len(rep.Runs), findings)
	}
}

// TestEvalEmptyHostile: a --hostile file with no text is refused before
// anything is sent, naming the file, with nothing on stdout.
func TestEvalEmptyHostile(t *testing.T) {
	for _, text := range []string{"", "\r\n\n", "  \n\t\n"} {
		file := filepath.Join(t.TempDir(), "hostile.txt")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, stdout, stderr := cli.TestFactory("")
		code := cli.Run(context.Background(), f, []string{"eval", "testdata/eval/cases.yaml", "--endpoint", "http://127.0.0.1:1", "--hostile", file})
		if want := "ka2: " + file + ": the hostile record is empty\n"; code != 2 || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("hostile %q: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", text, code, stdout, stderr, want)
		}
	}
}
