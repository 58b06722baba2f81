package pipeline

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/jsontext"
)

// A run input of RequestProtocol is a contract.RequestFile that asks one
// complete question: the JSON document given to `ka2 pipeline run --input`,
//
//	{"question": "What is the Beijing lodging limit?",
//	 "subjects": ["lodging"], "dates": ["2026-09-14"], "lang": "en"}
//
// "subject" with one string is accepted for "subjects". lang defaults to en;
// short quotes only the author-declared cite ranges; require_evidence makes
// a selection with no applicable source an error. ParseInput reads it and
// RequestInput turns it into the run input handed to the first stage.

// DefaultLang is the language a request without lang asks in.
const DefaultLang = "en"

// ErrBadInput is matched by errors about a run input that cannot start a
// run, or a request a ka2.build stage cannot build.
var ErrBadInput = errors.New("bad run input")

// ParseInput reads a run input document: a build request, read by
// contract.ParseRequestFile, that asks one complete question. Unknown keys
// are refused, so a typo such as "questoin" is an error, not a silently
// missing field. The request is returned in canonical form (see
// RequestInput): "subject" becomes "subjects", lang is set, and short and
// require_evidence are nil unless true.
func ParseInput(data []byte) (contract.RequestFile, error) {
	return decodeInput(data, true)
}

// decodeInput reads a request. The run input is strict; a request handed
// off by an upstream stage may carry more fields, as a subtype may.
func decodeInput(data []byte, strict bool) (contract.RequestFile, error) {
	parse := contract.ParseRequestExtended
	if strict {
		parse = contract.ParseRequestFile
	}
	f, err := parse("input", data)
	if err != nil {
		return contract.RequestFile{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if len(f.Items) > 0 || len(f.Promote) > 0 {
		return contract.RequestFile{}, fmt.Errorf("%w: a pipeline run input takes no extra items yet; remove items and promote", ErrBadInput)
	}
	if budgetKeys := f.Counter != "" || f.Capacity != nil || f.Reserve != nil || f.Provider != ""; budgetKeys && strict {
		// The pipeline's build stage sets the budget; a key it would
		// not honour is refused rather than ignored.
		return contract.RequestFile{}, fmt.Errorf("%w: a pipeline run input takes no budget keys; remove counter, capacity, reserve and provider (the build stage's settings set the budget)", ErrBadInput)
	} else if budgetKeys {
		// An upstream stage's request may carry keys of its own, as
		// before they were request keys: they stay ignored.
		f.Counter, f.Capacity, f.Reserve, f.Provider = "", nil, nil, ""
	}
	in := canonical(*f)
	if err := checkRequest(in); err != nil {
		return contract.RequestFile{}, err
	}
	return in, nil
}

// canonical is f as a run input carries it: "subject" folded into
// "subjects", lang defaulted, and short and require_evidence nil unless
// true, so that its JSON is the same for every spelling of one request.
func canonical(f contract.RequestFile) contract.RequestFile {
	f.Subjects, f.Subject = f.SubjectList(), ""
	f.Lang = cmp.Or(f.Lang, DefaultLang)
	if f.Short != nil && !*f.Short {
		f.Short = nil
	}
	if f.RequireEvidence != nil && !*f.RequireEvidence {
		f.RequireEvidence = nil
	}
	return f
}

// checkRequest refuses a request that does not ask one complete question.
func checkRequest(in contract.RequestFile) error {
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

// RunInput is what a run starts from: a JSON value or plain text. Which
// it may be is the pipeline's RunInputSchema: ka2-request-v1 (a contract.RequestFile),
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

// RequestInput is the request in as a run input: its canonical JSON,
// compact, keys in the order of contract.RequestFile's fields, no HTML
// escaping. A request that does not ask a complete question still makes a
// run input; the ka2.build stage that reads it refuses it.
func RequestInput(in contract.RequestFile) RunInput {
	b, err := jsontext.Marshal(canonical(in))
	if err != nil {
		panic(err) // a RequestFile always marshals
	}
	return RunInput{JSON: b}
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
		return RequestInput(in), nil
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
		return RequestInput(req), nil
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
		art, _ = jsontext.Marshal(in.Text)
	} else if snap.OutputSchema == RequestProtocol {
		var req contract.RequestFile
		if json.Unmarshal(in.JSON, &req) == nil {
			msg = req.Question
		}
	}
	snap.Messages = []Message{{Role: "user", Content: msg}}
	snap.Artifacts = map[string]json.RawMessage{InputStage: art}
	return snap
}
