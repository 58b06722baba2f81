package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
