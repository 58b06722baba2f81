// Command openapidoc prints the OpenAPI document `ka2 serve` serves with
// the embedded contract definition: serve/openapi.json with the
// definition's output_schema as the contract's schema. CI lints it, as
// well as the file in the repository, so that the document a client
// fetches is valid too.
package main

import (
	"fmt"
	"os"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/serve"
)

func main() {
	doc, err := serve.OpenAPI(contract.Default())
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapidoc:", err)
		os.Exit(1)
	}
	os.Stdout.Write(doc)
}
