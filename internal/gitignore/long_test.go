package gitignore

import "flag"

// long runs the comparison with git over many more generated trials;
// .ci/run passes it in the step that runs the exhaustive checks, so that
// `go test ./...` stays quick.
var long = flag.Bool("long", false, "gitignore: compare with git over 300 generated trials, not 40")
