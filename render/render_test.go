package render_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/render"
	"github.com/ka2/ka2/selector"
)

func build(t *testing.T, counter string, framing contract.Framing, lang string, dates ...string) *contract.Result {
	t.Helper()
	b, err := contract.Config{Corpus: corpus.Embedded(), Counter: counter}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	b.Framing = framing
	q := selector.Query{Subjects: []string{"lodging"}, Lang: lang}
	for _, d := range dates {
		day, err := corpus.ParseDate(d)
		if err != nil {
			t.Fatal(err)
		}
		q.Dates = append(q.Dates, day)
	}
	res, err := b.Build(context.Background(), contract.Request{Query: q, Question: "What is the Beijing lodging limit? <b>&</b>"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// documented counts messages as the openai-cookbook recipe "How to count
// tokens with tiktoken" does for gpt-3.5-turbo / gpt-4 style models:
// tokens_per_message = 3, every value of every message encoded, and 3 for
// the reply priming.
func documented(c budget.Counter, msgs []render.ChatMessage) int {
	n := 0
	for _, m := range msgs {
		n += 3
		n += c.Count(m.Role)
		n += c.Count(m.Content)
	}
	return n + 3
}

func TestOpenAIChatCountsTheRenderedMessages(t *testing.T) {
	p := render.OpenAIChat{}
	for _, counter := range []string{"o200k_base", "cl100k_base"} {
		for _, tc := range []struct {
			lang  string
			dates []string
		}{{"en", []string{"2026-09-14"}}, {"zh", []string{"2026-09-14"}}, {"en", []string{"2024-05-01"}}} {
			t.Run(counter+"/"+tc.lang+"/"+strings.Join(tc.dates, ","), func(t *testing.T) {
				res := build(t, counter, p, tc.lang, tc.dates...)
				c, err := budget.Lookup(counter)
				if err != nil {
					t.Fatal(err)
				}
				msgs, err := p.Messages(res.JSON)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := res.Budget.Total, documented(c, msgs); got != want {
					t.Errorf("budget total = %d, want the documented count of the rendered messages %d", got, want)
				}
				// "system" and "user" are one token each in both encodings.
				if res.Budget.Wrapper != 11 {
					t.Errorf("wrapper = %d, want 3+1+3+1+3 = 11", res.Budget.Wrapper)
				}
				sum := 0
				for _, part := range res.Budget.Parts {
					sum += part.Cost
				}
				if sum != res.Budget.Total {
					t.Errorf("parts add up to %d, total is %d", sum, res.Budget.Total)
				}
				// The parts recovered from the printed contract count the same.
				spans, err := render.Spans(res.JSON, render.FieldKinds(contract.Default()))
				if err != nil {
					t.Fatal(err)
				}
				again, err := p.Account(c, string(res.JSON), spans, res.Budget.Limits)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(res.Budget, again); diff != "" {
					t.Errorf("Account over recovered spans mismatch (-build +recovered):\n%s", diff)
				}
			})
		}
	}
}

func TestOpenAIChatRequest(t *testing.T) {
	res := build(t, "o200k_base", nil, "en", "2026-09-14")
	body, err := render.OpenAIChat{}.Request(append(res.JSON, '\n'), render.Options{Model: "gpt-4o", MaxTokens: res.Budget.Reserve})
	if err != nil {
		t.Fatal(err)
	}
	var got render.ChatRequest
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	// The system message is the embedded English instruction; the user
	// message is the contract without it, every other key in its place.
	instruction := contract.Default().Content["en"].Instruction
	withInstruction := `{"template":"ka2-context-v1","instruction":` + mustJSON(instruction) + `,"example":`
	if !strings.HasPrefix(string(res.JSON), withInstruction) {
		t.Fatalf("contract does not start with the template and the instruction: %s", res.JSON)
	}
	user := `{"template":"ka2-context-v1","example":` + string(res.JSON[len(withInstruction):])
	want := render.ChatRequest{Model: "gpt-4o", MaxTokens: 512, Messages: []render.ChatMessage{{Role: "system", Content: instruction}, {Role: "user", Content: user}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Request mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(body), "<b>&</b>") {
		t.Errorf("Request escapes HTML: %s", body)
	}
}

func TestOpenAIChatRefusesCodepoints(t *testing.T) {
	res := build(t, "codepoint", nil, "en", "2026-09-14")
	spans, err := render.Spans(res.JSON, render.FieldKinds(contract.Default()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = render.OpenAIChat{}.Account(budget.Codepoint, string(res.JSON), spans, res.Budget.Limits)
	const want = "provider openai-chat counts tokens: use a token counter (cl100k_base or o200k_base), not codepoint"
	if err == nil || err.Error() != want {
		t.Errorf("Account with codepoint: err = %v, want %q", err, want)
	}
}

func TestLookup(t *testing.T) {
	if _, err := render.Lookup("openai-chat"); err != nil {
		t.Fatal(err)
	}
	_, err := render.Lookup("anthropic")
	if err == nil || err.Error() != `unknown provider "anthropic": use one of openai-chat` {
		t.Errorf("Lookup(anthropic) = %v", err)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}
