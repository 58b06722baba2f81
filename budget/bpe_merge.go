package budget

import "sync"

// smallPiece is the longest piece merged by rescanning all pairs after each
// merge, which is quadratic but faster than a heap on the short pieces that
// make up nearly all text.
const smallPiece = 48

// merger holds the buffers of one byte-pair merge; they are reused through
// a pool so that counting allocates nothing per piece.
type merger struct {
	// Result: the start of each token within the piece, and its rank.
	starts []int32
	ranks  []uint32
	// steps counts the work of the last merge: bytes read, pairs compared
	// by the scan, heap pushes and pops. Only tests read it (see walk).
	steps int
	// Working state; see mergeSmall and mergeHeap.
	pairs      []uint32
	next, prev []int32
	heap       []uint64
}

// mergers pools the merge's working state. It earns its place by
// memory, not by wall time: counting a contract-sized text (about 2.3 KB,
// `go test ./budget -run '^$' -bench CountContract`) allocates 0 bytes
// with the pool and 6,368 bytes in 22 allocations without it, for every
// answer a service counts, which the collector then pays for; the wall
// times of the two were within the noise of shared cores (2026-12-02).
var mergers = sync.Pool{New: func() any { return new(merger) }}

func getMerger() *merger { return mergers.Get().(*merger) }

// putMerger returns m to the pool unless a long piece grew its buffers
// beyond what ordinary text needs: keeping them would pin that memory.
func putMerger(m *merger) {
	if cap(m.heap) > 1<<14 || cap(m.starts) > 1<<14 {
		return
	}
	mergers.Put(m)
}

// merge splits piece into tokens the way tiktoken does: starting from single
// bytes, repeatedly merge the adjacent pair whose concatenation has the
// lowest rank, leftmost first on ties, until no adjacent pair is a token.
func (m *merger) merge(v *vocab, piece string) {
	if len(piece) <= smallPiece {
		m.mergeSmall(v, piece)
	} else {
		m.mergeHeap(v, piece)
	}
}

// mergeSmall keeps the parts in arrays on the stack and finds each merge by
// a scan: of the current parts, starts[k] is where part k begins
// (starts[parts] = n closes the last one), ranks[k] is part k's token, and
// pairs[k] the rank of parts k and k+1 together, noRank if none.
func (m *merger) mergeSmall(v *vocab, p string) {
	var (
		starts [smallPiece + 1]int32
		ranks  [smallPiece + 1]uint32
		pairs  [smallPiece + 1]uint32
	)
	n := len(p)
	for i := range n {
		starts[i] = int32(i)
		ranks[i] = v.single[p[i]]
	}
	starts[n] = int32(n)
	for i := 0; i+1 < n; i++ {
		pairs[i] = v.pair[int(p[i])<<8|int(p[i+1])]
	}
	parts := n
	steps := n
	for parts > 1 {
		// One pass over the pairs, one shift of the arrays.
		steps += parts
		best, at := noRank, -1
		for k, r := range pairs[:parts-1] {
			if r < best {
				best, at = r, k
			}
		}
		if at < 0 {
			break
		}
		// Part at absorbs part at+1. The arrays are short, so one loop
		// shifting all three beats three calls to copy; it also moves
		// entries past the live ones, which the spare element allows.
		ranks[at] = best
		for k := at + 1; k < parts; k++ {
			starts[k] = starts[k+1]
			ranks[k] = ranks[k+1]
			pairs[k-1] = pairs[k]
		}
		parts--
		if at+1 < parts {
			pairs[at] = v.rank(p[starts[at]:starts[at+2]])
		}
		if at > 0 {
			pairs[at-1] = v.rank(p[starts[at-1]:starts[at+1]])
		}
	}
	m.starts = append(m.starts[:0], starts[:parts]...)
	m.ranks = append(m.ranks[:0], ranks[:parts]...)
	m.steps = steps
}

// mergeHeap does the same merges in O(n log n) for a piece of n bytes, so
// that no input, however long its pieces, costs quadratic time. Parts are a
// linked list of byte offsets (a part is named by its first byte) and the
// candidate merges sit in a min-heap keyed by (rank, offset), which gives the
// lowest rank, leftmost first, as the scan does. A merge changes the pairs
// of the merged part and its left neighbour; their new ranks are pushed and
// the old entries are recognised as stale when they surface.
//
// An entry (r, i) is current exactly when pairs[i] == r: the pair at i only
// ever grows, and tokens of different lengths have different ranks, so a
// stale entry cannot carry the current rank.
func (m *merger) mergeHeap(v *vocab, p string) {
	n := len(p)
	m.grow(n)
	next, prev, pairs, ranks := m.next[:n], m.prev[:n], m.pairs[:n], m.ranks[:n]
	h := m.heap[:0]
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
		ranks[i] = v.single[p[i]]
		pairs[i] = noRank
		if i+1 < n {
			if r := v.pair[int(p[i])<<8|int(p[i+1])]; r != noRank {
				pairs[i] = r
				h = append(h, uint64(r)<<32|uint64(i))
			}
		}
	}
	heapInit(h)
	steps := n + len(h)
	rankOf := func(from, to int32) uint32 {
		if int(to-from) > v.maxLen {
			return noRank
		}
		return v.rank(p[from:to])
	}
	for len(h) > 0 {
		top := h[0]
		h = heapPop(h)
		steps++
		r, i := uint32(top>>32), int32(uint32(top))
		if pairs[i] != r {
			continue // stale
		}
		j := next[i]
		k := next[j]
		ranks[i] = r
		pairs[j] = noRank // j is gone; no entry for it can be current
		next[i] = k
		pairs[i] = noRank
		if int(k) < n {
			prev[k] = i
			if nr := rankOf(i, next[k]); nr != noRank {
				pairs[i] = nr
				h = heapPush(h, uint64(nr)<<32|uint64(i))
				steps++
			}
		}
		if pi := prev[i]; pi >= 0 {
			pairs[pi] = rankOf(pi, k)
			if pairs[pi] != noRank {
				h = heapPush(h, uint64(pairs[pi])<<32|uint64(pi))
				steps++
			}
		}
	}
	starts := m.starts[:0]
	out := ranks[:0] // ranks[i] for live i, compacted in place: i only grows
	for i := int32(0); int(i) < n; i = next[i] {
		starts = append(starts, i)
		out = append(out, ranks[i])
	}
	m.starts, m.ranks, m.heap = starts, out, h
	m.steps = steps
}

// grow makes the working buffers hold n entries.
func (m *merger) grow(n int) {
	if cap(m.next) < n {
		m.next = make([]int32, n)
		m.prev = make([]int32, n)
		m.pairs = make([]uint32, n)
		m.ranks = make([]uint32, n)
		m.starts = make([]int32, 0, n)
		m.heap = make([]uint64, 0, n)
	}
}

// A binary min-heap of uint64, written out because container/heap's
// interface calls would dominate the cost of the merge.

func heapInit(h []uint64) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
}

func heapPush(h []uint64, x uint64) []uint64 {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent] <= x {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = x
	return h
}

func heapPop(h []uint64) []uint64 {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	if last > 0 {
		heapDown(h, 0)
	}
	return h
}

func heapDown(h []uint64, i int) {
	x := h[i]
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1] < h[c] {
			c++
		}
		if x <= h[c] {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}
