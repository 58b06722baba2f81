package cli_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/testutil"
)

// exitSentence is the rest of a sentence of help that names an exit
// code: "exit 2)", "exits 0 when …, 1 when …, 2 when …", "exits 0 (7 if …)".
var exitSentence = regexp.MustCompile(`\b[Ee]xits?\s+\d+(?:[^.]|\.\S)*`)

// codeAfter is what follows a number of such a sentence that is an exit
// code, not a size (4 KiB) or a count.
var codeAfter = regexp.MustCompile(`^(?:\s+(?:when|if|on|after|otherwise|or|and|instead|with|else)\b|\s*\(|[).,;]|$)`)

// exitCodes returns the exit codes sentence names.
func exitCodes(sentence string) []int {
	var out []int
	for _, loc := range regexp.MustCompile(`\d+`).FindAllStringIndex(sentence, -1) {
		if loc[0] > 0 && !strings.ContainsRune(" \n(,", rune(sentence[loc[0]-1])) {
			continue
		}
		if !codeAfter.MatchString(sentence[loc[1]:]) {
			continue
		}
		code, _ := strconv.Atoi(sentence[loc[0]:loc[1]])
		out = append(out, code)
	}
	return out
}

// helpExitCodes maps each command's path to the exit codes its Short,
// Long and flag usages name.
func helpExitCodes(t *testing.T) map[string][]int {
	t.Helper()
	f, _, _ := cli.TestFactory("")
	out := map[string][]int{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts := []string{c.Short, c.Long}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) { texts = append(texts, fl.Usage) })
		for _, text := range texts {
			for _, sentence := range exitSentence.FindAllString(text, -1) {
				for _, code := range exitCodes(sentence) {
					if !slices.Contains(out[c.CommandPath()], code) {
						out[c.CommandPath()] = append(out[c.CommandPath()], code)
					}
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.NewCmdRoot(f))
	for _, codes := range out {
		sort.Ints(codes)
	}
	return out
}

// documentedExits are the exit codes errkind defines: the only
// ones a help text may name.
var documentedExits = []int{int(errkind.ExitOK), int(errkind.ExitProblems), int(errkind.ExitInput), int(errkind.ExitBudget),
	int(errkind.ExitNoEvidence), int(errkind.ExitContextType), int(errkind.ExitStage), int(errkind.ExitDrain), int(errkind.ExitInterrupted)}

// TestHelpNamesDocumentedExits: no help text names an exit code outside
// the documented set.
func TestHelpNamesDocumentedExits(t *testing.T) {
	for path, codes := range helpExitCodes(t) {
		for _, code := range codes {
			if !slices.Contains(documentedExits, code) {
				t.Errorf("%s --help names exit %d, which errkind does not define", path, code)
			}
		}
	}
}

// exitScenario provokes one exit code a command's help names: a run of
// ka2 (args, with $DIR the scenario's folder holding files, and stdin), or,
// where a run is not cheap (a server held past its drain deadline, a
// generator to evaluate), the kind of error the command returns for it.
type exitScenario struct {
	args  []string
	stdin string
	lsp   []string // or JSON-RPC messages as stdin, $DIR replaced before framing
	files map[string]string
	kind  errkind.Kind // instead of a run
}

const (
	exitPolicy = "---\nsource_id: hotel\nversion: v1\nsubjects: [lodging]\nvalid_from: 2026-01-01\nlang: en\nunit: CNY per room-night\n---\nScope: lodging on business trips.\nEffective from 2026-01-01.\nThe limit is 750 CNY per room-night.\n"
	relabel    = `{"subject": "lodging", "dates": ["2026-09-14"], "question": "q", "items": [{"type": "instruction", "source": "system", "text": "The lodging limit is 750 CNY per room-night."}]}`
)

// lspMessages frames JSON-RPC bodies as LSP sends them.
func lspMessages(bodies ...string) string {
	var b strings.Builder
	for _, body := range bodies {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return b.String()
}

// TestHelpExitCodes: every exit code a command's help names is the one it
// returns in the condition the help gives.
func TestHelpExitCodes(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ok.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer down.Close()
	defer ok.Client().CloseIdleConnections()
	defer down.Client().CloseIdleConnections()

	comparison := []string{"--subject", "lodging", "--date", "2025-09-14", "--date", "2026-09-14", "--question", "How did the Beijing lodging limit change between 2025 and 2026?"}
	noEvidence := []string{"--subject", "lodging", "--date", "2024-06-01", "--question", "q", "--require-evidence"}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://$DIR"}}`
	scenarios := map[string]map[int]exitScenario{
		"ka2 audit": {
			1: {args: []string{"audit", "$DIR/d.log"}, files: map[string]string{"d.log": "not a decision\n"}},
		},
		"ka2 budget": {
			3: {args: append([]string{"budget"}, comparison...)},
			4: {args: append([]string{"budget"}, noEvidence...)},
			5: {args: []string{"budget", "--request", "$DIR/r.json"}, files: map[string]string{"r.json": relabel}},
		},
		"ka2 build": {
			2: {args: []string{"build", "--subject", "no-such-subject", "--date", "2026-09-14", "--question", "q"}},
			3: {args: append([]string{"build"}, comparison...)},
			4: {args: append([]string{"build"}, noEvidence...)},
			5: {args: []string{"build", "--request", "$DIR/r.json"}, files: map[string]string{"r.json": relabel}},
		},
		"ka2 eval": {
			0: {kind: ""}, // success
			1: {kind: errkind.CheckFailed},
		},
		"ka2 grade": {
			1: {args: []string{"grade", "--contract", "$DIR/c.json", "--answer", "-"}, stdin: "The limit is 999 CNY per room-night [hotel:3]."},
			2: {args: []string{"grade", "--contract", "$DIR/broken.json", "--answer", "-"}, stdin: "x", files: map[string]string{"broken.json": "{"}},
		},
		"ka2 healthcheck": {
			0: {args: []string{"healthcheck", ok.URL}},
			1: {args: []string{"healthcheck", down.URL}},
		},
		"ka2 lint": {
			0: {args: []string{"lint", "--today", "2026-09-14", "$DIR/p"}, files: map[string]string{"p/hotel.md": exitPolicy}},
			1: {args: []string{"lint", "--today", "2026-09-14", "$DIR/p"}, files: map[string]string{"p/hotel.md": strings.Replace(exitPolicy, "lang: en", "lnag: en", 1)}},
			2: {args: []string{"lint", "$DIR/no-such-folder"}},
		},
		"ka2 lsp": {
			0: {args: []string{"lsp"}, lsp: []string{initialize, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`}},
			1: {args: []string{"lsp"}, lsp: []string{initialize, `{"jsonrpc":"2.0","method":"exit"}`}},
			2: {args: []string{"lsp"}, stdin: "Content-Length: many\r\n\r\n"},
		},
		"ka2 pipeline check": {
			0: {kind: ""},
			1: {kind: errkind.CheckFailed},
		},
		"ka2 pipeline replay": {
			2: {args: []string{"pipeline", "replay", "$DIR/no-such-pipeline.yaml", "$DIR/no-such-snapshot"}},
		},
		"ka2 pipeline run": {
			2: {args: []string{"pipeline", "run", "$DIR/bad.yaml"}, files: map[string]string{"bad.yaml": "stages: {}\n"}},
		},
		"ka2 render": {
			3: {args: []string{"render", "--provider", "openai-chat", "--capacity", "60", "--reserve", "0", "$DIR/c.json"}},
		},
		"ka2 serve": {
			0: {args: []string{"serve", "--addr", "127.0.0.1:0", "--watch=false"}}, // run with its context already done: a drain with nothing in flight
			7: {kind: errkind.DrainTimeout},
		},
		"ka2 verify": {
			1: {args: []string{"verify", "$DIR/wrong.json"}},
		},
	}
	for path, codes := range helpExitCodes(t) {
		for _, code := range codes {
			sc, ok := scenarios[path][code]
			if !ok {
				t.Errorf("%s --help names exit %d, and this test has no scenario for it: add one", path, code)
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", path, code), func(t *testing.T) {
				if sc.args == nil {
					got := 0
					if sc.kind != "" {
						got = int(sc.kind.Exit())
					}
					if got != code {
						t.Errorf("%s: kind %q exits %d, the help says %d", path, sc.kind, got, code)
					}
					return
				}
				dir := exitFixture(t)
				for name, text := range sc.files {
					testutil.WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
				}
				args := make([]string, len(sc.args))
				for i, a := range sc.args {
					args[i] = strings.ReplaceAll(a, "$DIR", dir)
				}
				ctx := t.Context()
				if path == "ka2 serve" {
					c, cancel := context.WithCancel(ctx)
					cancel()
					ctx = c
				}
				stdin := sc.stdin
				if sc.lsp != nil {
					msgs := make([]string, len(sc.lsp))
					for i, m := range sc.lsp {
						msgs[i] = strings.ReplaceAll(m, "$DIR", filepath.ToSlash(dir))
					}
					stdin = lspMessages(msgs...)
				}
				var out, errOut strings.Builder
				f := &cli.Factory{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut, Now: testNow}
				if got := cli.Run(ctx, f, args); got != code {
					t.Errorf("ka2 %s: exit %d, the help says %d\nstderr: %s", strings.Join(sc.args, " "), got, code, errOut.String())
				}
			})
		}
	}
}

// exitFixture is a folder with a contract built from the sample corpus
// (c.json) and one whose quote was edited (wrong.json).
func exitFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := runKA2(t, "", "build", "--counter", "o200k_base", "--subject", "lodging", "--date", "2026-09-14", "--question", "What is the lodging limit?")
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	testutil.WriteFile(t, filepath.Join(dir, "c.json"), stdout)
	wrong := strings.Replace(stdout, "750", "751", 1)
	if wrong == stdout {
		t.Fatal("the sample contract quotes no 750")
	}
	testutil.WriteFile(t, filepath.Join(dir, "wrong.json"), wrong)
	return dir
}
