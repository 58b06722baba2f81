package contract_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

func boolPtr(b bool) *bool { return &b }

func TestParseRequestFile(t *testing.T) {
	full := `{
  "subject": "lodging",
  "dates": ["2026-09-14"],
  "question": "Is order A-104 within the limit?",
  "lang": "en",
  "short": true,
  "items": [
    {"type": "memory", "source": "memory:prefs", "text": "Prefers hotels near the office."},
    {"type": "tool_output", "source": "tool:order_lookup", "text": "Order A-104: 720 CNY, confirmed."},
    {"type": "instruction", "source": "system", "text": "Say whether the order is within the limit."}
  ],
  "promote": [{"item": 1, "to": "evidence"}]
}`
	got, err := contract.ParseRequestFile("req.json", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	want := &contract.RequestFile{
		Subject: "lodging", Dates: []string{"2026-09-14"}, Question: "Is order A-104 within the limit?", Lang: "en", Short: boolPtr(true),
		Items: []contract.RequestItem{
			{Type: provenance.KindMemory, Source: "memory:prefs", Text: "Prefers hotels near the office."},
			{Type: provenance.KindToolOutput, Source: "tool:order_lookup", Text: "Order A-104: 720 CNY, confirmed."},
			{Type: provenance.KindInstruction, Source: "system", Text: "Say whether the order is within the limit."},
		},
		Promote: []contract.Promotion{{Item: 1, To: provenance.KindEvidence}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseRequestFile() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lodging"}, got.SubjectList()); diff != "" {
		t.Errorf("SubjectList() mismatch (-want +got):\n%s", diff)
	}
	cands := got.Candidates()
	if len(cands) != 3 || cands[1].Kind != provenance.KindToolOutput || cands[1].ID != provenance.ContentID(cands[1].Text) || cands[1].Key != "" {
		t.Errorf("Candidates() = %+v", cands)
	}
}

func TestParseRequestFileErrors(t *testing.T) {
	tests := []struct {
		name string
		json string
		want string // the whole message
	}{
		{"empty", ``, `req.json:1:1: the request ends early; close every { and [`},
		{"not an object", `["lodging"]`, `req.json:1:1: the request must be a JSON object {…}; write {"subject": …, "dates": […], "question": …}`},
		{"unknown key", "{\n  \"subject\": \"lodging\",\n  \"subjcet\": \"x\"\n}", `req.json:3:3: unknown key "subjcet"; the keys are capacity, counter, dates, items, lang, promote, provider, question, require_evidence, reserve, short, subject, subjects`},
		{"unknown item key", `{"items": [{"type": "memory", "source": "memory:p", "text": "x", "trust": "high"}]}`, `req.json:1:66: items[0]: unknown key "trust"; the keys are source, text, type`},
		{"unknown promote key", `{"items": [{"type": "memory", "source": "memory:p", "text": "x"}], "promote": [{"item": 0, "as": "evidence"}]}`, `req.json:1:92: promote[0]: unknown key "as"; the keys are item, to`},
		{"repeated key", `{"question": "a", "question": "b"}`, `req.json:1:19: key "question" appears twice; keep one`},
		{"more after the object", `{"question": "a"} {}`, `req.json:1:19: there is more after the request object; keep one JSON object in the file`},
		{"syntax", `{"question": "a",}`, `req.json:1:18: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"wrong type", `{"short": "yes"}`, `req.json:1:2: short: want true or false, not a JSON string`},
		{"wrong item field type", `{"items": [{"type": "memory", "source": "memory:p", "text": 7}]}`, `req.json:1:53: items[0].text: want a string, not a JSON number`},
		{"date with time", `{"dates": ["2026-01-01T00:00:00Z"]}`, `req.json:1:2: dates: "2026-01-01T00:00:00Z": ka2 compares civil dates: write the date as YYYY-MM-DD, without a time or zone`},
		{"subject and subjects", `{"subject": "a", "subjects": ["b"]}`, `req.json:1:18: subjects: give "subject" or "subjects", not both`},
		{"evidence item", `{"items": [{"type": "evidence", "source": "corpus:travel-v2", "text": "750"}]}`, `req.json:1:12: items[0]: type "evidence": a request may add instruction, memory or tool_output items; evidence comes from the corpus, or from a tool_output item through promote`},
		{"bad source", `{"items": [{"type": "tool_output", "source": "tool:Order Lookup", "text": "x"}]}`, `req.json:1:12: items[0]: source "tool:Order Lookup": the name after "tool:" must be lowercase letters, digits, '.', '_' or '-'`},
		{"empty text", `{"items": [{"type": "memory", "source": "memory:p", "text": " "}]}`, `req.json:1:12: items[0]: the text is empty`},
		{"promote out of range", `{"items": [{"type": "memory", "source": "memory:p", "text": "x"}], "promote": [{"item": 1, "to": "evidence"}]}`, `req.json:1:80: promote[0]: item 1: the request has 1 item, numbered from 0`},
		{"the same promotion twice", `{"items": [{"type": "tool_output", "source": "tool:t", "text": "x"}], "promote": [{"item": 0, "to": "evidence"}, {"item": 0, "to": "evidence"}]}`, `req.json:1:114: promote[1]: promote[0] already promotes item 0 to evidence; remove one of the two`},
		{"promote to unknown type", `{"items": [{"type": "memory", "source": "memory:p", "text": "x"}], "promote": [{"item": 0, "to": "fact"}]}`, `req.json:1:80: promote[0]: to: "fact" is not a context type: use one of instruction, example, memory, evidence, tool_output, scope, question`},
		{"invalid UTF-8", "{\"question\": \"caf\xe9\"}", `req.json:1:18: question: invalid text: invalid UTF-8 byte 0xe9; encode the text as UTF-8`},
		{"lone surrogate in the question", `{"question": "\ud800"}`, `req.json:1:15: question: invalid text: lone UTF-16 surrogate escape \ud800 (a high surrogate without its low half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"lone surrogate in an item", "{\"items\": [\n  {\"type\": \"memory\", \"source\": \"memory:p\", \"text\": \"x\\udc00\"}]}", `req.json:2:54: items[0].text: invalid text: lone UTF-16 surrogate escape \udc00 (a low surrogate without its high half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"lone surrogate in a subject", `{"subjects": ["lodging", "\udbff"]}`, `req.json:1:27: subjects[1]: invalid text: lone UTF-16 surrogate escape \udbff (a high surrogate without its low half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := contract.ParseRequestFile("req.json", []byte(tt.json))
			if err == nil {
				t.Fatal("ParseRequestFile() accepted the request")
			}
			if !errors.Is(err, contract.ErrBadRequest) {
				t.Errorf("errors.Is(err, ErrBadRequest) = false for %v", err)
			}
			var re *contract.RequestError
			if !errors.As(err, &re) || re.Line < 1 {
				t.Errorf("error %v is not a located *RequestError", err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("ParseRequestFile() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseRequestFile: the request parser never panics, every failure is
// a located bad-request error, and what it accepts survives a round trip.
func FuzzParseRequestFile(f *testing.F) {
	for _, s := range []string{
		`{"subject":"lodging","dates":["2026-09-14"],"question":"q","lang":"en"}`,
		`{"subjects":["a","b"],"short":true,"require_evidence":false}`,
		`{"items":[{"type":"tool_output","source":"tool:order_lookup","text":"Order A-104: ok"}],"promote":[{"item":0,"to":"evidence"}]}`,
		`{"items":[{"type":"memory","source":"memory:p","text":"x","extra":1}]}`,
		`{"question":"a","question":"b"}`,
		`{"items":[1,[2],{"type":null}]}`,
		`{"a":{"b":[{"c":"\""}]}}`,
		"{\"question\": \"\\u00e9\\ud800\"}",
		`{"items":[{"type":"memory","source":"memory:p","text":"\udc00x"}]}`,
		`{"subjects":["\ud83d\ude00","\ud83d"]}`,
		"{\"question\": \"caf\xe9\"}",
		`[]`, ``, `{} {}`, `{"short":"yes"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rf, err := contract.ParseRequestFile("fuzz.json", data)
		if err != nil {
			var re *contract.RequestError
			if !errors.As(err, &re) || !errors.Is(err, contract.ErrBadRequest) || re.Line < 1 || re.Col < 1 || re.Msg == "" {
				t.Fatalf("error %v (%T) is not a located bad request", err, err)
			}
			return
		}
		again, err := json.Marshal(rf)
		if err != nil {
			t.Fatal(err)
		}
		rf2, err := contract.ParseRequestFile("again.json", again)
		if err != nil {
			t.Fatalf("re-encoded request %s does not parse: %v", again, err)
		}
		if diff := cmp.Diff(rf, rf2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip mismatch (-first +second):\n%s", diff)
		}
		if len(rf.Candidates()) != len(rf.Items) {
			t.Fatal("Candidates() lost items")
		}
		for _, p := range rf.Promote {
			if p.Item < 0 || p.Item >= len(rf.Items) {
				t.Fatalf("promotion %+v out of range", p)
			}
		}
	})
}

// TestParseRequestFileEveryProblem: every problem in a request is
// reported, in the order of their positions, not only the first.
func TestParseRequestFileEveryProblem(t *testing.T) {
	_, err := contract.ParseRequestFile("req.json", []byte("{\n  \"subjcet\": \"x\",\n  \"short\": \"yes\",\n  \"items\": [{\"type\": \"evidence\", \"source\": \"corpus:a\", \"text\": \"x\"}],\n  \"short\": true\n}"))
	want := "req.json:2:3: unknown key \"subjcet\"; the keys are capacity, counter, dates, items, lang, promote, provider, question, require_evidence, reserve, short, subject, subjects\n" +
		"req.json:3:3: short: want true or false, not a JSON string\n" +
		"req.json:4:13: items[0]: type \"evidence\": a request may add instruction, memory or tool_output items; evidence comes from the corpus, or from a tool_output item through promote\n" +
		"req.json:5:3: key \"short\" appears twice; keep one"
	if diff := cmp.Diff(want, fmt.Sprint(err)); diff != "" {
		t.Errorf("ParseRequestFile() error mismatch (-want +got):\n%s", diff)
	}
	var re *contract.RequestError
	if !errors.As(err, &re) || re.Line != 2 || !errors.Is(err, contract.ErrBadRequest) {
		t.Errorf("errors.As finds %v, want the first problem, a bad request", re)
	}
}
