package contract_test

import "flag"

// long runs TestVerifyMutations over 500 built contracts instead of a
// seeded sample of 25; .ci/run passes it in the step that runs the
// exhaustive checks, so that `go test ./...` stays quick.
var long = flag.Bool("long", false, "contract: mutate 500 built contracts in TestVerifyMutations, not 25")
