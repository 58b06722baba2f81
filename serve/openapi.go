package serve

import (
	_ "embed"
	"net/http"
)

// openAPI is the OpenAPI 3.1 document of every endpoint, kept beside the
// handlers so that a change to one is a change to both; the end-to-end
// tests check every response they get against it.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the service's OpenAPI 3.1 document, as GET
// /openapi.json serves it.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

// serveOpenAPI answers GET /openapi.json.
func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request, snap *Snapshot) int {
	writeBody(w, snap, http.StatusOK, "application/json", openAPI)
	return http.StatusOK
}
