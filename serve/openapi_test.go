package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/serve"
)

// apiDoc is the served OpenAPI document, read and compiled once: every
// response a test reads through running.do is checked against it (see
// checkDocumented), so a response and the document cannot disagree
// without a test failing.
var apiDoc = sync.OnceValues(func() (*openAPIDoc, error) {
	data, err := serve.OpenAPI(contract.Default())
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, inst); err != nil {
		return nil, err
	}
	return &openAPIDoc{tree: tree, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
})

const docURL = "https://ka2.invalid/openapi.json"

type openAPIDoc struct {
	tree     map[string]any
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema // by JSON pointer
}

// at follows a JSON pointer into the document.
func (d *openAPIDoc) at(ptr string) (any, bool) {
	var v any = d.tree
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

// deref returns the object at ptr, following a $ref to the document's
// own components, and the pointer it ended at.
func (d *openAPIDoc) deref(ptr string) (map[string]any, string, bool) {
	for range 8 {
		v, ok := d.at(ptr)
		m, isMap := v.(map[string]any)
		if !ok || !isMap {
			return nil, ptr, false
		}
		ref, isRef := m["$ref"].(string)
		if !isRef || !strings.HasPrefix(ref, "#/components/") || strings.Contains(ptr, "/schema") {
			return m, ptr, true
		}
		ptr = strings.TrimPrefix(ref, "#")
	}
	return nil, ptr, false
}

func (d *openAPIDoc) schema(ptr string) (*jsonschema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.schemas[ptr]; ok {
		return s, nil
	}
	s, err := d.compiler.Compile(docURL + "#" + ptr)
	if err != nil {
		return nil, err
	}
	d.schemas[ptr] = s
	return s, nil
}

func pointerKey(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// checkDocumented fails the test when the response to method path is
// not what the document says: a path it does not name answered, a
// status it does not list, a required header missing, another content
// type, or a JSON body its schema does not accept. An error from a path
// it does not name (a wrong one) is checked as an error body.
func checkDocumented(t testing.TB, method, path string, status int, header http.Header, body []byte) {
	t.Helper()
	d, err := apiDoc()
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	u, err := url.Parse(path)
	if err != nil {
		return
	}
	op := strings.ToLower(method)
	if method == http.MethodHead {
		op = "get"
	}
	respPtr := ""
	if _, ok := d.at("/paths/" + pointerKey(u.Path)); ok {
		if _, ok := d.at("/paths/" + pointerKey(u.Path) + "/" + op); ok {
			respPtr = "/paths/" + pointerKey(u.Path) + "/" + op + "/responses/" + strconv.Itoa(status)
		} else if status == http.StatusMethodNotAllowed {
			respPtr = "/components/responses/E405"
		} else {
			t.Errorf("%s %s: %d, and the document has no %s operation for the path", method, path, status, op)
			return
		}
	} else {
		if status < 400 {
			t.Errorf("%s %s: %d from a path the OpenAPI document does not name", method, path, status)
			return
		}
		respPtr = "/components/responses/E" + strconv.Itoa(status)
	}
	resp, at, ok := d.deref(respPtr)
	if !ok {
		t.Errorf("%s %s: status %d is not in the OpenAPI document (%s); body %.300s", method, path, status, respPtr, body)
		return
	}
	if hs, ok := resp["headers"].(map[string]any); ok {
		for name := range hs {
			h, _, ok := d.deref(at + "/headers/" + pointerKey(name))
			if ok && h["required"] == true && header.Get(name) == "" {
				t.Errorf("%s %s: %d without the %s header the document requires", method, path, status, name)
			}
		}
	}
	content, _ := resp["content"].(map[string]any)
	ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if _, ok := content[ct]; !ok {
		t.Errorf("%s %s: %d with Content-Type %q, which the document does not list", method, path, status, header.Get("Content-Type"))
		return
	}
	if ct != "application/json" || method == http.MethodHead {
		return
	}
	schemaPtr := at + "/content/" + pointerKey(ct) + "/schema"
	s, err := d.schema(schemaPtr)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaPtr, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Errorf("%s %s: %d: the body is not JSON: %v", method, path, status, err)
		return
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s %s: %d: the body does not match the document's schema %s: %v\nbody: %.500s", method, path, status, schemaPtr, err, body)
	}
}

// TestOpenAPIServed: GET /openapi.json is the document the tests check
// against, with the server's contract schema in it.
func TestOpenAPIServed(t *testing.T) {
	r := start(t, serve.Config{Build: sample})
	got := r.get(t, "/openapi.json")
	if got.status != http.StatusOK {
		t.Fatalf("status %d", got.status)
	}
	want, err := serve.OpenAPI(contract.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.body, want) {
		t.Error("GET /openapi.json is not serve.OpenAPI of the server's definition")
	}
	var doc struct {
		OpenAPI    string `json:"openapi"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(got.body, &doc); err != nil {
		t.Fatal(err)
	}
	// The served schema is the definition's, its references made to its
	// place in the document and its $id and $schema left out.
	served := strings.ReplaceAll(string(doc.Components.Schemas["Contract"]), `"$ref":"#/components/schemas/Contract/`, `"$ref":"#/`)
	var schema, defSchema map[string]any
	if err := json.Unmarshal([]byte(served), &schema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(contract.Default().Schema, &defSchema); err != nil {
		t.Fatal(err)
	}
	if _, ok := schema["$id"]; ok {
		t.Error("the served Contract schema keeps its $id")
	}
	delete(defSchema, "$id")
	delete(defSchema, "$schema")
	if doc.OpenAPI != "3.1.0" || fmt.Sprint(schema) != fmt.Sprint(defSchema) {
		t.Errorf("openapi %q; the Contract schema is not the definition's output_schema", doc.OpenAPI)
	}
	if !strings.Contains(string(doc.Components.Schemas["Contract"]), `"$ref":"#/components/schemas/Contract/$defs/evidence"`) {
		t.Error("the Contract schema's references are not rebased onto its place in the document")
	}
}

// TestDocumentedCheckFails: the check fails on a response the document
// does not describe, so the checks of every other test mean something.
func TestDocumentedCheckFails(t *testing.T) {
	jsonHeader := func(digest bool) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		if digest {
			h.Set(serve.DigestHeader, "sha256:x")
			h.Set(serve.GenerationHeader, "1")
		}
		return h
	}
	tests := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
	}{
		{"undocumented path", "GET", "/v2/contract", 200, jsonHeader(true), `{}`},
		{"extra field", "GET", "/healthz", 200, jsonHeader(true), `{"status":"ok","uptime":3}`},
		{"no digest header", "GET", "/healthz", 200, jsonHeader(false), `{"status":"ok"}`},
		{"undocumented status", "GET", "/v1/show?address=a:1-2", 418, jsonHeader(true), `{"error":{"kind":"bad_request","message":"m"}}`},
		{"unknown error kind", "POST", "/v1/contract", 400, jsonHeader(true), `{"error":{"kind":"teapot","message":"m"}}`},
		{"error kind missing", "GET", "/nope", 404, jsonHeader(true), `{"error":{"message":"m"}}`},
		{"wrong content type", "GET", "/readyz", 200, http.Header{"Content-Type": {"text/plain"}, serve.DigestHeader: {"d"}, serve.GenerationHeader: {"1"}}, `ok`},
		{"contract not a contract", "POST", "/v1/contract", 200, jsonHeader(true), `{"template":"ka2-context-v1"}`},
		{"grade finding of no kind", "POST", "/v1/grade", 200, jsonHeader(true),
			`{"ok":false,"refused":false,"citations":0,"numbers":0,"dates":0,"findings":[{"kind":"vague","detail":"d"}],"unchecked":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			checkDocumented(rec, tt.method, tt.path, tt.status, tt.header, []byte(tt.body))
			if !rec.failed {
				t.Errorf("checkDocumented passed %d %s", tt.status, tt.body)
			}
		})
	}
}

// recordingTB records a failure instead of failing.
type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Errorf(string, ...any) { r.failed = true }
func (r *recordingTB) Fatalf(string, ...any) { r.failed = true }
func (r *recordingTB) Helper()               {}

// TestEveryDocumentedPathAnswers: each operation of the document is an
// endpoint of the server (the preview page's included), and what it
// answers to an empty request, and to another method, is documented.
func TestEveryDocumentedPathAnswers(t *testing.T) {
	d, err := apiDoc()
	if err != nil {
		t.Fatal(err)
	}
	r := start(t, serve.Config{Build: sample, UI: true})
	paths, _ := d.tree["paths"].(map[string]any)
	if len(paths) < 10 {
		t.Fatalf("the document names %d paths", len(paths))
	}
	for path, item := range paths {
		for method := range item.(map[string]any) {
			m := strings.ToUpper(method)
			got := r.do(t, m, path, "")
			if got.status == http.StatusNotFound && bytes.Contains(got.body, []byte("no endpoint")) {
				t.Errorf("%s %s: the document names it, the server has no such endpoint", m, path)
			}
			other := http.MethodDelete
			if got := r.do(t, other, path, ""); got.status != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d, want 405", other, path, got.status)
			}
		}
	}
}
