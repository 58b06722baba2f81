package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// Input is what a run starts from: one question and what a ka2.build
// stage needs to build its contract. It is the JSON document given to
// `ka2 pipeline run --input`, and its protocol is RequestProtocol:
//
//	{"question": "What is the Beijing lodging limit?",
//	 "subjects": ["lodging"], "dates": ["2026-09-14"], "lang": "en"}
//
// "subject" with one string is accepted for "subjects". lang defaults to en;
// short quotes only the author-declared cite ranges; require_evidence makes
// a selection with no applicable source an error.
type Input struct {
	Question        string   `json:"question"`
	Subjects        []string `json:"subjects"`
	Dates           []string `json:"dates"`
	Lang            string   `json:"lang,omitempty"`
	Short           bool     `json:"short,omitempty"`
	RequireEvidence bool     `json:"require_evidence,omitempty"`
}

// DefaultLang is the language an Input without lang asks in.
const DefaultLang = "en"

// ErrBadInput is matched by errors about a run input that cannot start a
// run, or a request a ka2.build stage cannot build.
var ErrBadInput = errors.New("bad run input")

// ParseInput reads a run input document: a build request, read by
// contract.ParseRequestFile, that asks one complete question. Unknown keys
// are refused, so a typo such as "questoin" is an error, not a silently
// missing field; "subject" with one string is accepted for "subjects".
func ParseInput(data []byte) (Input, error) {
	in, err := decodeInput(data, true)
	if err != nil {
		return Input{}, err
	}
	return in, nil
}

// decodeInput reads a request. The run input is strict; a request handed
// off by an upstream stage may carry more fields, as a subtype may.
func decodeInput(data []byte, strict bool) (Input, error) {
	parse := contract.ParseRequestExtended
	if strict {
		parse = contract.ParseRequestFile
	}
	f, err := parse("input", data)
	if err != nil {
		return Input{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if len(f.Items) > 0 || len(f.Promote) > 0 {
		return Input{}, fmt.Errorf("%w: a pipeline run input takes no extra items yet; remove items and promote", ErrBadInput)
	}
	in := Input{Question: f.Question, Subjects: f.SubjectList(), Dates: f.Dates, Lang: f.Lang,
		Short: f.Short != nil && *f.Short, RequireEvidence: f.RequireEvidence != nil && *f.RequireEvidence}
	if in.Lang == "" {
		in.Lang = DefaultLang
	}
	if err := in.check(); err != nil {
		return Input{}, err
	}
	return in, nil
}

func (in Input) check() error {
	if strings.TrimSpace(in.Question) == "" {
		return fmt.Errorf("%w: question is empty", ErrBadInput)
	}
	if len(in.Subjects) == 0 {
		return fmt.Errorf(`%w: no subjects; add e.g. "subjects": ["lodging"]`, ErrBadInput)
	}
	if len(in.Dates) == 0 {
		return fmt.Errorf(`%w: no dates; add e.g. "dates": ["2026-09-14"]`, ErrBadInput)
	}
	for _, d := range in.Dates {
		if _, err := corpus.ParseDate(d); err != nil {
			return fmt.Errorf("%w: dates: %w", ErrBadInput, err)
		}
	}
	return nil
}

// query is the selector query the input asks.
func (in Input) query() selector.Query {
	q := selector.Query{Subjects: in.Subjects, Lang: in.Lang}
	for _, s := range in.Dates {
		d, _ := corpus.ParseDate(s) // checked by check
		q.Dates = append(q.Dates, d)
	}
	return q
}

// JSON is the input's canonical serialization: compact, keys in field
// order, no HTML escaping.
func (in Input) JSON() []byte {
	b, err := marshal(in)
	if err != nil {
		panic(err) // an Input always marshals
	}
	return b
}

// marshal writes v as compact JSON without HTML escaping and without a
// final newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// RunInput is what a run starts from: a JSON value or plain text. Which
// it may be is the pipeline's RunInputSchema: ka2-request-v1 (an Input),
// another protocol (a JSON object conforming to it), string (plain text,
// or a JSON string), or none (any JSON value, or plain text).
type RunInput struct {
	// JSON is the input as compact JSON; nil for plain text.
	JSON json.RawMessage
	// Text is the plain-text input, when JSON is nil.
	Text string
}

// TextInputOf is a plain-text run input.
func TextInputOf(text string) RunInput { return RunInput{Text: text} }

// RunInput is the request as a run input.
func (in Input) RunInput() RunInput {
	if in.Lang == "" {
		in.Lang = DefaultLang
	}
	return RunInput{JSON: in.JSON()}
}

// IsText reports whether the input is plain text.
func (in RunInput) IsText() bool { return in.JSON == nil }

// text is the input as its snapshot's output text: the text itself, or
// the JSON.
func (in RunInput) text() string {
	if in.IsText() {
		return in.Text
	}
	return string(in.JSON)
}

// ParseRunInput reads a run input document as the pipeline's run input
// schema asks: a request document for ka2-request-v1 (see ParseInput), a
// JSON value conforming to a declared protocol, a JSON string for string,
// any JSON value when the pipeline declares none. A problem is an
// ErrBadInput error.
func (p *Pipeline) ParseRunInput(data []byte) (RunInput, error) {
	if p.RunInputSchema() == RequestProtocol {
		in, err := ParseInput(data)
		if err != nil {
			return RunInput{}, err
		}
		return in.RunInput(), nil
	}
	if err := checkText(data); err != nil {
		return RunInput{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if !json.Valid(data) {
		_, err := decodeJSON(data)
		return RunInput{}, fmt.Errorf("%w: not a JSON value: %v", ErrBadInput, err)
	}
	return p.checkInput(RunInput{JSON: compactJSON(data)})
}

// TextRunInput is text as the run input, when the pipeline takes plain
// text: its input_schema is string, or it declares none and does not start
// with ka2.build.
func (p *Pipeline) TextRunInput(text string) (RunInput, error) {
	return p.checkInput(TextInputOf(text))
}

// checkInput checks a run input against the run input schema and returns
// it in canonical form.
func (p *Pipeline) checkInput(in RunInput) (RunInput, error) {
	schema := p.RunInputSchema()
	switch {
	case in.IsText() && (schema == "" || schema == TextInput):
		if strings.TrimSpace(in.Text) == "" {
			return RunInput{}, fmt.Errorf("%w: the text is empty", ErrBadInput)
		}
		if !utf8.ValidString(in.Text) {
			return RunInput{}, fmt.Errorf("%w: the text is not valid UTF-8", ErrBadInput)
		}
		return in, nil
	case in.IsText():
		return RunInput{}, fmt.Errorf("%w: the pipeline's run input is %s, a JSON document; plain text is for a pipeline whose input_schema is %s",
			ErrBadInput, schema, TextInput)
	case schema == TextInput:
		var s string
		if err := json.Unmarshal(in.JSON, &s); err != nil {
			return RunInput{}, fmt.Errorf("%w: the pipeline's input_schema is %s: give plain text or a JSON string", ErrBadInput, TextInput)
		}
		return p.checkInput(TextInputOf(s))
	case schema == RequestProtocol:
		req, err := decodeInput(in.JSON, true)
		if err != nil {
			return RunInput{}, err
		}
		return req.RunInput(), nil
	case schema != "":
		if err := p.Protocols.Validate(schema, in.JSON); err != nil {
			return RunInput{}, fmt.Errorf("%w: it breaks the pipeline's input_schema '%s': %w", ErrBadInput, schema, err)
		}
	}
	return RunInput{JSON: compactJSON(in.JSON)}, nil
}

// inputSnapshot is the run input's own snapshot, which stages read as
// upstream or fresh: its text as the output text and one user message
// (a request's question), and the input as the "input" artifact.
func (p *Pipeline) inputSnapshot(in RunInput) *Snapshot {
	snap := &Snapshot{
		Stage:        InputStage,
		Runner:       InputStage,
		ToolResults:  []ToolResult{},
		OutputText:   in.text(),
		OutputSchema: p.RunInputSchema(),
		Sink:         string(Downstream),
	}
	msg := in.text()
	art := in.JSON
	if in.IsText() {
		art, _ = marshal(in.Text)
	} else if snap.OutputSchema == RequestProtocol {
		var req Input
		if json.Unmarshal(in.JSON, &req) == nil {
			msg = req.Question
		}
	}
	snap.Messages = []Message{{Role: "user", Content: msg}}
	snap.Artifacts = map[string]json.RawMessage{InputStage: art}
	return snap
}
