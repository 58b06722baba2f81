package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/serve"
)

// cliSchemas compiles the repository's schemas of the CLI's JSON
// outputs (schema/cli.schema.json), whose shapes shared with the service
// come from the OpenAPI document as the server serves it.
func cliSchemas(t *testing.T) *jsonschema.Compiler {
	t.Helper()
	root := filepath.Join("..", "..", "..", "..")
	data, err := os.ReadFile(filepath.Join(root, "schema", "cli.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	api, err := serve.OpenAPI(contract.Default())
	if err != nil {
		t.Fatal(err)
	}
	regress, err := os.ReadFile(filepath.Join(root, "golden", "ka2-regress-report-v1.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	for url, doc := range map[string][]byte{"file:///ka2/schema/cli.schema.json": data, "file:///ka2/serve/openapi.json": api,
		"https://github.com/ka2/ka2/golden/ka2-regress-report-v1.schema.json": regress} {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if err := c.AddResource(url, inst); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestJSONOutputSchemas: what each command prints as JSON is what
// schema/cli.schema.json says; a field added to an output and not to
// the schema (or the other way) fails here.
func TestJSONOutputSchemas(t *testing.T) {
	c := cliSchemas(t)
	lintDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(lintDir, "a.md"), []byte("---\nid: a\nversion: v1\nsubjects: [lodging]\nvalid_from: 2026-01-01\n---\nThe limit is 5 CNY.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A copy of the sample suite with one golden's quote changed, so
	// that the regress report has a failing case and its record changes.
	suite := filepath.Join(t.TempDir(), "cases")
	if err := os.CopyFS(suite, os.DirFS(filepath.Join("..", "..", "..", "..", "golden", "testdata", "sample-cases"))); err != nil {
		t.Fatal(err)
	}
	// trust.yaml names the repository's definition by a relative path.
	if err := os.Remove(filepath.Join(suite, "trust.yaml")); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(suite, "testdata", "golden", "boundaries", "open-ended-far-future.golden")
	g, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(g, []byte("750 CNY"), []byte("751 CNY"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	contractFile := filepath.Join(t.TempDir(), "contract.json")
	q := []string{"--corpus", "embedded:sample", "--subject", "lodging", "--date", "2026-09-14", "--question", "What is the limit?"}
	code, built, stderr := runKA2(t, "", append([]string{"build"}, q...)...)
	if code != 0 {
		t.Fatalf("ka2 build: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(contractFile, []byte(built), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		def    string
		stdin  string
		args   []string
		stderr bool // the JSON is on standard error
	}{
		{"build", "contract", "", append([]string{"build"}, q...), false},
		{"select", "select", "", []string{"select", "--corpus", "embedded:sample", "--subject", "lodging", "--date", "2026-09-14", "--date", "2025-03-01", "--format", "json"}, false},
		{"verify", "verify", "", []string{"verify", "--corpus", "embedded:sample", "--format", "json", contractFile}, false},
		{"verify with problems", "verify", `{"template":"ka2-context-v1"}`, []string{"verify", "--corpus", "embedded:sample", "--format", "json", "-"}, false},
		{"budget", "budget", "", append([]string{"budget", "--format", "json"}, q...), false},
		{"grade", "grade", "The limit is 990 CNY.", []string{"grade", "--contract", contractFile, "--answer", "-", "--format", "json"}, false},
		{"regress", "regress", "", []string{"regress", "--format", "json", filepath.Join("..", "..", "..", "..", "golden", "testdata", "sample-cases")}, false},
		{"regress with a failing case", "regress", "", []string{"regress", "--format", "json", suite}, false},
		{"lint", "lint", "", []string{"lint", "--format", "json", lintDir}, false},
		{"error", "error", "", []string{"build", "--error-format", "json", "--corpus", "embedded:sample", "--subject", "nope", "--date", "2026-09-14", "--question", "q"}, true},
		{"error over budget", "error", "", []string{"build", "--error-format", "json", "--corpus", "embedded:sample", "--subject", "lodging", "--date", "2026-09-14", "--question", "q", "--capacity", "600"}, true},
		{"usage error", "error", "", []string{"build", "--error-format", "json", "--capacity", "x"}, true},
	}
	for _, mode := range []string{"careful", "copies-example"} {
		// eval runs its generator, testdata/eval/gen, with PATH only.
		tests = append(tests, struct {
			name   string
			def    string
			stdin  string
			args   []string
			stderr bool
		}{"eval " + mode, "eval", "", []string{"eval", "testdata/eval/cases.yaml", "--exec", "testdata/eval/gen", "--distractors", "2", "--jobs", "2", "--format", "json", "--", mode}, false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, outBuf, errBuf := cli.TestFactory(tt.stdin)
			f.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
			cli.Run(t.Context(), f, tt.args)
			stdout, stderr := outBuf.String(), errBuf.String()
			out := stdout
			if tt.stderr {
				out = stderr
			}
			if strings.TrimSpace(out) == "" {
				t.Fatalf("ka2 %s printed no JSON; stderr %s", strings.Join(tt.args, " "), stderr)
			}
			s, err := c.Compile("file:///ka2/schema/cli.schema.json#/$defs/" + tt.def)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
			if err != nil {
				t.Fatalf("ka2 %s: not JSON: %v\n%s", tt.args[0], err, out)
			}
			if err := s.Validate(inst); err != nil {
				t.Errorf("ka2 %s: the output does not match schema/cli.schema.json#/$defs/%s: %v\n%.600s", strings.Join(tt.args, " "), tt.def, err, out)
			}
		})
	}
}
