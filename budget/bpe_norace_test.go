//go:build !race

package budget

// raceEnabled is true when the race detector is on; see bpe_race_test.go.
const raceEnabled = false
