package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/grade"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/render"
)

// DefaultMaxCapacity bounds the capacity a request may ask for when
// Config.MaxCapacity is zero: above the context window of any model in
// tokens, and a contract of that many code points is about the size of
// the default body limit, so a request cannot make a build much larger
// than what it may send.
const DefaultMaxCapacity = 1_000_000

// requestField words a setting a library's hint names as the request
// field that sets it: the service's callers send fields, not flags.
func requestField(setting string) string { return `"` + setting + `"` }

// contractSteps are what POST /v1/contract builds a request body with:
// the server's settings, its budget flags (base) and bounds, and the
// builder of the corpus. serveContract answers with them and the audit
// rebuilds a logged request with them, through one function (build), so
// that the two cannot drift apart.
type contractSteps struct {
	builder  *contract.Builder
	settings contract.Settings
	base     contract.Config
	bounds   contract.BudgetBounds
	// beforeBuild, when set (by a test), runs just before the build.
	beforeBuild func(context.Context)
}

// contractSteps are the server's steps for a contract built by b.
func (s *Server) contractSteps(b *contract.Builder) contractSteps {
	return contractSteps{builder: b, settings: s.cfg.Settings, base: s.cfg.Build, bounds: s.bounds(), beforeBuild: s.testHookBuild}
}

// build runs the steps of `ka2 build --request` on body: parse, the
// remote caller's claims checked against the policy, Settings.Apply and
// Request, the request's own budget (see builder), Builder.Build. The
// request is returned once it is made, whatever the build's outcome.
func (c contractSteps) build(ctx context.Context, body []byte) (contract.Request, *contract.Result, error) {
	rf, err := contract.ParseRequestFile("request", body)
	if err != nil {
		return contract.Request{}, nil, err
	}
	// A remote caller's word for an item's source is only a claim: it gets
	// what the policy's remote section grants, no more.
	if err := rf.CheckRemote(c.builder.Policy); err != nil {
		return contract.Request{}, nil, err
	}
	if c.beforeBuild != nil {
		c.beforeBuild(ctx)
	}
	req, err := c.settings.Apply(rf).Request(rf)
	if err != nil {
		return req, nil, err
	}
	b, err := c.requestBuilder(rf, body)
	if err != nil {
		return req, nil, err
	}
	res, err := b.Build(ctx, req)
	return req, res, err
}

// requestBuilder returns the builder with the budget the request asks
// for: its counter, capacity and reserve over base within the bounds, and
// its provider's framing. A request that asks for none is built by the
// builder itself.
func (c contractSteps) requestBuilder(rf *contract.RequestFile, data []byte) (*contract.Builder, error) {
	if rf.Counter == "" && rf.Capacity == nil && rf.Reserve == nil && rf.Provider == "" {
		return c.builder, nil
	}
	counter, limits, err := contract.RequestBudget("request", data, rf, c.base, c.builder.Definition, c.bounds)
	if err != nil {
		return nil, err
	}
	b := *c.builder
	b.Counter, b.Limits = counter, limits
	if rf.Provider != "" {
		if b.Framing, err = providerFor("request", data, rf.Provider, counter); err != nil {
			return nil, err
		}
	}
	return &b, nil
}

// bounds are the server's bounds on a request's budget.
func (s *Server) bounds() contract.BudgetBounds {
	return contract.BudgetBounds{Counters: s.cfg.Counters, MaxCapacity: cmpOr(s.cfg.MaxCapacity, DefaultMaxCapacity)}
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// providerFor looks up the provider a request names; it counts tokens,
// so the request's counter must be a tokenizer.
func providerFor(name string, data []byte, provider string, counter budget.Counter) (render.Provider, error) {
	p, err := render.Lookup(provider)
	if err != nil {
		return nil, fieldError(name, data, "provider", err.Error(), "")
	}
	if counter.Name() == "codepoint" {
		return nil, fieldError(name, data, "provider", fmt.Sprintf("provider %s counts tokens, and the counter is codepoint", provider),
			`set "counter" to o200k_base or cl100k_base`)
	}
	return p, nil
}

// fieldError is a bad request about a top-level field of the body data.
func fieldError(name string, data []byte, field, msg, hint string) error {
	e := &contract.RequestError{Path: name, Field: field, Msg: msg, Hint: hint}
	if doc, err := strict.ParseJSON(data); err == nil {
		if root := strict.Root(doc); root != nil {
			for i := 0; i+1 < len(root.Content); i += 2 {
				if k := root.Content[i]; k.Value == field {
					e.Line, e.Col = k.Line, k.Column
				}
			}
		}
	}
	return e
}

// envelope reads a JSON object body whose keys are m's, each value of
// the JSON type of its key in kinds ("object", "string", "number" or
// "array"), into v (by encoding/json, once the keys and kinds hold). The
// body is checked as a request is: its text, then one object with no
// unknown or repeated key; every problem is a *contract.RequestError.
func envelope(name string, data []byte, m *strict.Map, kinds map[string]string, v any) error {
	if err := contract.CheckText(name, data); err != nil {
		return err
	}
	doc, err := strict.ParseJSON(data)
	if je, ok := errors.AsType[*strict.JSONError](err); ok {
		return &contract.RequestError{Path: name, Line: je.Line, Col: je.Col, Msg: "invalid JSON: " + je.Err.Error()}
	} else if err != nil {
		return &contract.RequestError{Path: name, Msg: "invalid JSON: " + err.Error()}
	}
	root := strict.Root(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return &contract.RequestError{Path: name, Line: 1, Col: 1, Msg: "the body must be a JSON object {…}",
			Hint: "the keys are " + strings.Join(m.Known(), ", ")}
	}
	d := &strict.Decoder{Path: name, Words: func(is strict.Issue, d *diag.Diagnostic) {
		switch is.Problem {
		case strict.UnknownKey:
			d.Message, d.Hint = fmt.Sprintf("unknown key %q", is.Key), diag.Fix("the keys are "+strings.Join(is.Known(), ", "))
		case strict.DuplicateKey:
			d.Message, d.Hint = fmt.Sprintf("key %q appears twice", is.Key), diag.Fix("keep one")
		case strict.MissingKey:
			d.Message = fmt.Sprintf("%q is required", is.Key)
		default:
			d.Message = "not a key"
		}
	}}
	f := d.Mapping(root, m)
	if len(d.Diags) > 0 {
		e := d.Diags[0]
		return &contract.RequestError{Path: name, Line: e.Line, Col: e.Col, Msg: e.Message, Hint: e.Hint.Text}
	}
	for _, e := range f.All() {
		want, got := kinds[e.Name], strict.JSONKind(e.Value)
		if strict.IsNull(e.Value) || got == want {
			continue
		}
		return &contract.RequestError{Path: name, Line: e.Key.Line, Col: e.Key.Column, Field: e.Name,
			Msg: fmt.Sprintf("want a JSON %s, not a JSON %s", want, got)}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &contract.RequestError{Path: name, Msg: err.Error()}
	}
	return nil
}

// gradeRequest is POST /v1/grade's body.
type gradeRequest struct {
	// Contract is the contract the answer was given, as ka2 build
	// printed it.
	Contract json.RawMessage `json:"contract"`
	Answer   string          `json:"answer"`
	// Lang and Injected are ka2 grade's --lang and --injected.
	Lang     string   `json:"lang"`
	Injected []string `json:"injected"`
}

var gradeMap = &strict.Map{Keys: []strict.Key{{Name: "answer", Required: true}, {Name: "contract", Required: true}, {Name: "injected"}, {Name: "lang"}}}

var gradeKinds = map[string]string{"answer": "string", "contract": "object", "injected": "array", "lang": "string"}

// serveGrade answers POST /v1/grade: the answer's findings against the
// contract, the JSON of `ka2 grade --format json`. An answer with
// findings is still a 200: the check ran; ok says whether it passed.
func (s *Server) serveGrade(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	buf := borrowBuffer()
	defer returnBuffer(buf)
	if err := readBody(w, r, s.cfg.MaxBodyBytes, buf); err != nil {
		return badRequest(w, snap, err.Error())
	}
	decisionOf(w).request(buf.Bytes())
	var in gradeRequest
	if err := envelope("request", buf.Bytes(), gradeMap, gradeKinds, &in); err != nil {
		status, d := classify(err)
		return writeError(w, snap, status, d)
	}
	decisionOf(w).posted(in.Contract)
	opts := grade.OptionsFor(s.def)
	if len(opts.Refusals) == 0 {
		return writeError(w, snap, http.StatusInternalServerError, errkind.Detail{Kind: string(errkind.Internal),
			Message: "the server's contract definition has no refusal phrases, so no answer can be graded"})
	}
	opts.Lang, opts.Injected = in.Lang, in.Injected
	c, err := s.def.ReadContract("contract", in.Contract)
	if err != nil {
		status, d := classify(err)
		return writeError(w, snap, status, d)
	}
	// As ka2 grade --corpus does: an answer is graded only against a
	// contract the serving corpus confirms, or an ok could rest on
	// evidence no source says.
	if probs := snap.Builder.Verify(in.Contract, opts.LangOf(c)).Unconfirmed(); len(probs) > 0 {
		msgs := make([]string, len(probs))
		for i, p := range probs {
			msgs[i] = p.Text(queryParam)
		}
		return writeError(w, snap, http.StatusBadRequest, errkind.Detail{Kind: string(errkind.BadRequest),
			Message: "the contract does not verify against the serving corpus, so the answer is not graded (POST /v1/verify gives the whole report): " + strings.Join(msgs, "; ")})
	}
	rep := grade.Grade(c, in.Answer, opts)
	decisionOf(w).graded(rep.OK)
	return writeJSON(w, snap, http.StatusOK, rep)
}

// renderRequest is POST /v1/render's body.
type renderRequest struct {
	Contract json.RawMessage `json:"contract"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Counter  string          `json:"counter"`
	Capacity *int            `json:"capacity"`
	Reserve  *int            `json:"reserve"`
}

var renderMap = &strict.Map{Keys: []strict.Key{{Name: "capacity"}, {Name: "contract", Required: true}, {Name: "counter"},
	{Name: "model"}, {Name: "provider", Required: true}, {Name: "reserve"}}}

var renderKinds = map[string]string{"capacity": "number", "contract": "object", "counter": "string", "model": "string",
	"provider": "string", "reserve": "number"}

// renderCounter is the counter POST /v1/render counts with when the
// request names none, as `ka2 render` does: a provider counts tokens.
const renderCounter = "o200k_base"

// serveRender answers POST /v1/render: the request body a model API
// takes for the contract, exactly as `ka2 render` prints it.
func (s *Server) serveRender(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	buf := borrowBuffer()
	defer returnBuffer(buf)
	if err := readBody(w, r, s.cfg.MaxBodyBytes, buf); err != nil {
		return badRequest(w, snap, err.Error())
	}
	fail := func(err error) int {
		status, d := classify(err)
		return writeError(w, snap, status, d)
	}
	data := buf.Bytes()
	decisionOf(w).request(data)
	var in renderRequest
	if err := envelope("request", data, renderMap, renderKinds, &in); err != nil {
		return fail(err)
	}
	decisionOf(w).posted(in.Contract)
	rf := &contract.RequestFile{Counter: in.Counter, Capacity: in.Capacity, Reserve: in.Reserve}
	if rf.Counter == "" {
		rf.Counter = renderCounter
	}
	counter, limits, err := contract.RequestBudget("request", data, rf, contract.Config{Counter: renderCounter}, s.def, s.bounds())
	if err != nil {
		return fail(err)
	}
	p, err := providerFor("request", data, in.Provider, counter)
	if err != nil {
		return fail(err)
	}
	if _, err := s.def.ReadContract("contract", in.Contract); err != nil {
		return fail(err)
	}
	body, err := render.Body(s.def, p, in.Contract, counter, limits, render.Options{Model: in.Model})
	if err != nil {
		return fail(err)
	}
	writeBody(w, snap, http.StatusOK, "application/json", append(body, '\n'))
	return http.StatusOK
}
