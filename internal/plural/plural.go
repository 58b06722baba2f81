// Package plural words a count with its noun so that the two agree: "1
// code point", "2 code points", never "1 code points" or "2 file(s)".
// Every message that states a count goes through it.
package plural

import "strconv"

// Count returns n and the noun for it: one when n is 1 or -1, else many.
func Count(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}
