package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/provenance"
)

// OpenAIChat renders a contract as an OpenAI Chat Completions request:
// the instruction as the system message, the rest of the contract (compact
// JSON, the instruction member left out) as the user message, and
// max_tokens set to the reserve. llama.cpp's server, vLLM, Ollama and the
// hosted APIs that speak Chat Completions all take it.
//
// Its accounting is OpenAI's documented one for its chat models (the
// openai-cookbook recipe "How to count tokens with tiktoken"): every
// message costs 3 tokens of framing plus the tokens of each of its values
// (the role and the content), and the reply is primed with 3 more. So
// the wrapper is 3 + tokens("system") + 3 + tokens("user") + 3, and the
// input is that wrapper, the instruction's tokens and the user message's
// tokens. Token counts only: with the codepoint counter it refuses to
// count.
type OpenAIChat struct{}

// The framing of the recipe, in tokens.
const (
	tokensPerMessage = 3
	replyPriming     = 3
)

// Name is "openai-chat".
func (OpenAIChat) Name() string { return "openai-chat" }

// ChatMessage is one message of a Chat Completions request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the Chat Completions request body ka2 renders.
type ChatRequest struct {
	Model     string        `json:"model,omitempty"`
	Messages  []ChatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens"`
}

// split finds the instruction member of a serialized contract and returns
// the instruction text and the contract without that member, with the
// byte range [cut0, cut1) that was removed.
func split(text []byte) (instruction string, user []byte, cut0, cut1 int, err error) {
	ms, err := members(text)
	if err != nil {
		return "", nil, 0, 0, err
	}
	for i, m := range ms {
		if m.key != "instruction" {
			continue
		}
		if err := json.Unmarshal(text[m.valueStart:m.valueEnd], &instruction); err != nil {
			return "", nil, 0, 0, fmt.Errorf("the contract's instruction is not a string")
		}
		cut0, cut1 = m.start, m.end
		// The first member has no leading comma: take the one after it.
		if i == 0 && len(ms) > 1 {
			cut1 = ms[1].start + 1
		}
		user = append(bytes.Clone(text[:cut0]), text[cut1:]...)
		return instruction, user, cut0, cut1, nil
	}
	return "", nil, 0, 0, fmt.Errorf("the contract has no instruction")
}

// Messages are the messages the contract becomes: system, then user.
func (OpenAIChat) Messages(contract []byte) ([]ChatMessage, error) {
	instruction, user, _, _, err := split(bytes.TrimSuffix(contract, []byte("\n")))
	if err != nil {
		return nil, err
	}
	return []ChatMessage{{Role: "system", Content: instruction}, {Role: "user", Content: string(user)}}, nil
}

// Request renders the body.
func (p OpenAIChat) Request(contract []byte, opts Options) ([]byte, error) {
	msgs, err := p.Messages(contract)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ChatRequest{Model: opts.Model, Messages: msgs, MaxTokens: opts.MaxTokens}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Wrapper is the framing the recipe adds around the two messages, in the
// counter's tokens.
func (OpenAIChat) Wrapper(c budget.Counter) int {
	return tokensPerMessage + c.Count("system") + tokensPerMessage + c.Count("user") + replyPriming
}

// Account counts the two messages the documented way.
func (p OpenAIChat) Account(c budget.Counter, text string, spans []budget.Span, limits budget.Limits) (budget.Report, error) {
	if c.Name() == "codepoint" {
		return budget.Report{}, fmt.Errorf("provider %s counts tokens: use a token counter (cl100k_base or o200k_base), not codepoint", p.Name())
	}
	instruction, user, cut0, cut1, err := split([]byte(text))
	if err != nil {
		return budget.Report{}, err
	}
	// The user message's parts are the contract's, moved left over the
	// instruction member; the instruction's span is the system message.
	var userSpans []budget.Span
	at := -1
	for _, s := range spans {
		switch {
		case s.Kind == provenance.KindInstruction:
			if s.Start < cut0 || s.End > cut1 {
				return budget.Report{}, fmt.Errorf("the instruction part is not the instruction member")
			}
			at = len(userSpans)
		case s.End <= cut0:
			userSpans = append(userSpans, s)
		case s.Start >= cut1:
			s.Start -= cut1 - cut0
			s.End -= cut1 - cut0
			userSpans = append(userSpans, s)
		default:
			return budget.Report{}, fmt.Errorf("part %s overlaps the instruction member", s.Kind)
		}
	}
	if at < 0 {
		return budget.Report{}, fmt.Errorf("no part of the contract is its instruction")
	}
	noWrapper := limits
	noWrapper.Wrapper = 0
	rep := budget.Account(c, string(user), userSpans, noWrapper)
	// rep's parts end with the user message's overhead: the JSON outside
	// every part.
	parts := rep.Parts[:len(rep.Parts)-1]
	serialization := rep.Parts[len(rep.Parts)-1].Cost
	parts = append(parts[:at], append([]budget.Part{{Kind: provenance.KindInstruction, Cost: c.Count(instruction)}}, parts[at:]...)...)
	limits.Wrapper = p.Wrapper(c)
	return budget.Tally(c.Name(), parts, serialization, limits), nil
}
