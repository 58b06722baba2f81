package golden_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/testutil"
)

func date(t testing.TB, s string) corpus.Date {
	t.Helper()
	d, err := corpus.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func intp(n int) *int { return &n }

func TestParseFile(t *testing.T) {
	const file = "suite/lodging/caps.yaml"
	tests := []struct {
		name string
		yaml string
		want []*golden.Case
	}{
		{
			name: "defaults apply and cases override them",
			yaml: `
defaults:
  corpus: ../../policies
  subject: lodging
  counter: cl100k_base
  capacity: 900
cases:
  - name: cap-2026
    question: What is the cap?
    dates: [2026-09-14]
    expect:
      sources: [travel-v2]
  - name: cap-zh
    question: 上限是多少？
    subject: [lodging, rail]
    lang: zh
    dates: [2025-09-14, 2026-09-14]
    capacity: 1000
    reserve: 10
    wrapper: 0
    short: true
    require_evidence: true
    contract: /abs/contract.json
    expect:
      sources: []
      error: budget_exceeded
`,
			want: []*golden.Case{
				{
					File: file, Line: 8, Name: "cap-2026", Question: "What is the cap?",
					Subjects: []string{"lodging"}, Dates: []corpus.Date{date(t, "2026-09-14")}, Lang: "en",
					Config: contract.Config{Corpus: corpus.Folder("policies"), Counter: "cl100k_base", Capacity: intp(900)},
					Expect: golden.Expect{CheckSources: true, Sources: []string{"travel-v2"}},
					Golden: "suite/lodging/testdata/golden/caps/cap-2026.golden",
				},
				{
					File: file, Line: 13, Name: "cap-zh", Question: "上限是多少？",
					Subjects: []string{"lodging", "rail"}, Dates: []corpus.Date{date(t, "2025-09-14"), date(t, "2026-09-14")},
					Lang: "zh", Short: true, RequireEvidence: true,
					Config: contract.Config{Corpus: corpus.Folder("policies"), Contract: "/abs/contract.json", Counter: "cl100k_base",
						Capacity: intp(1000), Reserve: intp(10), Wrapper: intp(0)},
					Expect: golden.Expect{CheckSources: true, Sources: []string{}, Error: golden.KindBudgetExceeded},
					Golden: "suite/lodging/testdata/golden/caps/cap-zh.golden",
				},
			},
		},
		{
			name: "the embedded sample named explicitly is the same as no corpus",
			yaml: `
cases:
  - name: a
    corpus: embedded:sample
    subject: lodging
    question: q
    dates: ["2026-01-01"]
`,
			want: []*golden.Case{{
				File: file, Line: 3, Name: "a", Question: "q", Subjects: []string{"lodging"},
				Dates: []corpus.Date{date(t, "2026-01-01")}, Lang: "en",
				Golden: "suite/lodging/testdata/golden/caps/a.golden",
			}},
		},
		{
			name: "aliases are followed",
			yaml: `
defaults:
  subject: lodging
cases:
  - name: a
    question: &q Same question
    dates: &d [2026-01-01]
  - name: b
    question: *q
    dates: *d
`,
			want: []*golden.Case{
				{File: file, Line: 5, Name: "a", Question: "Same question", Subjects: []string{"lodging"},
					Dates: []corpus.Date{date(t, "2026-01-01")}, Lang: "en", Golden: "suite/lodging/testdata/golden/caps/a.golden"},
				{File: file, Line: 8, Name: "b", Question: "Same question", Subjects: []string{"lodging"},
					Dates: []corpus.Date{date(t, "2026-01-01")}, Lang: "en", Golden: "suite/lodging/testdata/golden/caps/b.golden"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := golden.ParseFile(file, []byte(tt.yaml))
			if err != nil {
				t.Fatalf("ParseFile() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, f.Cases, cmpopts.IgnoreUnexported(golden.Case{}, corpus.Date{}, corpus.Location{})); diff != "" {
				t.Errorf("ParseFile() mismatch (-want +got):\n%s", diff)
			}
			for i, c := range f.Cases {
				if got, want := c.Dates, tt.want[i].Dates; !cmp.Equal(want, got, cmp.Comparer(func(a, b corpus.Date) bool { return a == b })) {
					t.Errorf("case %s dates = %v, want %v", c.Name, got, want)
				}
			}
		})
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"empty file", "", []string{"c.yaml: the case file is empty; list cases under cases:, each with name, question, subject and dates"}},
		{"not yaml", "cases: [a\n", []string{"c.yaml:1: did not find expected ',' or ']'; fix the YAML syntax; indent with spaces, and quote text that contains ': ' or starts with a special character"}},
		{"two documents", "cases: []\n---\ncases: []\n", []string{"c.yaml:2:1: a second YAML document starts here; keep one YAML document in the file: remove the '---' line, or move what follows to its own file"}},
		{"a document end line drops the cases after it", "cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01]}\n...\n  - {name: b, question: q, subject: s, dates: [someday]}\n", []string{"c.yaml:3:1: a YAML document end line '...' ends the reading here, so what follows it would be ignored; remove the '...' line"}},
		{"a tag", "cases:\n  - {name: a, question: !!binary cQ==, subject: s, dates: [2026-01-01]}\n", []string{"c.yaml:2:25: YAML tag !!binary is not allowed; remove the tag and write the value as plain text"}},
		{"a custom tag", "defaults: !settings {subject: s}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n", []string{"c.yaml:1:11: YAML tag !settings is not allowed; remove the tag and write the value as plain text"}},
		{"no cases", "defaults:\n  subject: x\n", []string{"c.yaml:1:1: no cases; add cases: with at least one case (name, question, subject, dates)"}},
		{"unknown top-level key with suggestion", "case:\n  - name: a\n", []string{
			"c.yaml:1:1: no cases; add cases: with at least one case (name, question, subject, dates)",
			`c.yaml:1:1: unknown key "case" in the case file; did you mean cases?`,
		}},
		{"typo in a case key", "cases:\n  - name: a\n    question: q\n    subject: s\n    dats: [2026-01-01]\n", []string{
			"c.yaml:2:5: case a has no dates; list the dates asked about, e.g. dates: [2026-09-14]",
			`c.yaml:5:5: unknown key "dats" in a case; did you mean dates?`,
		}},
		{"typo in defaults", "defaults:\n  capacty: 5\ncases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01]}\n", []string{
			`c.yaml:2:3: unknown key "capacty" in defaults; did you mean capacity?`,
		}},
		{"typo in expect", "cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01], expect: {source: [x]}}\n", []string{
			`c.yaml:2:70: unknown key "source" in expect; did you mean sources?`,
		}},
		{"missing fields", "cases:\n  - name: a\n", []string{
			"c.yaml:2:5: case a has no dates; list the dates asked about, e.g. dates: [2026-09-14]",
			"c.yaml:2:5: case a has no question; write the question as the user would ask it",
			"c.yaml:2:5: case a has no subject; set subject in the case or under defaults, e.g. subject: lodging",
		}},
		{"missing name", "cases:\n  - {question: q, subject: s, dates: [2026-01-01]}\n", []string{
			"c.yaml:2:5: case has no name; give the case a name: it names its golden file",
		}},
		{"duplicate names ignoring case", "defaults: {subject: s}\ncases:\n  - {name: Cap, question: q, dates: [2026-01-01]}\n  - {name: cap, question: q, dates: [2026-01-01]}\n", []string{
			`c.yaml:4:5: case name "cap" is already used on line 3; give every case in a file its own name (names are compared ignoring case, as some file systems do)`,
		}},
		{"name that cannot be a file name", "cases:\n  - {name: ../up, question: q, subject: s, dates: [2026-01-01]}\n", []string{
			`c.yaml:2:12: case name "../up" cannot name a golden file; use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 120 characters (it becomes a file name)`,
		}},
		{"date with a time", "cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01T00:00:00Z]}\n", []string{
			`c.yaml:2:48: date "2026-01-01T00:00:00Z": ka2 compares civil dates: write the date as YYYY-MM-DD, without a time or zone`,
		}},
		{"dates not a list", "cases:\n  - {name: a, question: q, subject: s, dates: 2026-01-01}\n", []string{
			"c.yaml:2:47: dates is not a list of dates; write a list with at least one date, e.g. dates: [2026-09-14]",
		}},
		{"bad budget values", "defaults: {subject: s, counter: words, capacity: 0, reserve: -1, wrapper: two}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n", []string{
			`c.yaml:1:33: counter: unknown counter "words": use one of codepoint, cl100k_base, o200k_base`,
			"c.yaml:1:50: capacity 0 is out of range 1..100000000",
			"c.yaml:1:62: reserve -1 is out of range 0..99999999",
			`c.yaml:1:75: wrapper "two" is not a whole number; write a whole number`,
		}},
		{"huge budget values", "defaults: {subject: s, capacity: 100000001, reserve: 99999999999999999999, wrapper: 9223372036854775807}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n", []string{
			"c.yaml:1:34: capacity 100000001 is out of range 1..100000000",
			"c.yaml:1:54: reserve 99999999999999999999 is out of range 0..99999999",
			"c.yaml:1:85: wrapper 9223372036854775807 is out of range 0..99999999",
		}},
		{"budget value not in decimal", "defaults: {subject: s, capacity: 0x10}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n", []string{
			`c.yaml:1:34: capacity "0x10" is not a whole number; write a whole number in decimal digits`,
		}},
		{"empty setting", "defaults: {subject: s, lang: \"\"}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n", []string{
			"c.yaml:1:30: lang is empty; remove the key to use the default",
		}},
		{"bad expectation", "cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01], expect: {error: boom, sources: travel-v2}}\n", []string{
			`c.yaml:2:77: expect.error "boom" is not an error kind; use one of budget_exceeded, no_evidence, bad_input, context_type`,
			"c.yaml:2:92: expect.sources is not a list; write a list, e.g. expect.sources: [travel-v2]",
		}},
		{"items and promote are checked as a request's", "cases:\n  - name: a\n    question: q\n    subject: s\n    dates: [2026-01-01]\n    items:\n      - {type: evidence, source: \"tool:x\", text: t}\n      - {type: memory, source: \"memory:notes\", text: 42}\n      - {type: tool_output, source: \"tool:x\", txt: t}\n    promote: [{item: 3, to: evidence}, {item: 0, to: answer}]\n", []string{
			`c.yaml:7:9: items[0]: type "evidence": a request may add instruction, memory or tool_output items; evidence comes from the corpus, or from a tool_output item through promote`,
			"c.yaml:8:48: items[1].text: want a string, not a JSON number",
			`c.yaml:9:47: items[2]: unknown key "txt"; the keys are source, text, type`,
			"c.yaml:10:15: promote[0]: item 3: the request has 3 items, numbered from 0",
			`c.yaml:10:40: promote[1]: to: "answer" is not a context type: use one of instruction, example, memory, evidence, tool_output, scope, question`,
		}},
		{"items not a list, and not a default", "defaults: {subject: s, items: []}\ncases:\n  - {name: a, question: q, dates: [2026-01-01], items: {type: memory}}\n", []string{
			`c.yaml:1:24: unknown key "items" in defaults; the keys here are corpus, contract, content, subject, subjects, lang, counter, capacity, reserve, wrapper, short, require_evidence`,
			"c.yaml:3:56: items: want a list, not a JSON object",
		}},
		{"subject and subjects", "defaults: {subject: a, subjects: [b]}\ncases:\n  - {name: a, question: q, subject: s, subjects: [t], dates: [2026-01-01]}\n", []string{
			"c.yaml:1:34: defaults has both subject and subjects; give subject or subjects, not both",
			"c.yaml:3:50: case a has both subject and subjects; give subject or subjects, not both",
		}},
		{"one broken case breaks the file", "defaults: {subject: s}\ncases:\n  - {name: good, question: q, dates: [2026-01-01]}\n  - {name: bad, question: q, dates: [someday]}\n", []string{
			`c.yaml:4:38: date "someday": not a calendar date: write it as YYYY-MM-DD, e.g. 2026-01-01`,
		}},
		{"duplicate key", "cases:\n  - name: a\n    name: b\n    question: q\n    subject: s\n    dates: [2026-01-01]\n", []string{
			"c.yaml:3:5: name is already set on line 2; write each key once",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := golden.ParseFile("c.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("ParseFile() = %d cases, want an error", len(f.Cases))
			}
			if !errors.Is(err, golden.ErrBadCases) {
				t.Errorf("errors.Is(err, ErrBadCases) = false for %v", err)
			}
			if f != nil {
				t.Errorf("ParseFile() returned cases along with an error")
			}
			got := strings.Split(err.Error(), "\n")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseFile() errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadErrors checks what only loading can find: corpora and contracts
// that cannot be read, pointed at the line that names them.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "policies", "broken.md"), "---\nsource_id: x\nversion: v1\nsubjects: [a]\nvalid_from: 2026-01-01\nvalid_untill: 2027-01-01\n---\nbody\n")
	testutil.WriteFile(t, filepath.Join(dir, "cases", "a.yaml"), "defaults:\n  corpus: ../policies\n  subject: a\ncases:\n  - {name: one, question: q, dates: [2026-01-01]}\n  - {name: two, question: q, dates: [2026-01-01]}\n")
	testutil.WriteFile(t, filepath.Join(dir, "cases", "b.yaml"), "cases:\n  - name: one\n    question: q\n    subject: a\n    dates: [2026-01-01]\n    contract: missing.json\n")
	t.Chdir(dir)
	if err := os.Mkdir("empty", 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := golden.Load(context.Background(), []string{"empty"}, golden.LoadOptions{})
	if got, want := fmt.Sprint(err), "empty: no case files (*.yaml) found; name the folder that holds the case files; folders named testdata or starting with . or _ are skipped"; got != want {
		t.Errorf("Load(empty) error = %s, want %s", got, want)
	}
	_, err = golden.Load(context.Background(), []string{"cases"}, golden.LoadOptions{})
	if !errors.Is(err, golden.ErrBadCases) {
		t.Fatalf("Load() error = %v, want ErrBadCases", err)
	}
	want := `cases/a.yaml:2:11: corpus policies cannot be loaded:
	policies/broken.md:6:1: unknown key "valid_untill"; did you mean valid_until?; fix the corpus (ka2 lint shows its problems), or the corpus path, which is relative to the case file
cases/b.yaml:6:15: contract cases/missing.json cannot be loaded: read contract: open cases/missing.json: no such file or directory; fix the definition, or remove contract to use the embedded one`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Load() error mismatch (-want +got):\n%s", diff)
	}
}

// TestLoadLimitsAgainstCapacity checks the range checks that need the
// capacity, which may be the contract's default: the error points at the
// key that is out of range, or at capacity when the other limit is the
// contract's default.
func TestLoadLimitsAgainstCapacity(t *testing.T) {
	tests := []struct {
		name, settings, want string
	}{
		{"reserve equal to capacity", "capacity: 500, reserve: 500", "c.yaml:2:91: reserve 500 is out of range 0..499: it must be smaller than the capacity 500"},
		{"wrapper above capacity", "capacity: 500, wrapper: 9999", "c.yaml:2:91: wrapper 9999 is out of range 0..499: it must be smaller than the capacity 500"},
		{"reserve above the default capacity", "reserve: 1600", "c.yaml:2:76: reserve 1600 is out of range 0..1599: it must be smaller than the capacity 1600"},
		{"capacity below the default reserve", "capacity: 200", "c.yaml:2:77: reserve 200 is out of range 0..199: it must be smaller than the capacity 200; the reserve is the contract's default; set reserve too, or raise capacity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			testutil.WriteFile(t, "c.yaml", "cases:\n  - {name: a, question: q, subject: lodging, dates: [2026-01-01], "+tt.settings+"}\n")
			_, err := golden.Load(context.Background(), []string{"c.yaml"}, golden.LoadOptions{})
			if !errors.Is(err, golden.ErrBadCases) {
				t.Fatalf("Load() error = %v, want ErrBadCases", err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Load() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseFile(f *testing.F) {
	for _, data := range testutil.SeedFiles(f, "testdata/sample-cases/*.yaml") {
		f.Add(data)
	}
	for _, data := range testutil.SeedFiles(f, "testdata/typed-cases/*.yaml") {
		f.Add(data)
	}
	f.Add([]byte("cases:\n  - name: a\n    items: [&i {type: memory, source: \"memory:m\", text: *i}]\n    promote: [{item: *i}]\n"))
	f.Add([]byte("cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01], expect: {sources: []}}\n"))
	f.Add([]byte("defaults: &d {subject: s}\ncases: [*d]\n"))
	f.Add([]byte("cases:\n  - name: a\n    items: []\n"))
	f.Add([]byte("defaults: {capacity: 1, wrapper: 9223372036854775807, reserve: -9223372036854775808}\ncases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01]}\n"))
	f.Add([]byte("cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01], capacity: 100000000, reserve: 99999999, wrapper: 99999999}\n"))
	f.Add([]byte("cases:\n  - {name: a, question: q, subject: s, dates: [2026-01-01]}\n...\n  - {name: b}\n"))
	f.Add([]byte("cases:\n  - {name: !!binary YQ==, question: !q q, subject: s, dates: [2026-01-01]}\n"))
	f.Add([]byte("cases: []0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, errA := golden.ParseFile("f.yaml", data)
		b, errB := golden.ParseFile("f.yaml", data)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("ParseFile is not deterministic: %v vs %v", errA, errB)
		}
		if errA != nil {
			if a != nil {
				t.Fatal("cases returned along with an error")
			}
			if !errors.Is(errA, golden.ErrBadCases) || errA.Error() != errB.Error() {
				t.Fatalf("error %q vs %q", errA, errB)
			}
			return
		}
		if len(a.Cases) == 0 {
			t.Fatal("a file without cases parsed")
		}
		seen := map[string]bool{}
		for _, c := range a.Cases {
			if c.Name == "" || strings.TrimSpace(c.Question) == "" || len(c.Subjects) == 0 || len(c.Dates) == 0 {
				t.Fatalf("case %+v lacks a required field", c)
			}
			k := strings.ToLower(c.Golden)
			if seen[k] {
				t.Fatalf("two cases share golden %s", c.Golden)
			}
			seen[k] = true
			// Limits are range-checked at parse time: nothing a case file
			// says can make the budget arithmetic overflow.
			for _, l := range []*int{c.Config.Capacity, c.Config.Reserve, c.Config.Wrapper} {
				if l != nil && (*l < 0 || *l > budget.MaxCapacity) {
					t.Fatalf("case %s has a limit %d out of range", c.Name, *l)
				}
			}
			if !strings.HasPrefix(c.Golden, "testdata/golden/f/") || strings.Contains(strings.TrimPrefix(c.Golden, "testdata/golden/f/"), "/") {
				t.Fatalf("golden %s leaves its folder", c.Golden)
			}
		}
		if diff := cmp.Diff(a.Cases, b.Cases, cmpopts.IgnoreUnexported(golden.Case{}, corpus.Location{}), cmp.Comparer(func(x, y corpus.Date) bool { return x == y })); diff != "" {
			t.Fatalf("ParseFile is not deterministic:\n%s", diff)
		}
	})
}

// TestCaseItems: a case's items and promote are read as a request
// document's, aliases followed, and its request carries them as
// candidates; expect.error names context_type.
func TestCaseItems(t *testing.T) {
	const yaml = `cases:
  - name: a
    question: Is order A-104 within the limit?
    subject: lodging
    dates: [2026-09-14]
    items:
      - &order {type: tool_output, source: "tool:order_lookup", text: "Order A-104: 720 CNY, confirmed."}
      - {type: memory, source: "memory:prefs", text: Prefers hotels near the office.}
    promote: [{item: 0, to: evidence}]
  - name: b
    question: q
    subject: lodging
    dates: [2026-09-14]
    items: [*order]
    promote: [{item: 0, to: instruction}]
    expect: {error: context_type}
`
	f, err := golden.ParseFile("c.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	order := contract.RequestItem{Type: "tool_output", Source: "tool:order_lookup", Text: "Order A-104: 720 CNY, confirmed."}
	a, b := f.Cases[0], f.Cases[1]
	if diff := cmp.Diff([]contract.RequestItem{order, {Type: "memory", Source: "memory:prefs", Text: "Prefers hotels near the office."}}, a.Items); diff != "" {
		t.Errorf("case a items mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]contract.Promotion{{Item: 0, To: "evidence"}}, a.Promote); diff != "" {
		t.Errorf("case a promote mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]contract.RequestItem{order}, b.Items); diff != "" {
		t.Errorf("case b items (an alias) mismatch (-want +got):\n%s", diff)
	}
	if b.Expect.Error != golden.KindContextType {
		t.Errorf("case b expect.error = %q, want %q", b.Expect.Error, golden.KindContextType)
	}
	// The request is the one ka2 build --request makes of the same items.
	rf, err := contract.ParseRequestFile("r.json", []byte(`{"items":[{"type":"tool_output","source":"tool:order_lookup","text":"Order A-104: 720 CNY, confirmed."},{"type":"memory","source":"memory:prefs","text":"Prefers hotels near the office."}],"promote":[{"item":0,"to":"evidence"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := a.Request()
	if diff := cmp.Diff(rf.Candidates(), req.Items); diff != "" {
		t.Errorf("Request().Items mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rf.Promote, req.Promote); diff != "" {
		t.Errorf("Request().Promote mismatch (-want +got):\n%s", diff)
	}
}

// TestTypedCases runs the typed-context case set as TestSampleCases runs
// the sample one: a promoted tool result is evidence in the golden, and the
// refusals are context_type goldens, so a change to the provenance rules
// fails here.
func TestTypedCases(t *testing.T) {
	const dir = "testdata/typed-cases"
	suite, err := golden.Load(context.Background(), []string{dir}, golden.LoadOptions{})
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	rep, err := golden.Run(context.Background(), suite, golden.Options{RejectUnreferenced: true, Update: updating(), Prune: updating()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var b strings.Builder
		rep.WriteText(&b, nil)
		t.Fatalf("the typed cases do not pass (refresh intended changes with go test ./golden -update):\n%s", b.String())
	}
	got := map[string]string{}
	for _, f := range rep.Files {
		for _, c := range f.Cases {
			got[c.Name] = c.Outcome
		}
	}
	want := map[string]string{
		"tool-result-promoted-to-evidence":         "contract",
		"failed-tool-result-is-not-evidence":       "context_type",
		"tool-result-cannot-become-an-instruction": "context_type",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes mismatch (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(filepath.Join(dir, "testdata", "golden", "typed", "tool-result-promoted-to-evidence.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"source_id": "tool:order_lookup"`) || !strings.Contains(string(data), `"memory": [`) {
		t.Errorf("the promoted case's golden lacks the promoted evidence or the memory item:\n%s", data)
	}
}

// TestCaseSubjects: a case takes a request document's subjects as well as
// subject, its own over the defaults'.
func TestCaseSubjects(t *testing.T) {
	f, err := golden.ParseFile("c.yaml", []byte("defaults: {subjects: [lodging, rail]}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n  - {name: b, question: q, subject: meals, dates: [2026-01-01]}\n  - {name: c, question: q, subjects: [taxi], dates: [2026-01-01]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, c := range f.Cases {
		got = append(got, c.Subjects)
	}
	if diff := cmp.Diff([][]string{{"lodging", "rail"}, {"meals"}, {"taxi"}}, got); diff != "" {
		t.Errorf("subjects mismatch (-want +got):\n%s", diff)
	}
}

// TestCaseContent: a case names a content file as ka2.yaml does, relative
// to the case file, and one that cannot be loaded is reported at its key.
func TestCaseContent(t *testing.T) {
	f, err := golden.ParseFile("suite/meals.yaml", []byte("defaults: {content: ../ka2-context-content.yaml, subject: s}\ncases:\n  - {name: a, question: q, dates: [2026-01-01]}\n  - {name: b, question: q, dates: [2026-01-01], content: own.yaml}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Cases[0].Config.Content, "ka2-context-content.yaml"; got != want {
		t.Errorf("case a content = %q, want %q", got, want)
	}
	if got, want := f.Cases[1].Config.Content, "suite/own.yaml"; got != want {
		t.Errorf("case b content = %q, want %q", got, want)
	}
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "cases", "a.yaml"), "cases:\n  - name: one\n    question: q\n    subject: lodging\n    dates: [2026-01-01]\n    content: missing.yaml\n")
	t.Chdir(dir)
	_, err = golden.Load(context.Background(), []string{"cases"}, golden.LoadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "cases/a.yaml:6:14: content cases/missing.yaml cannot be loaded: read contract content: ") {
		t.Errorf("Load() error = %v, want the content key's position and file", err)
	}
}
