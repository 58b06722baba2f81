package budget

import "flag"

// long turns the sampled checks of the default suite into the exhaustive
// ones: every Unicode scalar value, 10,000 generated strings per encoding,
// two 2.2 MB documents, 3,000-fold repetitions, 1 MB worst cases and the
// peak memory of a child process. .ci/run passes it in a step of its own;
// without it each of those tests checks a seeded, deterministic sample of
// the same inputs, so that `go test ./...` stays quick.
var long = flag.Bool("long", false, "budget: run the exhaustive scans and comparisons with tiktoken, not a sample")

// sized returns full under -long and sample otherwise.
func sized(sample, full int) int {
	if *long {
		return full
	}
	return sample
}
