//go:build !unix

package budget

import "time"

// processCPU returns 0 where getrusage is missing: the benchmarks then
// report no CPU figures (see reportCPU).
func processCPU() time.Duration { return 0 }
