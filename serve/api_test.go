package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/grade"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/render"
	"github.com/ka2/ka2/selector"
	"github.com/ka2/ka2/serve"
)

// comparison asks about two dates: over the default budget of 1600 code
// points, as two whole versions of the lodging policy are.
const comparison = `"subject":"lodging","dates":["2025-09-14","2026-09-14"],"question":"How did the Beijing lodging limit change between 2025 and 2026?"`

// builtWith builds the request body in process with the budget of cfg
// (and the provider's framing, if one is named), as `ka2 build
// --request` would print it.
func builtWith(t *testing.T, cfg contract.Config, provider, body string) []byte {
	t.Helper()
	cfg.Corpus = corpus.Embedded()
	b, err := cfg.Builder()
	if err != nil {
		t.Fatal(err)
	}
	if provider != "" {
		if b.Framing, err = render.Lookup(provider); err != nil {
			t.Fatal(err)
		}
	}
	rf, err := contract.ParseRequestFile("request", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req, err := contract.Settings{Lang: "en"}.Apply(rf).Request(rf)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), req)
	if err != nil {
		t.Fatalf("Build() = %v", err)
	}
	var buf bytes.Buffer
	res.WriteTo(&buf)
	return buf.Bytes()
}

func intp(i int) *int { return &i }

// TestRequestBudget: a request's counter, capacity, reserve and provider
// build what `ka2 build` builds with the same flags, within the server's
// bounds; outside them is a 400 naming the field and the bound.
func TestRequestBudget(t *testing.T) {
	r := start(t, serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}, MaxCapacity: 5000,
		Counters: []string{"codepoint", "o200k_base"}})
	ok := []struct {
		name     string
		body     string
		cfg      contract.Config
		provider string
	}{
		{"capacity", `{` + comparison + `,"capacity":4000}`, contract.Config{Capacity: intp(4000)}, ""},
		{"capacity at the bound", `{` + comparison + `,"capacity":5000}`, contract.Config{Capacity: intp(5000)}, ""},
		{"capacity and reserve", `{` + comparison + `,"capacity":2000,"reserve":10}`, contract.Config{Capacity: intp(2000), Reserve: intp(10)}, ""},
		{"the server's counter named", `{` + comparison + `,"counter":"codepoint","capacity":3000}`, contract.Config{Capacity: intp(3000)}, ""},
		{"another counter, its own limits", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"o200k_base"}`,
			contract.Config{Counter: "o200k_base"}, ""},
		{"provider counts its framing", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"o200k_base","provider":"openai-chat"}`,
			contract.Config{Counter: "o200k_base"}, "openai-chat"},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			got := r.post(t, "/v1/contract", tt.body)
			if got.status != http.StatusOK {
				t.Fatalf("status %d, want 200; body %s", got.status, got.body)
			}
			if diff := cmp.Diff(string(builtWith(t, tt.cfg, tt.provider, tt.body)), string(got.body)); diff != "" {
				t.Errorf("contract mismatch (-ka2 build +serve):\n%s", diff)
			}
		})
	}
	// At the capacity the wrapper's count just fits, the provider's
	// framing does not: the request's provider decides the count.
	b, err := contract.Config{Corpus: corpus.Embedded(), Counter: "o200k_base"}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), contract.Request{Query: selector.Query{Subjects: []string{"lodging"}, Dates: []corpus.Date{corpus.MustParseDate("2026-09-14")}, Lang: "en"}, Question: "q"})
	if err != nil {
		t.Fatal(err)
	}
	edge := fmt.Sprintf(`{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"o200k_base","capacity":%d,"reserve":%d`, res.Budget.Total+b.Limits.Reserve, b.Limits.Reserve)
	if got := r.post(t, "/v1/contract", edge+`}`); got.status != http.StatusOK {
		t.Errorf("at the edge with the wrapper: status %d, want 200; body %s", got.status, got.body)
	}
	if got := r.post(t, "/v1/contract", edge+`,"provider":"openai-chat"}`); got.status != http.StatusUnprocessableEntity {
		t.Errorf("at the edge with openai-chat's framing: status %d, want 422; body %s", got.status, got.body)
	} else if e := errorBody(t, got.body); e.Budget == nil || e.Budget.Wrapper == b.Limits.Wrapper {
		t.Errorf("budget = %+v, want openai-chat's framing as the wrapper, not the definition's %d", e.Budget, b.Limits.Wrapper)
	}

	bad := []struct {
		name, body    string
		status        int
		kind, message string
	}{
		{"over budget names the field", `{` + comparison + `}`, 422, "budget_exceeded", `raise "capacity", lower "reserve"`},
		{"capacity one over the bound", `{` + comparison + `,"capacity":5001}`, 400, "bad_request", `capacity 5001 is over this server's maximum of 5000`},
		{"capacity over the bound says it", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","capacity":9000}`, 400, "bad_request", `request:1:60: capacity: capacity 9000 is over this server's maximum of 5000; ask for at most 5000`},
		{"counter not allowed", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"cl100k_base"}`, 400, "bad_request",
			`counter: counter "cl100k_base" is not one this server counts with; use one of codepoint, o200k_base`},
		{"counter unknown", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"words"}`, 400, "bad_request", `counter "words" is not one`},
		{"reserve not below capacity", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","capacity":300,"reserve":300}`, 400, "bad_request",
			`reserve: reserve 300 is out of range 0..299: it must be smaller than the capacity 300; give a "reserve" below 300, or a larger "capacity"`},
		{"capacity below the default reserve", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","capacity":100}`, 400, "bad_request", `capacity: reserve 200 is out of range 0..99`},
		{"capacity zero", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","capacity":0}`, 400, "bad_request", `capacity 0 is out of range 1..100000000`},
		{"capacity not a whole number", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","capacity":12.5}`, 400, "bad_request", `capacity: want a whole number, not a JSON number 12.5`},
		{"provider with code points", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","provider":"openai-chat"}`, 400, "bad_request",
			`provider: provider openai-chat counts tokens, and the counter is codepoint; set "counter" to o200k_base or cl100k_base`},
		{"provider unknown", `{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"o200k_base","provider":"telex"}`, 400, "bad_request", `unknown provider "telex"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			got := r.post(t, "/v1/contract", tt.body)
			if got.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", got.status, tt.status, got.body)
			}
			e := errorBody(t, got.body)
			if e.Kind != tt.kind || !strings.Contains(e.Message, tt.message) {
				t.Errorf("error = %s: %s\nwant %s containing %q", e.Kind, e.Message, tt.kind, tt.message)
			}
		})
	}
}

// contractFor builds a contract through the service.
func contractFor(t *testing.T, r *running, body string) []byte {
	t.Helper()
	got := r.post(t, "/v1/contract", body)
	if got.status != http.StatusOK {
		t.Fatalf("POST /v1/contract: status %d; body %s", got.status, got.body)
	}
	return bytes.TrimSuffix(got.body, []byte("\n"))
}

// TestGrade: POST /v1/grade gives the findings grade.Grade gives, as
// `ka2 grade --format json` prints them.
func TestGrade(t *testing.T) {
	r := start(t, serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}})
	c := contractFor(t, r, `{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`)
	doc, err := contract.ReadContract("contract", c)
	if err != nil {
		t.Fatal(err)
	}
	opts := grade.OptionsFor(contract.Default())
	for _, answer := range []string{
		"The limit is 750 CNY per room-night [travel-v2:3].",
		"The limit is 990 CNY per room-night [travel-v2:3].",
		"The limit is 750 CNY.",
		"",
	} {
		t.Run(answer, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"contract": json.RawMessage(c), "answer": answer})
			got := r.post(t, "/v1/grade", string(body))
			if got.status != http.StatusOK {
				t.Fatalf("status %d; body %s", got.status, got.body)
			}
			want, _ := json.Marshal(grade.Grade(doc, answer, opts))
			if diff := cmp.Diff(string(want)+"\n", string(got.body)); diff != "" {
				t.Errorf("grade mismatch (-grade.Grade +serve):\n%s", diff)
			}
		})
	}
	// A client that re-encodes the contract (indented, keys in another
	// order) sends the same records: it is graded, not refused as
	// unconfirmed.
	var asMap map[string]any
	if err := json.Unmarshal(c, &asMap); err != nil {
		t.Fatal(err)
	}
	reencoded, err := json.MarshalIndent(asMap, "", "  ") // keys sorted
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"contract": json.RawMessage(reencoded), "answer": "The limit is 750 CNY per room-night [travel-v2:3]."})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.post(t, "/v1/grade", string(body)); got.status != http.StatusOK {
		t.Errorf("a re-encoded contract: status %d; body %s", got.status, got.body)
	}
	// The variants must not all agree, or the loop checks one report.
	a, _ := json.Marshal(grade.Grade(doc, "The limit is 750 CNY per room-night [travel-v2:3].", opts))
	b, _ := json.Marshal(grade.Grade(doc, "The limit is 990 CNY per room-night [travel-v2:3].", opts))
	if bytes.Equal(a, b) {
		t.Error("a supported and an unsupported amount grade the same")
	}

	// A contract the serving corpus does not confirm is not graded, so no
	// ok rests on a quote no source says: a changed amount, a record
	// dropped, a source of another corpus.
	forged := bytes.Replace(c, []byte("750 CNY"), []byte("990 CNY"), 1)
	dropped := bytes.Replace(c, []byte(`"scope":{"subjects":["lodging"],"dates":["2026-09-14"]}`), []byte(`"scope":{"subjects":["lodging"],"dates":["2025-09-14","2026-09-14"]}`), 1)
	foreign, err := json.Marshal(conflictingContract())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(forged, c) || bytes.Equal(dropped, c) {
		t.Fatal("the edits changed nothing")
	}
	bad := []struct{ name, body, message string }{
		{"forged amount", `{"contract":` + string(forged) + `,"answer":"The limit is 990 CNY per room-night [travel-v2:3]."}`, `the contract does not verify against the serving corpus, so the answer is not graded (POST /v1/verify gives the whole report): `},
		{"record missing", `{"contract":` + string(dropped) + `,"answer":"The limit is 750 CNY per room-night [travel-v2:3]."}`, `selection_missing`},
		{"another corpus", `{"contract":` + string(foreign) + `,"answer":"The limit is 800 CNY per room-night [travel-x:1]."}`, `travel-x`},
		{"no answer", `{"contract":` + string(c) + `}`, `"answer" is required`},
		{"no contract", `{"answer":"x"}`, `"contract" is required`},
		{"unknown key", `{"contract":` + string(c) + `,"answer":"x","verbose":true}`, `request:1:`},
		{"answer not a string", `{"contract":` + string(c) + `,"answer":3}`, `answer: want a JSON string, not a JSON number`},
		{"contract not an object", `{"contract":"{}","answer":"x"}`, `contract: want a JSON object, not a JSON string`},
		{"contract not a contract", `{"contract":{"template":"ka2-context-v1"},"answer":"x"}`, `contract:1:1:`},
		{"not JSON", `{"contract":`, `request:1:13: invalid JSON`},
		{"not an object", `[]`, `the body must be a JSON object`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			got := r.post(t, "/v1/grade", tt.body)
			if got.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", got.status, got.body)
			}
			if e := errorBody(t, got.body); e.Kind != "bad_request" || !strings.Contains(e.Message, tt.message) {
				t.Errorf("error = %s: %s, want bad_request containing %q", e.Kind, e.Message, tt.message)
			}
		})
	}
}

// conflictingContract is a well-formed contract whose second record no
// source of the sample says.
func conflictingContract() *contract.Document {
	en := contract.Default().Content["en"]
	return &contract.Document{
		Template: "ka2-context-v1", Instruction: en.Instruction,
		Example: provenance.Example{Question: en.Example.Question, Answer: en.Example.Answer},
		Evidence: []contract.EvidenceRecord{
			{SourceID: "travel-v2", Version: "v2", ValidFrom: "2026-01-01", Unit: "CNY per room-night", LineStart: 3, LineEnd: 3, Quote: "The lodging limit is 750 CNY per room-night."},
			{SourceID: "travel-x", Version: "v1", ValidFrom: "2026-06-01", Unit: "CNY per room-night", LineStart: 1, LineEnd: 1, Quote: "The lodging limit is 800 CNY per room-night."},
		},
		Scope:    &contract.ScopeRecord{Subjects: []string{"lodging"}, Dates: []string{"2026-09-14"}},
		Question: "What is the Beijing lodging limit?",
	}
}

// TestRender: POST /v1/render gives the bytes `ka2 render` prints, and
// its errors are the service's.
func TestRender(t *testing.T) {
	r := start(t, serve.Config{Build: sample, Settings: contract.Settings{Lang: "en"}})
	c := contractFor(t, r, `{"subject":"lodging","dates":["2026-09-14"],"question":"q","counter":"o200k_base","provider":"openai-chat"}`)
	def := contract.Default()
	b, err := contract.Config{Corpus: corpus.Embedded(), Counter: "o200k_base"}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"", "gpt-4o"} {
		want, err := render.Body(def, render.OpenAIChat{}, c, b.Counter, b.Limits, render.Options{Model: model})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"contract": json.RawMessage(c), "provider": "openai-chat", "model": model})
		got := r.post(t, "/v1/render", string(body))
		if got.status != http.StatusOK {
			t.Fatalf("status %d; body %s", got.status, got.body)
		}
		if diff := cmp.Diff(string(want)+"\n", string(got.body)); diff != "" {
			t.Errorf("render mismatch (-render.Body +serve):\n%s", diff)
		}
	}
	bad := []struct {
		name, body string
		status     int
		kind, msg  string
	}{
		{"over budget", `{"contract":` + string(c) + `,"provider":"openai-chat","capacity":700,"reserve":600}`, 422, "budget_exceeded", `raise "capacity", lower "reserve"`},
		{"no provider", `{"contract":` + string(c) + `}`, 400, "bad_request", `"provider" is required`},
		{"unknown provider", `{"contract":` + string(c) + `,"provider":"telex"}`, 400, "bad_request", `provider: unknown provider "telex"`},
		{"code points", `{"contract":` + string(c) + `,"provider":"openai-chat","counter":"codepoint"}`, 400, "bad_request", `set "counter" to o200k_base`},
		{"capacity over the bound", `{"contract":` + string(c) + `,"provider":"openai-chat","capacity":2000000}`, 400, "bad_request", `over this server's maximum of 1000000`},
		{"broken contract", `{"contract":{"template":"x"},"provider":"openai-chat"}`, 400, "bad_request", `contract:1:`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			got := r.post(t, "/v1/render", tt.body)
			if got.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", got.status, tt.status, got.body)
			}
			if e := errorBody(t, got.body); e.Kind != tt.kind || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("error = %s: %s, want %s containing %q", e.Kind, e.Message, tt.kind, tt.msg)
			}
		})
	}
}
