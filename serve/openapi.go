package serve

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/jsontext"
)

// openAPI is the OpenAPI 3.1 document of every endpoint, kept beside the
// handlers so that a change to one is a change to both; the end-to-end
// tests check every response they get against it.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the service's OpenAPI 3.1 document for a server built
// with the contract definition def, as GET /openapi.json serves it: the
// document in the repository (serve/openapi.json) with the contract's
// schema, components.schemas.Contract, replaced by def's output_schema,
// so that it describes the contracts this server builds.
func OpenAPI(def *contract.Definition) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		return nil, fmt.Errorf("serve/openapi.json: %w", err)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Schema, &schema); err != nil {
		return nil, fmt.Errorf("the contract definition's output_schema: %w", err)
	}
	// Its references (#/$defs/…) are made to point at its place in the
	// document and its $id dropped: OpenAPI tools resolve a reference
	// against the document, and many do not honour an embedded $id.
	delete(schema, "$id")
	delete(schema, "$schema")
	rebase(schema, "#/components/schemas/Contract")
	schemas, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("serve/openapi.json has no components.schemas")
	}
	schemas["Contract"] = schema
	b, err := jsontext.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// rebase prefixes every local reference ("#/…") under v with at.
func rebase(v any, at string) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if ref, ok := c.(string); ok && k == "$ref" && strings.HasPrefix(ref, "#/") {
				v[k] = at + ref[1:]
				continue
			}
			rebase(c, at)
		}
	case []any:
		for _, c := range v {
			rebase(c, at)
		}
	}
}

// serveOpenAPI answers GET /openapi.json.
func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request, snap *Snapshot) int {
	writeBody(w, snap, http.StatusOK, "application/json", s.openAPI)
	return http.StatusOK
}
