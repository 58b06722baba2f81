//go:build unix

package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/eval"
	"github.com/ka2/ka2/internal/testutil"
)

// TestExec: what an --exec program reads, and how each way of failing to
// answer reads in the report.
func TestExec(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	doc := []byte("{\n  \"template\": \"t\",\n  \"evidence\": []\n}\n")
	req := eval.Request{RequestFile: contract.RequestFile{Question: "q?", Subjects: []string{"lodging"}, Dates: []string{"2026-09-14"}, Lang: "en"},
		Condition: "base", MaxTokens: 512}
	tests := []struct {
		name    string
		script  string
		after   func(time.Duration) <-chan time.Time
		want    string
		wantErr string
	}{
		{
			name:   "reads one line of JSON, the answer is trimmed",
			script: `read -r line; printf '  %s\n\n' "$line"`,
			want:   `{"contract":{"template":"t","evidence":[]},"request":{"question":"q?","subjects":["lodging"],"dates":["2026-09-14"],"lang":"en","condition":"base","max_tokens":512}}`,
		},
		{
			name:    "non-zero exit gives the last line of stderr",
			script:  `cat >/dev/null; echo loading >&2; echo "model not loaded" >&2; exit 3`,
			wantErr: "exec: sh exited with status 3: model not loaded",
		},
		{
			name:    "time limit",
			script:  `sleep 5`,
			after:   testutil.Passed,
			wantErr: "exec: sh did not finish within 2m0s; its process group was ended: time limit passed",
		},
		{
			name:    "no answer",
			script:  `cat >/dev/null; echo "  "`,
			wantErr: "exec: sh printed no answer on stdout",
		},
		{
			name:    "not UTF-8",
			script:  `cat >/dev/null; printf '750 \377'`,
			wantErr: "exec: sh printed an answer that is not UTF-8 text",
		},
		{
			name:    "stdout over 4 MiB",
			script:  `cat >/dev/null; yes 0123456789`,
			wantErr: "exec: sh wrote more than 4 MiB on stdout, the limit for an answer; it was stopped and its process group was ended: stdout over its limit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen := &eval.Exec{Argv: []string{"sh", "-c", tt.script}, Env: env, After: tt.after}
			got, err := gen.Answer(context.Background(), doc, req)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Answer() = %q, %v, want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Answer() mismatch (-want +got):\n%s", diff)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("stdin is not one JSON document: %s", got)
			}
		})
	}
}

func TestExecNoProgram(t *testing.T) {
	if _, err := (&eval.Exec{}).Answer(context.Background(), []byte(`{}`), eval.Request{}); err == nil || err.Error() != "exec: no program to run" {
		t.Errorf("Answer() error = %v", err)
	}
}

// TestExecFailureIsAFailedRun: a program that cannot answer fails its
// runs, with the reason in the report; the evaluation itself goes on.
func TestExecFailureIsAFailedRun(t *testing.T) {
	gen := &eval.Exec{Argv: []string{"sh", "-c", "cat >/dev/null; echo 'no GPU' >&2; exit 1"}, Env: []string{"PATH=" + os.Getenv("PATH")}}
	rep, err := eval.Evaluate(context.Background(), cases(t)[:1], gen, eval.Options{Conditions: []eval.Condition{eval.Base, eval.Missing}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || len(rep.Runs) != 2 {
		t.Fatalf("report = %+v, want two failed runs", rep)
	}
	for _, r := range rep.Runs {
		if r.Pass || r.Error != "exec: sh exited with status 1: no GPU" {
			t.Errorf("run %s: pass %v, error %q", r.Condition, r.Pass, r.Error)
		}
	}
}
