package contract_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// sampleContract builds the contract ka2 build prints for lodging on
// 2026-09-14.
func sampleContract(t *testing.T) string {
	t.Helper()
	b, err := contract.Config{Corpus: corpus.Embedded()}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := corpus.ParseDate("2026-09-14")
	res, err := b.Build(context.Background(), contract.Request{Query: selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{d}, Lang: "en"}, Question: "What is the limit?"})
	if err != nil {
		t.Fatal(err)
	}
	return string(res.JSON)
}

// TestReadContract: the one strict reader of a contract refuses what two
// JSON readers could read two ways (repeated keys, keys that differ only
// in case), what is not a contract (the definition file, unknown keys,
// wrong types, what the schema refuses) and quotes that disagree with
// their ranges, each at its line and column.
func TestReadContract(t *testing.T) {
	good := sampleContract(t)
	if _, err := contract.ReadContract("c.json", []byte(good+"\n")); err != nil {
		t.Fatalf("ReadContract(what ka2 build printed) = %v", err)
	}
	c, err := contract.ReadContract("c.json", []byte(strings.Replace(good, `"template":"ka2-context-v1"`, `"template":"ka2-context-v1+hostile"`, 1)))
	if err != nil || c.Template != "ka2-context-v1+hostile" {
		t.Errorf("ReadContract(an eval variant) = %v, %v; want it read with its template", c, err)
	}
	noExample := strings.Replace(good, `"template":"ka2-context-v1"`, `"template":"ka2-context-v1+no_example"`, 1)
	noExample = noExample[:strings.Index(noExample, `"example":`)] + noExample[strings.Index(noExample, `"evidence":`):]
	if _, err := contract.ReadContract("c.json", []byte(noExample)); err != nil {
		t.Errorf("ReadContract(a variant without its example) = %v", err)
	}
	if _, err := contract.ReadContract("c.json", []byte(strings.Replace(noExample, "+no_example", "", 1))); err == nil || !strings.Contains(err.Error(), "missing property 'example'") {
		t.Errorf("ReadContract(a contract without its example) = %v, want the schema's missing example", err)
	}
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("the sample contract has no %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	const ev = `"evidence":[{"source_id":"travel-v2","version":"v2","valid_from":"2026-01-01","line_start":1,"line_end":1,"quote":"The limit is 750 CNY."}]`
	tests := []struct{ name, doc, want string }{
		{"the definition file", string(ka2.ContractJSON), `c.json:1:1: contract: this is a contract definition (it has fields and an output_schema), not a contract; pass the contract ka2 build printed, not the contract definition`},
		{"a definition without its schema", strings.Replace(string(ka2.ContractJSON), `"output_schema"`, `"schema"`, 1), `c.json:3:3: contract: the contract has no key "description"`},
		{"repeated key", `{"template":"ka2-context-v1","question":"a","question":"b"}`,
			`c.json:1:45: contract: key "question" repeats the one at 1:30; keep one: JSON readers differ on which of the two values a repeated key means`},
		{"case variant of evidence", replace(`"scope":`, `"Evidence":[{"source_id":"travel-v2","version":"v2","line_start":3,"line_end":3,"quote":"The lodging limit is 999 CNY per room-night."}],"scope":`),
			`contract: key "Evidence" differs only in case from "evidence" at 1:`},
		{"case variant in a record", replace(`"quote":`, `"Quote":"x","quote":`), `contract: key "quote" differs only in case from "Quote" at 1:`},
		{"unknown key", replace(`"question":"What is the limit?"}`, `"answer":"750","question":"What is the limit?"}`), `contract: the contract has no key "answer"`},
		{"wrong type", replace(`"line_start":1`, `"line_start":"1"`), `contract: line_start holds string 1, want a whole number`},
		{"number where a string belongs", replace(`"version":"v2"`, `"version":2`), `contract: version holds number, want a string`},
		{"schema: wrong template", replace(`"template":"ka2-context-v1"`, `"template":"other"`), `c.json:1:13: contract: /template does not validate against the schema of ka2-context-v1`},
		{"schema: no scope", `{"template":"ka2-context-v1","instruction":"i","example":{"question":"q","answer":"a"},` + ev + `,"question":"q"}`,
			`c.json:1:1: contract: / does not validate against the schema of ka2-context-v1: missing property 'scope'`},
		{"schema: a role that is not one", replace(`"line_start":1`, `"role":"primary","line_start":1`), `/evidence/0/role does not validate`},
		{"invalid text", "{\"template\":\"ka2-context-v1\",\"question\":\"caf\xe9\"}", `c.json:1:45: contract: question: invalid text: invalid UTF-8 byte 0xe9; encode the text as UTF-8`},
		{"ends early", `{"template":"ka2-context-v1"`, `c.json:1:29: contract: not JSON: the document ends early`},
		{"two values", `{"template":"t"} {}`, `c.json:1:18: contract: more than one JSON value`},
		{"not an object", `[]`, `c.json:1:1: contract: the contract is not a JSON object`},
		{"quote and lines disagree", replace(`"line_end":5`, `"line_end":6`), `contract: evidence[0] (travel-v2): the quote has 5 line(s) but lines 1-6 are 6`},
		{"bad scope date", replace(`"dates":["2026-09-14"]`, `"dates":["2026-02-30"]`), `contract: scope: date `},
		{"serves a subject not asked", replace(`"line_start":1`, `"serves":["meals"],"line_start":1`), `contract: evidence[0] (travel-v2) serves "meals", which the scope does not ask`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := contract.ReadContract("c.json", []byte(tt.doc))
			if !errors.Is(err, contract.ErrBadContract) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadContract() = %v, want ErrBadContract containing %q", err, tt.want)
			}
		})
	}
}

// TestReadContractFields: the reader fills every field a build writes,
// role and serves included.
func TestReadContractFields(t *testing.T) {
	doc := `{"template":"ka2-context-v1","instruction":"i","example":{"question":"q","answer":"a"},"memory":[{"source":"memory:notes","text":"m"}],` +
		`"evidence":[{"source_id":"meals","version":"v1","valid_from":"2026-01-01","valid_until":"2027-01-01","unit":"CNY per day","role":"supplement","serves":["meals"],"line_start":2,"line_end":3,"quote":"a\nb"}],` +
		`"tool_output":[{"source":"tool:x","text":"t"}],"scope":{"subjects":["meals","lodging"],"dates":["2026-09-14"]},"question":"q?"}`
	got, err := contract.ReadContract("c.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &contract.Document{Template: "ka2-context-v1", Instruction: "i", Memory: []contract.TextRecord{{Source: "memory:notes", Text: "m"}},
		Evidence: []contract.EvidenceRecord{{SourceID: "meals", Version: "v1", ValidFrom: "2026-01-01", ValidUntil: "2027-01-01", Unit: "CNY per day",
			Role: "supplement", Serves: []string{"meals"}, LineStart: 2, LineEnd: 3, Quote: "a\nb"}},
		ToolOutput: []contract.TextRecord{{Source: "tool:x", Text: "t"}}, Scope: &contract.ScopeRecord{Subjects: []string{"meals", "lodging"}, Dates: []string{"2026-09-14"}}, Question: "q?"}
	want.Example.Question, want.Example.Answer = "q", "a"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadContract() mismatch (-want +got):\n%s", diff)
	}
}

// FuzzReadContract checks that no text makes the strict reader panic, and
// that what it reads it reads the same way twice.
func FuzzReadContract(f *testing.F) {
	f.Add(`{"template":"ka2-context-v1","instruction":"i","example":{"question":"q","answer":"a"},"evidence":[{"source_id":"a","version":"v1","valid_from":"2026-01-01","serves":["x"],"line_start":1,"line_end":1,"quote":"q"}],"scope":{"subjects":["x","y"],"dates":["2026-09-14"]},"question":"q"}`)
	f.Add(`{"template":"ka2-context-v1","Template":"x"}`)
	f.Add(`{"evidence":[{"Quote":"a","quote":"b"}]}`)
	f.Add(`[1, ?]`)
	f.Fuzz(func(t *testing.T, doc string) {
		a, errA := contract.ReadContract("c.json", []byte(doc))
		b, errB := contract.ReadContract("c.json", []byte(doc))
		if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) || !cmp.Equal(a, b) {
			t.Fatalf("ReadContract(%q) differs between two reads: %v, %v", doc, errA, errB)
		}
		if errA != nil && !errors.Is(errA, contract.ErrBadContract) {
			t.Fatalf("ReadContract(%q) = %v, not ErrBadContract", doc, errA)
		}
	})
}
