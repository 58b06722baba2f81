package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/testutil"
)

// shellWords splits a command line as sh would for these commands:
// words separated by spaces, double quotes removed, globs expanded.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	quoted, in := false, false
	flush := func() {
		if !in {
			return
		}
		w := cur.String()
		if strings.ContainsAny(w, "*?") {
			if m, _ := filepath.Glob(w); len(m) > 0 {
				words = append(words, m...)
				cur.Reset()
				in = false
				return
			}
		}
		words = append(words, w)
		cur.Reset()
		in = false
	}
	for _, r := range line {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			flush()
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}

// ka2Line finds the line of script that runs "ka2 SUB", without what
// follows a || (the exit status the script accepts).
func ka2Line(t *testing.T, script, sub string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*(ka2 ` + regexp.QuoteMeta(sub) + ` [^\n]*?)(?:\s*\|\|[^\n]*)?$`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("no ka2 %s line in:\n%s", sub, script)
	}
	return m[1]
}

// runDeployed runs a command line from a deploy file with its variables
// set, /reports made a folder of the test's, and checks that it exits 0
// or 1 (cases failed), as the scripts accept.
func runDeployed(t *testing.T, line string, vars map[string]string) {
	t.Helper()
	line = os.Expand(strings.ReplaceAll(line, "/reports/", "reports/"), func(k string) string {
		v, ok := vars[k]
		if !ok {
			t.Fatalf("%s: no value for $%s", line, k)
		}
		return v
	})
	args := shellWords(t, line)
	code, stdout, stderr := runKA2(t, "", args[1:]...)
	if code != 0 && code != 1 {
		t.Fatalf("%s: exit %d\n%s%s", line, code, stdout, stderr)
	}
}

// TestShardCommandsMerge runs the shard and merge commands of the nightly
// GitHub workflow and of the Kubernetes Jobs, exactly as they are written
// there (their variables set as the matrix and the Indexed Job set them),
// and checks that the merged JSON report is the one an unsharded run
// writes, byte for byte.
func TestShardCommandsMerge(t *testing.T) {
	workflow, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "deploy", "github", "workflows", "nightly.yml"))
	if err != nil {
		t.Fatal(err)
	}
	shardsJob, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "deploy", "kubernetes", "nightly", "shards-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mergeJob, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "deploy", "kubernetes", "nightly", "merge-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone") // one case fails
	if err := os.MkdirAll("reports", 0o755); err != nil {
		t.Fatal(err)
	}
	regressCLI(t, "", "regress", "--unreferenced=reject", "--report", "json=whole.json", "cases").want(t, 1)
	whole, err := os.ReadFile("whole.json")
	if err != nil {
		t.Fatal(err)
	}

	var wf struct {
		Env  map[string]string
		Jobs map[string]struct {
			Strategy struct{ Matrix struct{ Shard []int } }
			Steps    []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(workflow, &wf); err != nil {
		t.Fatal(err)
	}
	script := func(job string) string {
		var b strings.Builder
		for _, s := range wf.Jobs[job].Steps {
			b.WriteString(s.Run + "\n")
		}
		return b.String()
	}
	shardLine, mergeLine := ka2Line(t, script("shard"), "regress"), ka2Line(t, script("merge"), "report merge")
	shards := wf.Jobs["shard"].Strategy.Matrix.Shard
	if strconv.Itoa(len(shards)) != wf.Env["SHARDS"] {
		t.Fatalf("the matrix has %d shards, SHARDS is %s", len(shards), wf.Env["SHARDS"])
	}
	for _, k := range shards {
		runDeployed(t, shardLine, map[string]string{"SHARD": strconv.Itoa(k), "SHARDS": wf.Env["SHARDS"]})
	}
	runDeployed(t, mergeLine, map[string]string{"night": "github-night.json"})
	if got, _ := os.ReadFile("github-night.json"); !bytes.Equal(whole, got) {
		t.Errorf("the workflow's merged report differs from the unsharded one:\n%s\nwant\n%s", got, whole)
	}
	for _, f := range []string{"ka2-junit.xml", "ka2-report.html"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the workflow's merge did not write %s: %v", f, err)
		}
	}
	for _, k := range shards {
		os.Remove("shard-" + strconv.Itoa(k) + ".json")
	}

	// The Kubernetes Jobs: pod K-1 of the Indexed Job, then the merge.
	var job struct {
		Spec struct {
			Completions int
			Template    struct {
				Spec struct {
					Containers []struct {
						Args []string
						Env  []struct{ Name, Value string }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(shardsJob, &job); err != nil {
		t.Fatal(err)
	}
	c := job.Spec.Template.Spec.Containers[0]
	shardLine = ka2Line(t, strings.Join(c.Args, "\n"), "regress")
	if !strings.Contains(strings.Join(c.Args, "\n"), "K=$((JOB_COMPLETION_INDEX + 1))") {
		t.Fatal("the Job's script no longer sets K from JOB_COMPLETION_INDEX")
	}
	for index := range job.Spec.Completions {
		runDeployed(t, shardLine, map[string]string{"K": strconv.Itoa(index + 1), "SHARDS": c.Env[0].Value})
	}
	if err := yaml.Unmarshal(mergeJob, &job); err != nil {
		t.Fatal(err)
	}
	mergeScript := strings.Join(job.Spec.Template.Spec.Containers[0].Args, "\n")
	runDeployed(t, ka2Line(t, mergeScript, "report merge"), map[string]string{"night": "kube-night.json"})
	if got, _ := os.ReadFile("kube-night.json"); !bytes.Equal(whole, got) {
		t.Errorf("the Jobs' merged report differs from the unsharded one:\n%s\nwant\n%s", got, whole)
	}
}
