package suggest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	keys := []string{"Out", "source_id", "version", "subjects", "subject", "valid_from", "valid_until", "supersedes", "lang", "unit", "cite"}
	tests := []struct {
		in   string
		want string
	}{
		{"valid_untill", "valid_until"},
		{"valid-from", "valid_from"},
		{"Source_ID", "source_id"},
		{"lnag", "lang"},
		{"supercedes", "supersedes"},
		{"subjet", "subject"},
		{"approved_by_the_finance_team", ""},
		{"x", ""},
		{"Prt", ""}, // two edits of three letters is not a typo
		{"", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, keys); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Ties go to the first candidate in sort order, whatever the input order.
	if got := Closest("ab", []string{"bb", "aa"}); got != "aa" {
		t.Errorf("Closest tie = %q, want aa", got)
	}
}

func TestOneOf(t *testing.T) {
	tests := []struct {
		in    []string
		limit int
		want  string
	}{
		{nil, 8, ""},
		{[]string{"a"}, 8, "a"},
		{[]string{"a", "b"}, 8, "a or b"},
		{[]string{"a", "b", "c"}, 8, "a, b or c"},
		{[]string{"a", "b", "c"}, 2, "a, b or 1 more"},
	}
	for _, tt := range tests {
		if got := OneOf(tt.in, tt.limit); got != tt.want {
			t.Errorf("OneOf(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

// closestScan is Closest as it was first written, the reference: the
// distance to every candidate, one table each.
func closestScan(s string, candidates []string) string {
	limit := max(1, len(s)/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		d := scanDistance(s, c)
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if best == "" || bestD >= len(s) {
		return ""
	}
	return best
}

func scanDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
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

// mutate makes a typo of s: k random insertions, deletions, substitutions
// or swaps of neighbours, from alphabet.
func mutate(r *rand.Rand, s string, k int, alphabet string) string {
	b := []byte(s)
	for range k {
		i := r.IntN(len(b) + 1)
		switch ch := alphabet[r.IntN(len(alphabet))]; r.IntN(4) {
		case 0:
			b = slices.Insert(b, i, ch)
		case 1:
			if i < len(b) {
				b = slices.Delete(b, i, i+1)
			}
		case 2:
			if i < len(b) {
				b[i] = ch
			}
		case 3:
			if i+1 < len(b) {
				b[i], b[i+1] = b[i+1], b[i]
			}
		}
	}
	return string(b)
}

// TestIndexAgreesWithScan: the index's answer is the scan's, for typos of
// every kind and size, names like none of the candidates, names of every
// length up to past 64 bytes, and candidate sets full of shared prefixes
// and near ties.
func TestIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sets := []struct {
		name     string
		alphabet string
		make     func(i int) string
	}{
		{"hierarchy", "abcdr/-", func(i int) string {
			segs := []string{"travel", "travel/lodging", "travel/rail", "meals", "meals/city", "card"}
			return segs[i%len(segs)] + "/" + fmt.Sprintf("x%d", i%37)
		}},
		{"numbered", "0123456789-", func(i int) string { return fmt.Sprintf("subject-%05d", i) }},
		{"small alphabet", "ab", func(int) string {
			b := make([]byte, 1+r.IntN(9))
			for j := range b {
				b[j] = "ab"[r.IntN(2)]
			}
			return string(b)
		}},
		{"any length", "xyz/", func(i int) string { return strings.Repeat("xyz/", r.IntN(20)) + fmt.Sprint(i) }},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			var cands []string
			for i := range 300 {
				cands = append(cands, set.make(i))
			}
			ix := NewIndex(cands)
			for q := range 400 {
				var s string
				switch q % 4 {
				case 0, 1: // a typo of a candidate
					s = mutate(r, cands[r.IntN(len(cands))], 1+r.IntN(4), set.alphabet)
				case 2: // a candidate itself, or nothing like one
					s = cands[r.IntN(len(cands))]
					if r.IntN(2) == 0 {
						s = mutate(r, strings.Repeat("q", r.IntN(70)), r.IntN(5), set.alphabet)
					}
				case 3: // a new name made the same way
					s = set.make(1000 + q)
				}
				if got, want := ix.Closest(s), closestScan(s, cands); got != want {
					t.Fatalf("Closest(%q) = %q, the scan says %q", s, got, want)
				}
			}
		})
	}
}

// TestIndexWorkBounded: a name unlike every candidate, as a hostile
// client sends, fills a small part of the tables a scan fills, and no
// question fills more than maxCells.
func TestIndexWorkBounded(t *testing.T) {
	var cands []string
	for i := range 1000 {
		cands = append(cands, fmt.Sprintf("subject-%05d", i))
	}
	ix := NewIndex(cands)
	for _, s := range []string{"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "subject-0099", "q", strings.Repeat("subject-", 8)} {
		scan := 0
		for _, c := range cands {
			scan += (len(s) + 1) * (len(c) + 1)
		}
		got, cells := ix.closest(s)
		if want := closestScan(s, cands); got != want {
			t.Errorf("Closest(%q) = %q, the scan says %q", s, got, want)
		}
		if cells > scan/10 {
			t.Errorf("Closest(%q) filled %d cells, a tenth of a scan's %d is the most it should", s, cells, scan)
		}
	}
	// Names that share no prefix, a hundred thousand of them.
	r := rand.New(rand.NewPCG(5, 6))
	cands = cands[:0]
	for range 100_000 {
		b := make([]byte, 12+r.IntN(40))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		cands = append(cands, string(b))
	}
	ix = NewIndex(cands)
	for range 20 {
		s := mutate(r, cands[r.IntN(len(cands))], 3, "abcdefghijklmnopqrstuvwxyz")
		if _, cells := ix.closest(s); cells > maxCells+maxLen*(maxLen+1) {
			t.Errorf("Closest(%q) filled %d cells, over the bound of %d", s, cells, maxCells)
		}
	}
}

// BenchmarkClosest is one "did you mean" against the subjects of the
// generated 100k corpus (1000 of them), by the index and by the scan,
// for a typo and for a name like none of them.
func BenchmarkClosest(b *testing.B) {
	var cands []string
	for i := range 1000 {
		cands = append(cands, fmt.Sprintf("subject-%05d", i))
	}
	ix := NewIndex(cands)
	for _, s := range []string{"subjetc-00421", "zq7-unknown-topic-name"} {
		b.Run("index/"+s, func(b *testing.B) {
			for b.Loop() {
				ix.Closest(s)
			}
		})
		b.Run("scan/"+s, func(b *testing.B) {
			for b.Loop() {
				closestScan(s, cands)
			}
		})
	}
}

// FuzzClosest: the index answers as the scan does, for any name against
// candidates made from the input's own pieces (so that near ties and
// shared prefixes are common).
func FuzzClosest(f *testing.F) {
	f.Add("lodgin", "lodging,rail,travel/lodging,travel/rail")
	f.Add("subjetc-00421", "subject-00420,subject-00421,subject-00412")
	f.Add("ab", "aa,bb,ba,a,b,abc")
	f.Add("", ",a")
	f.Fuzz(func(t *testing.T, s, list string) {
		// Each of up to a third of len(s) searches fills at most a row of
		// len(s)+1 cells per byte of a candidate.
		if (2*len(list)+2)*(len(s)+1)*max(1, len(s)/3) > maxCells {
			t.Skip("big enough to reach the bound on work, past which the index may answer otherwise")
		}
		cands := strings.Split(list, ",")
		if got, want := NewIndex(cands).Closest(s), closestScan(s, cands); got != want {
			t.Fatalf("Closest(%q, %q) = %q, the scan says %q", s, cands, got, want)
		}
	})
}
