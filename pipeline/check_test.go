package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
)

// parseString parses src as a file called name with the embedded contract
// definition.
func parseString(t testing.TB, name, src string) *Pipeline {
	t.Helper()
	p, err := Parse(name, []byte(src), nil)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return p
}

// diagnosticsText prints diagnostics as `ka2 pipeline check` does.
func diagnosticsText(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "-- %d error(s), %d warning(s)\n", ds.Errors(), ds.Warnings())
	return b.String()
}

// TestCheckGolden checks every file in testdata/check and compares the
// diagnostics with testdata/golden/check-NAME.golden. Refresh with
// go test ./pipeline -update.
func TestCheckGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no check fixtures: %v", err)
	}
	g := goldie.New(t, goldie.WithFixtureDir("testdata/golden"))
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p := parseString(t, filepath.ToSlash(file), string(src))
			g.Assert(t, "check-"+name, []byte(diagnosticsText(p.Diagnostics)))
		})
	}
}

// TestCheckJSON pins the JSON form of diagnostics.
func TestCheckJSON(t *testing.T) {
	src, err := os.ReadFile("testdata/check/incompatible-pair.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := parseString(t, "testdata/check/incompatible-pair.yaml", string(src))
	goldie.New(t, goldie.WithFixtureDir("testdata/golden")).Assert(t, "check-incompatible-pair-json", indentJSON(t, p.Diagnostics))
}

// TestCompatible compares two protocols through a two-stage pipeline,
// the way the check does.
func TestCompatible(t *testing.T) {
	tests := []struct {
		name      string
		protocols string // declares Out and In
		want      string // the C-004 problem list, or "" when compatible
	}{
		{
			name:      "same fields, other names",
			protocols: "Out: {a: string, b: integer}\n  In: {b: integer, a: string}",
		},
		{
			name:      "extra fields allowed",
			protocols: "Out: {a: string, extra: boolean}\n  In: {a: string}",
		},
		{
			name:      "empty input takes anything",
			protocols: "Out: {a: string}\n  In: {}",
		},
		{
			name:      "missing field",
			protocols: "Out: {a: string}\n  In: {a: string, summary: string}",
			want:      "missing field 'summary'",
		},
		{
			name:      "same name, other type",
			protocols: "Out: {date: string}\n  In: {date: date}",
			want:      "field 'date' is string, want date",
		},
		{
			name:      "integer where number is wanted",
			protocols: "Out: {n: integer}\n  In: {n: number}",
		},
		{
			name:      "list of integers where a list of numbers is wanted",
			protocols: "Out: {ns: list<integer>, m: M1}\n  In: {ns: list<number>, m: M2}\n  M1: {x: integer}\n  M2: {x: number}",
		},
		{
			name:      "number is not integer",
			protocols: "Out: {n: number}\n  In: {n: integer}",
			want:      "field 'n' is number, want integer",
		},
		{
			name:      "optional integer where a required number is wanted",
			protocols: "Out: {\"n?\": integer}\n  In: {n: number}",
			want:      "field 'n' is optional, want required",
		},
		{
			name:      "optional where required",
			protocols: "Out: {\"a?\": string}\n  In: {a: string}",
			want:      "field 'a' is optional, want required",
		},
		{
			name:      "optional input field may be missing",
			protocols: "Out: {a: string}\n  In: {a: string, \"b?\": string}",
		},
		{
			name:      "optional input field, when present, must match",
			protocols: "Out: {a: string, b: integer}\n  In: {a: string, \"b?\": string}",
			want:      "field 'b' is integer, want string",
		},
		{
			name:      "list element types",
			protocols: "Out: {tags: list<string>}\n  In: {tags: list<date>}",
			want:      "field 'tags' is list<string>, want list<date>",
		},
		{
			name:      "list against scalar",
			protocols: "Out: {tags: list<string>}\n  In: {tags: string}",
			want:      "field 'tags' is list<string>, want string",
		},
		{
			name:      "nested protocols, structurally",
			protocols: "Out: {m: M1}\n  In: {m: M2}\n  M1: {x: string, y: date}\n  M2: {y: date}",
		},
		{
			name:      "nested protocols, deep problem",
			protocols: "Out: {m: M1}\n  In: {m: M2}\n  M1: {x: string}\n  M2: {x: integer, z: string}",
			want:      "field 'm.x' is string, want integer; missing field 'm.z'",
		},
		{
			name:      "lists of lists of protocols",
			protocols: "Out: {g: list<list<M1>>}\n  In: {g: list<list<M2>>}\n  M1: {x: string}\n  M2: {x: date}",
			want:      "field 'g[][].x' is string, want date",
		},
		{
			name:      "protocol against scalar",
			protocols: "Out: {m: M1}\n  In: {m: string}\n  M1: {x: string}",
			want:      "field 'm' is M1, want string",
		},
		{
			name:      "recursive protocols terminate",
			protocols: "Out: {next: Out, v: string}\n  In: {next: In, v: string}",
		},
		{
			name:      "recursive protocols, mismatch reported once",
			protocols: "Out: {next: Out, v: string}\n  In: {next: In, v: date}",
			want:      "field 'v' is string, want date",
		},
		{
			name:      "built-in protocol as a field type",
			protocols: "Out: {c: ka2-context-v1}\n  In: {c: Q}\n  Q: {question: string, template: string}",
		},
		{
			name:      "generated nested protocol, mistyped",
			protocols: "Out: {e: ka2-context-v1.evidence}\n  In: {e: E}\n  E: {line_start: string, quote: string}",
			want:      "field 'e.line_start' is integer, want string",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "protocols:\n  " + tt.protocols + `
stages:
  A: {exec: [./a], context: {output_schema: Out}}
  B: {exec: [./b], context: {input_schema: In}}
flow: A >> B
`
			p := parseString(t, "compat.yaml", src)
			var got []string
			for _, d := range p.Diagnostics {
				if d.Code != CodeIncompatible {
					t.Fatalf("unexpected diagnostic: %s", d)
				}
				got = append(got, d.Message)
			}
			var want []string
			if tt.want != "" {
				want = []string{fmt.Sprintf("C-004: Context incompatible in pipeline 'A >> B': output_schema='Out' is not a subtype of input_schema='In' (%s)", tt.want)}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("C-004 mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChains builds every chain of 3 to 6 stages with every subset of bad
// hand-offs, and wants exactly one C-004 per bad pair, at the downstream
// stage's place in the flow, and none for good pairs. Good hand-offs use a
// differently named protocol with the same fields; bad ones alternate
// between a missing field and a mistyped one.
func TestChains(t *testing.T) {
	for n := 3; n <= 6; n++ {
		for mask := 0; mask < 1<<(n-1); mask++ {
			var src strings.Builder
			src.WriteString("protocols:\n  In: {x: string, y: date}\n")
			src.WriteString("  Missing: {x: string}\n  Mistyped: {x: string, y: string}\n")
			src.WriteString("stages:\n")
			var names []string
			var want []string
			for i := range n {
				name := fmt.Sprintf("s%d", i+1)
				names = append(names, name)
				out := fmt.Sprintf("Same%d", i+1)
				bad := i < n-1 && mask&(1<<i) != 0
				if bad {
					out = []string{"Missing", "Mistyped"}[i%2]
				}
				fmt.Fprintf(&src, "  %s:\n    exec: [./%s]\n    context:\n", name, name)
				if i > 0 {
					src.WriteString("      input_schema: In\n")
				}
				fmt.Fprintf(&src, "      output_schema: %s\n", out)
				if bad {
					want = append(want, fmt.Sprintf("s%d >> s%d", i+1, i+2))
				}
			}
			src.WriteString("flow: " + strings.Join(names, " >> ") + "\n")
			// Same1…SameN: structurally equal to In, other names, other order.
			text := strings.Replace(src.String(), "stages:\n", func() string {
				var b strings.Builder
				for i := range n {
					fmt.Fprintf(&b, "  Same%d: {y: date, x: string, extra%d: integer}\n", i+1, i)
				}
				return b.String() + "stages:\n"
			}(), 1)
			p := parseString(t, "chain.yaml", text)
			var got []string
			for _, d := range p.Diagnostics {
				if d.Code != CodeIncompatible {
					t.Fatalf("n=%d mask=%b: unexpected diagnostic %s", n, mask, d)
				}
				pair := d.Message[strings.Index(d.Message, "'")+1:]
				pair = pair[:strings.Index(pair, "'")]
				got = append(got, pair)
				// The diagnostic points at the downstream stage in the flow.
				down := pair[strings.LastIndex(pair, " ")+1:]
				flowLine := strings.Count(text, "\n")
				wantCol := len("flow: ") + strings.Index(strings.Join(names, " >> "), down) + 1
				if d.Pos.Line != flowLine || d.Pos.Col != wantCol {
					t.Errorf("n=%d mask=%b: %s at %d:%d, want %d:%d", n, mask, pair, d.Pos.Line, d.Pos.Col, flowLine, wantCol)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("n=%d mask=%b: C-004 pairs mismatch (-want +got):\n%s", n, mask, diff)
			}
		}
	}
}

// TestUntypedIntoTyped: a stage that declares input_schema, handed the
// plain text of a stage without a context block (directly, through a
// shared store, or through a ka2.grade stage that passes it on), is a C-004
// naming the stage that wrote the text, and Run refuses the pipeline
// before any stage runs; the run would otherwise fail at the typed stage's
// input.
func TestUntypedIntoTyped(t *testing.T) {
	const head = "protocols:\n  P: {n: number}\nstages:\n"
	tests := []struct {
		name, stages, flow  string
		wantPair, wantOwner string
		wantSays            string // "" for "has no context block"
	}{
		{
			name:     "direct",
			stages:   "  one: {exec: [./one]}\n  two: {exec: [./two], context: {input_schema: P}}\n",
			flow:     "one >> two",
			wantPair: "one >> two", wantOwner: "one",
		},
		{
			name: "through a shared store",
			stages: "  one: {exec: [./one], context: {sink: 'shared:notes'}}\n  mid: {exec: [./mid], context: {source: fresh}}\n" +
				"  two: {exec: [./two], context: {source: 'shared:notes', input_schema: P}}\n",
			flow:     "one >> mid >> two",
			wantPair: "one >> two' via shared:notes", wantOwner: "one", wantSays: "declares no output_schema",
		},
		{
			name: "through ka2.grade",
			stages: "  build: {uses: ka2.build}\n  one: {exec: [./one], context: {inherit: [artifacts]}}\n" +
				"  grade: {uses: ka2.grade, context: {inherit: [artifacts]}}\n  two: {exec: [./two], context: {input_schema: P}}\n",
			flow:     "build >> one >> grade >> two",
			wantPair: "grade >> two'", wantOwner: "one", wantSays: "declares no output_schema",
		},
		{
			name: "through ka2.grade, from a stage without a context block",
			stages: "  one: {exec: [./one]}\n" +
				"  grade: {uses: ka2.grade, context: {inherit: [artifacts]}}\n  two: {exec: [./two], context: {input_schema: P}}\n",
			flow:     "one >> grade >> two",
			wantPair: "grade >> two'", wantOwner: "one",
		},
		{
			name:     "into ka2.verify",
			stages:   "  one: {exec: [./one]}\n  verify: {uses: ka2.verify}\n",
			flow:     "one >> verify",
			wantPair: "one >> verify", wantOwner: "one",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + tt.stages
			if !strings.HasPrefix(tt.flow, "build") {
				src += "input_schema: string\n"
			}
			p := parseString(t, "untyped.yaml", src+"flow: "+tt.flow+"\n")
			var got []string
			for _, d := range p.Diagnostics {
				got = append(got, string(d.Code)+" "+d.Message)
			}
			says := tt.wantSays
			if says == "" {
				says = "has no context block"
			}
			pair := tt.wantPair
			if !strings.Contains(pair, "'") {
				pair += "'"
			}
			want := []string{fmt.Sprintf("incompatible_context C-004: Context incompatible in pipeline '%s: upstream %s, so nothing says '%s' writes what input_schema='%s' requires",
				pair, says, tt.wantOwner, map[bool]string{true: "ka2-context-v1", false: "P"}[strings.Contains(tt.flow, "verify")])}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("diagnostics mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(p.Diagnostics[0].Hint.String(), "Declare "+tt.wantOwner+".context.output_schema") {
				t.Errorf("hint %q does not send the fix to '%s'", p.Diagnostics[0].Hint, tt.wantOwner)
			}
			in := TextInputOf("q")
			if strings.HasPrefix(tt.flow, "build") {
				in = RequestInput(lodging2026)
			}
			run, err := p.Run(context.Background(), in, RunOptions{Builder: sampleBuilder(t, 0), Dir: t.TempDir()})
			if !errors.Is(err, ErrCheck) || run != nil {
				t.Errorf("Run() = %v, %v; want no run and ErrCheck", run, err)
			}
		})
	}
}
