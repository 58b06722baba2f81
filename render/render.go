package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// Options are the request settings a provider puts in the body.
type Options struct {
	// Model names the model; "" leaves the field out (local servers such
	// as llama.cpp's answer with the model they serve).
	Model string
	// MaxTokens caps the reply: the contract's reserve R, so the output
	// stays within the capacity the budget kept for it.
	MaxTokens int
}

// Provider is one model API's request format.
type Provider interface {
	// Name is the provider's stable name, e.g. "openai-chat".
	Name() string
	// Request renders a serialized contract (as ka2 build prints it) as
	// the API's request body, compact JSON without HTML escaping.
	Request(contract []byte, opts Options) ([]byte, error)
	// Account counts the input as the API receives it, exactly, and
	// attributes every unit to a part of the contract; limits.Wrapper is
	// replaced by the API's own framing, which the report shows as its
	// wrapper. spans mark the parts in contract, as the assembler made
	// them (or as Spans recovers them).
	Account(c budget.Counter, contract string, spans []budget.Span, limits budget.Limits) (budget.Report, error)
}

// ErrUnknownProvider is matched by Lookup's error for a name that is no
// provider.
var ErrUnknownProvider = errors.New("unknown provider")

var providers = []Provider{OpenAIChat{}}

// Names lists the providers, sorted.
func Names() []string {
	var out []string
	for _, p := range providers {
		out = append(out, p.Name())
	}
	slices.Sort(out)
	return out
}

// Lookup returns the provider with the given name.
func Lookup(name string) (Provider, error) {
	for _, p := range providers {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownProvider, name, strings.Join(Names(), ", "))
}

// member is one top-level member of a serialized contract: its key, and
// the byte spans of the whole member (with its leading comma, if any) and
// of its value.
type member struct {
	key                  string
	start, end           int // the member, from its comma or key
	valueStart, valueEnd int
	elements             [][2]int // the elements' spans, for an array value
}

// members reads the top-level members of a compact JSON object.
func members(text []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("the contract is not a JSON object")
	}
	var out []member
	for dec.More() {
		m := member{start: int(dec.InputOffset())}
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the contract is not JSON: %w", err)
		}
		m.key, _ = tok.(string)
		afterKey := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("the contract is not JSON: %w", err)
		}
		m.end = int(dec.InputOffset())
		m.valueEnd = m.end
		m.valueStart = m.valueEnd - len(raw)
		if m.valueStart < afterKey {
			return nil, fmt.Errorf("the contract is not compact JSON")
		}
		if len(raw) > 0 && raw[0] == '[' {
			ed := json.NewDecoder(bytes.NewReader(raw))
			ed.Token()
			for ed.More() {
				var el json.RawMessage
				if err := ed.Decode(&el); err != nil {
					return nil, fmt.Errorf("the contract is not JSON: %w", err)
				}
				e := m.valueStart + int(ed.InputOffset())
				m.elements = append(m.elements, [2]int{e - len(el), e})
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// Spans recovers the parts of a serialized contract, as the assembler
// marks them: kinds maps each top-level field to its part kind (fields
// not in it, such as template, are overhead); a list field (evidence,
// memory, tool_output) gives one span per element, labelled as the
// assembler labels it.
func Spans(text []byte, kinds map[string]provenance.Kind) ([]budget.Span, error) {
	ms, err := members(text)
	if err != nil {
		return nil, err
	}
	var spans []budget.Span
	for _, m := range ms {
		k, ok := kinds[m.key]
		if !ok {
			continue
		}
		switch k {
		case provenance.KindEvidence, provenance.KindMemory, provenance.KindToolOutput:
			for _, e := range m.elements {
				spans = append(spans, budget.Span{Kind: k, Label: label(k, text[e[0]:e[1]]), Start: e[0], End: e[1]})
			}
		default:
			spans = append(spans, budget.Span{Kind: k, Start: m.valueStart, End: m.valueEnd})
		}
	}
	return spans, nil
}

// label names a list element as a budget report does: an evidence
// record by its address, a memory or tool output record by its source.
func label(k provenance.Kind, el []byte) string {
	if k == provenance.KindEvidence {
		var r contract.EvidenceRecord
		json.Unmarshal(el, &r)
		return r.Address()
	}
	var r contract.TextRecord
	json.Unmarshal(el, &r)
	return r.Source
}

// FieldKinds maps each field of a contract definition to its part kind,
// for Spans.
func FieldKinds(def *contract.Definition) map[string]provenance.Kind {
	out := map[string]provenance.Kind{}
	for _, f := range def.Fields {
		if f.ContextType != "constant" {
			out[f.Name] = provenance.Kind(f.ContextType)
		}
	}
	return out
}

// Body renders a serialized contract for p, counted with c within
// limits: the spans of the contract's parts (see Spans), p's exact
// count, then p's request body with the reserve as its max_tokens (opts'
// MaxTokens is replaced by it). An input that does not fit is a
// *budget.OverError with the report; ka2 render and ka2 serve's POST
// /v1/render both render through it. The contract is read by the caller
// (Definition.ReadContract) before; text is its bytes without the final
// newline.
func Body(def *contract.Definition, p Provider, text []byte, c budget.Counter, limits budget.Limits, opts Options) ([]byte, error) {
	spans, err := Spans(text, FieldKinds(def))
	if err != nil {
		return nil, err
	}
	rep, err := p.Account(c, string(text), spans, limits)
	if err != nil {
		return nil, err
	}
	if !rep.Fits() {
		return nil, &budget.OverError{Report: rep}
	}
	opts.MaxTokens = limits.Reserve
	return p.Request(text, opts)
}
