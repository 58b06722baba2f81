// Package suggest finds the name a person most likely meant, for the
// "did you mean" hints of every ka2 parser.
package suggest

import (
	"slices"
	"sort"
	"strings"
)

// maxLen bounds the names that can be typos of each other: longer ones
// never are, so a hint never costs more than maxLen² per name compared.
const maxLen = 64

// maxCells bounds the work of one Index.Closest, in cells of the distance
// tables it fills: about 1 ms of CPU on the developer machine. The search
// keeps what it found when it runs out, so a name asked against very
// many unrelated ones of like length gets a hint that may miss the
// closest name rather than costing the server more: against 100,000
// random letter strings, 4 of 8 two-edit typos of one ran out, and 1 of
// the 8 got another hint than a scan's. Against the subjects of a generated corpus of
// 100k sources a question fills far fewer (TestIndexWorkBounded), 2–8 µs
// where a scan took milliseconds (BenchmarkClosest).
const maxCells = 1 << 18

// Closest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a likely typo: at most a third of s's length
// away (one edit for short names), where swapping two neighbouring letters
// counts as one edit. Ties go to the candidate that sorts first, so hints do
// not depend on map order. To ask about many names with the same
// candidates, make an Index once.
func Closest(s string, candidates []string) string {
	return NewIndex(candidates).Closest(s)
}

// Index holds candidates for Closest, prepared once: by length, each
// length's sorted. Its Closest compares a name only with the candidates
// whose length could be close enough, and walks each length's list as a
// trie, sharing the rows of the distance table among names with a common
// prefix and skipping every name under a prefix already too far away. A
// name unlike every candidate, which a client can send at will, then
// costs little even against many candidates. It is immutable and safe
// for concurrent use.
type Index struct {
	byLen [maxLen + 1][]string
}

// NewIndex prepares candidates for Closest.
func NewIndex(candidates []string) *Index {
	ix := &Index{}
	for _, c := range candidates {
		if len(c) <= maxLen {
			ix.byLen[len(c)] = append(ix.byLen[len(c)], c)
		}
	}
	for i, l := range ix.byLen {
		slices.Sort(l)
		ix.byLen[i] = slices.Compact(l)
	}
	return ix
}

// Closest is Closest(s, candidates) for the index's candidates.
func (ix *Index) Closest(s string) string {
	best, _ := ix.closest(s)
	return best
}

// closest is Closest, and the table cells it filled.
func (ix *Index) closest(s string) (string, int) {
	if len(s) > maxLen {
		return "", 0 // no candidate is within a third of s's length
	}
	limit := max(1, len(s)/3)
	w := walker{s: s, cells: maxCells}
	// A search for the candidates within k edits prunes every prefix
	// more than k away, so a small k visits few: k grows from one edit,
	// a typo's usual count, until the first search that finds one.
	for k := 1; k <= limit && w.best == "" && w.cells > 0; k++ {
		w.bestD = k + 1
		// A candidate of length L is at least |L−len(s)| away: lengths
		// nearest first, so that the best so far prunes the rest sooner.
		for off := 0; off <= w.bestD && w.cells > 0; off++ {
			if l := len(s) - off; l >= 0 {
				w.walk(ix.byLen[l], l)
			}
			if l := len(s) + off; off > 0 && l <= maxLen {
				w.walk(ix.byLen[l], l)
			}
		}
	}
	if w.best == "" || w.bestD >= len(s) {
		return "", maxCells - w.cells
	}
	return w.best, maxCells - w.cells
}

// walker is one Closest: the best candidate so far, and the rows of the
// distance table between s and the prefix of the candidate in hand.
type walker struct {
	s     string
	best  string
	bestD int
	cells int // left to fill
	// rows[p*(len(s)+1)+j] is the distance between a candidate's first p
	// bytes and s[:j].
	rows [(maxLen + 1) * (maxLen + 1)]uint8
}

// walk looks for a better candidate among cands, sorted, all of length l.
func (w *walker) walk(cands []string, l int) {
	n := len(w.s)
	for j := 0; j <= n; j++ {
		w.rows[j] = uint8(j)
	}
	depth, prev := 0, "" // rows 0..depth are those of prev[:depth]
	for i := 0; i < len(cands) && w.cells > 0; {
		c := cands[i]
		p := min(commonPrefix(prev, c), depth)
		prev = c
		pruned := false
		for p < l {
			p++
			lb := w.row(c, p, l)
			depth = p
			if lb > w.bestD || lb == w.bestD && c[:p] >= w.best {
				// No candidate under c[:p] is nearer, nor as near and
				// sorting before the best; they follow c, so skip them.
				prefix := c[:p]
				i += sort.Search(len(cands)-i, func(k int) bool { return !strings.HasPrefix(cands[i+k], prefix) })
				pruned = true
				break
			}
		}
		if pruned {
			continue
		}
		if d := int(w.rows[l*(n+1)+n]); d < w.bestD || d == w.bestD && c < w.best {
			w.best, w.bestD = c, d
		}
		i++
	}
}

// row fills row p of the optimal-string-alignment table of c, of length
// l, against s (insertions, deletions, substitutions and swaps of
// neighbours), and returns the least distance to s of any candidate of
// length l that begins with c[:p]: reaching s[:j] costs the row's cell j,
// and what is left of the two differs in length by |(len(s)−j) − (l−p)|.
// A swap that steps over row p costs no less than the cell of row p it
// passes, so the bound holds for it too.
func (w *walker) row(c string, p, l int) int {
	s := w.s
	n := len(s)
	w.cells -= n + 1
	cur, up := w.rows[p*(n+1):(p+1)*(n+1)], w.rows[(p-1)*(n+1):p*(n+1)]
	var up2 []uint8
	if p > 1 {
		up2 = w.rows[(p-2)*(n+1) : (p-1)*(n+1)]
	}
	ch := c[p-1]
	cur[0] = uint8(p)
	gap := n - (l - p) // (len(s)−j) − (l−p) at j = 0
	lb := p + abs(gap)
	for j := 1; j <= n; j++ {
		d := min(up[j], cur[j-1]) + 1
		if ch == s[j-1] {
			d = min(d, up[j-1])
		} else {
			d = min(d, up[j-1]+1)
			if up2 != nil && j > 1 && ch == s[j-2] && c[p-2] == s[j-1] {
				d = min(d, up2[j-2]+1)
			}
		}
		cur[j] = d
		lb = min(lb, int(d)+abs(gap-j))
	}
	return lb
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
