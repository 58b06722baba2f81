package provenance

import (
	"context"
	"slices"
	"strings"
)

// The wrapped-content check asks which indexed line, of a type other than
// the new item's, occurs earliest in registration order inside the
// canonical form of the new text. Comparing every position of the text
// with every line sharing its first code points costs the product of the
// two sizes (a megabyte of "a" against lines of "a…ab" took minutes), so
// the lines are compiled into Aho–Corasick automata and the text is read
// once through each: the cost is linear in the text times the number of
// automata, which is logarithmic in the indexed size.
//
// Lines arrive in batches (each wrapped check indexes what was registered
// since the last one), and rebuilding one automaton over every line at
// each check would be quadratic again for a request that alternates
// items. So the lines live in several automata whose sizes differ by more
// than a factor of two (the logarithmic method of Bentley and Saxe): a new
// batch makes a new automaton, and two automata within a factor of two of
// each other are merged. A line is rebuilt only when the automaton
// holding it grows by half, so each indexed byte is compiled O(log n)
// times, and there are O(log n) automata to read a text through.
//
// Matching is on bytes. The canonical text and the lines are valid UTF-8
// (the store refuses other text before the check), and an occurrence of
// valid UTF-8 inside valid UTF-8 always starts at a code point, so the
// byte matches are exactly the code-point matches the check is defined by.

// cancelEvery is how many bytes or states a loop handles between looks at
// its context: often enough to stop within a millisecond or so, rarely
// enough to cost nothing.
const cancelEvery = 1 << 14

// noLine marks the absence of a line in a best pair.
const noLine = int32(-1)

// best is the earliest line, by index in Ledger.lines, among a set of
// lines, and the earliest among those of another type than the first's.
// For any type t, the earliest line of the set not of type t is first
// when first's type is not t, else second.
//
// Types are held by their rank, so that a state's pair takes 12 bytes.
type best struct {
	first, second         int32
	firstKind, secondKind int8
}

var noBest = best{first: noLine, second: noLine}

// add merges line i of type rank k into b. i must not be in b already.
func (b best) add(i int32, k int8) best {
	switch {
	case i == noLine:
	case b.first == noLine:
		b.first, b.firstKind = i, k
	case i < b.first:
		// The old first is now the earliest of another type than k if
		// it is not of type k; if it is, the old second still is.
		if b.firstKind != k {
			b.second, b.secondKind = b.first, b.firstKind
		}
		b.first, b.firstKind = i, k
	case k != b.firstKind && (b.second == noLine || i < b.second):
		b.second, b.secondKind = i, k
	}
	return b
}

// merge is the best pair of the union of two sets.
func (b best) merge(o best) best {
	b = b.add(o.first, o.firstKind)
	return b.add(o.second, o.secondKind)
}

// except returns the earliest line not of type rank k, or noLine.
func (b best) except(k int8) int32 {
	if b.first == noLine || b.firstKind != k {
		return b.first
	}
	return b.second
}

// automaton is an Aho–Corasick automaton over some indexed lines. States
// are numbered in breadth-first order from the root, 0; the edges of
// state s are labels[start[s]:start[s+1]] (sorted) and the matching
// targets.
type automaton struct {
	lines  []int32 // the indexes of its lines in Ledger.lines
	size   int     // their total length in bytes
	start  []int32
	labels []byte
	next   []int32
	fail   []int32
	out    []best // the lines that end at each state, its suffixes' included
	root   [256]int32
}

// step follows byte c from state s, through failure links as needed.
func (a *automaton) step(s int32, c byte, steps *int) int32 {
	for {
		*steps++
		if s == 0 {
			return a.root[c]
		}
		if t := a.child(s, c); t >= 0 {
			return t
		}
		s = a.fail[s]
	}
}

// child returns the target of s's edge labelled c, or -1.
func (a *automaton) child(s int32, c byte) int32 {
	lo, hi := a.start[s], a.start[s+1]
	for lo < hi {
		m := lo + (hi-lo)/2
		switch {
		case a.labels[m] < c:
			lo = m + 1
		case a.labels[m] > c:
			hi = m
		default:
			return a.next[m]
		}
	}
	return -1
}

// buildAutomaton compiles the lines ids of entries. It counts its work
// in *steps and gives up with ctx's error when ctx is done.
func buildAutomaton(ctx context.Context, entries []lineEntry, ids []int32, steps *int) (*automaton, error) {
	a := &automaton{lines: ids}
	order := slices.Clone(ids)
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(entries[x].canon, entries[y].canon) })
	// The trie, built from the sorted lines: a line shares the path of
	// the one before it up to their common prefix, so the children of a
	// state are made in increasing order of their labels.
	type edge struct {
		parent, child int32
		label         byte
	}
	var edges []edge
	end := []int32{noLine} // the line ending at each trie node
	var path []int32       // path[d] is the node at depth d+1 of the previous line
	prev := ""
	for n, id := range order {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c := entries[id].canon
		a.size += len(c)
		common := 0
		for common < len(c) && common < len(prev) && c[common] == prev[common] {
			common++
		}
		path = path[:common]
		node := int32(0)
		if common > 0 {
			node = path[common-1]
		}
		for d := common; d < len(c); d++ {
			*steps++
			child := int32(len(end))
			end = append(end, noLine)
			edges = append(edges, edge{node, child, c[d]})
			path = append(path, child)
			node = child
		}
		// Lines are distinct, so none ends where another already does.
		end[node] = id
		prev = c
	}
	// Renumber the states breadth first, so that a state's failure link,
	// which is shallower, comes before it, and lay the edges out by state.
	nodes := int32(len(end))
	kids := make([]int32, nodes+1)
	for _, e := range edges {
		kids[e.parent+1]++
	}
	for i := int32(1); i <= nodes; i++ {
		kids[i] += kids[i-1]
	}
	childOf := make([]int32, len(edges))
	labelOf := make([]byte, len(edges))
	fill := slices.Clone(kids[:nodes])
	for _, e := range edges { // in creation order: labels ascend per parent
		childOf[fill[e.parent]], labelOf[fill[e.parent]] = e.child, e.label
		fill[e.parent]++
	}
	bfs := make([]int32, 0, nodes)
	num := make([]int32, nodes)
	bfs = append(bfs, 0)
	for i := 0; i < len(bfs); i++ {
		for j := kids[bfs[i]]; j < kids[bfs[i]+1]; j++ {
			num[childOf[j]] = int32(len(bfs))
			bfs = append(bfs, childOf[j])
		}
	}
	a.start = make([]int32, nodes+1)
	a.labels = make([]byte, 0, len(edges))
	a.next = make([]int32, 0, len(edges))
	for i, old := range bfs {
		a.start[i] = int32(len(a.labels))
		for j := kids[old]; j < kids[old+1]; j++ {
			a.labels = append(a.labels, labelOf[j])
			a.next = append(a.next, num[childOf[j]])
		}
	}
	a.start[nodes] = int32(len(a.labels))
	for c := range a.root {
		if t := a.child(0, byte(c)); t >= 0 {
			a.root[c] = t
		}
	}
	// Failure links and outputs, breadth first: the failure link of a
	// state is the longest proper suffix of its string that is a state,
	// and its output adds its failure link's.
	a.fail = make([]int32, nodes)
	a.out = make([]best, nodes)
	for s := int32(0); s < nodes; s++ {
		if s%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		o := noBest
		if id := end[bfs[s]]; id != noLine {
			o = o.add(id, int8(entries[id].origin.Kind.rank()))
		}
		if s != 0 {
			o = o.merge(a.out[a.fail[s]])
		}
		a.out[s] = o
		for j := a.start[s]; j < a.start[s+1]; j++ {
			t, c := a.next[j], a.labels[j]
			if s == 0 {
				a.fail[t] = 0
			} else {
				a.fail[t] = a.step(a.fail[s], c, steps)
			}
		}
	}
	return a, nil
}

// find reads text through a and returns the earliest of its lines not of
// type except that occurs in text, or noLine.
func (a *automaton) find(ctx context.Context, text string, except Kind, steps *int) (int32, error) {
	found := noLine
	s := int32(0)
	ex := int8(except.rank())
	for i := 0; i < len(text); i++ {
		if i%cancelEvery == cancelEvery-1 {
			if err := ctx.Err(); err != nil {
				return noLine, err
			}
		}
		s = a.step(s, text[i], steps)
		if m := a.out[s].except(ex); m != noLine && (found == noLine || m < found) {
			found = m
		}
	}
	return found, nil
}
