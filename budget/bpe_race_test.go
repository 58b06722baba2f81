//go:build race

package budget

// raceEnabled is true when the race detector is on; it slows everything
// several times and inflates memory, so timing and memory checks relax.
const raceEnabled = true
