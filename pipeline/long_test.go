package pipeline

import "flag"

// long makes the stdout cases of TestRunStops write past the real 32 MiB
// limit, 50 MB through a pipe; .ci/run passes it in the step that runs
// the exhaustive checks. Without it they run under a 1 MiB limit, so that
// `go test ./...` stays quick.
var long = flag.Bool("long", false, "pipeline: flood stdout past the real 32 MiB limit, not a 1 MiB test limit")
