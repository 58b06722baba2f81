// Package suggest finds the name a person most likely meant, for the
// "did you mean" hints of every ka2 parser.
package suggest

// Closest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a likely typo: at most a third of s's length
// away (one edit for short names), where swapping two neighbouring letters
// counts as one edit. Ties go to the candidate that sorts first, so hints do
// not depend on map order.
func Closest(s string, candidates []string) string {
	limit := max(1, len(s)/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		d := distance(s, c)
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if best == "" || bestD >= len(s) {
		return ""
	}
	return best
}

// distance is the optimal-string-alignment distance between a and b in
// bytes: insertions, deletions, substitutions and swaps of neighbours.
// Names longer than 64 bytes are never typos of each other.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
