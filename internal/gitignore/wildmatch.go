package gitignore

import "strings"

// wildmatch reports whether text matches the glob pattern. With pathname
// (git's WM_PATHNAME), "*", "?" and "[...]" do not match "/", and "**"
// between slashes or at either end matches any number of folders;
// without it, "*" matches "/" too.
//
// It is a port of git's wildmatch.c, which gives up early where a "*"
// cannot match (the abort results), with one addition: the result of
// matching a rest of the pattern against a rest of the text is
// remembered, so that a pattern such as "*a*a*a*a*b" takes polynomial
// time, not exponential, on a long name.
func wildmatch(pattern, text string, pathname bool) bool {
	w := &wild{p: pattern, text: text, pathname: pathname}
	return w.match(0, 0) == wmMatch
}

// wild is one match of a pattern against a text.
type wild struct {
	p, text  string
	pathname bool
	// memo holds the result of match(s, t), by s*(len(text)+1)+t, as
	// the result minus wmAbortToStarStar plus one (0 is not yet known);
	// made at the first recursion, a map when a slice would be large.
	memo    []int8
	memoMap map[int]int8
}

// maxMemo is the largest slice memo, in entries; beyond it (a pattern
// of thousands of characters) the memo is a map of what is visited.
const maxMemo = 1 << 16

// match matches p[s:] against text[t:]; a call from a "*" starts again
// with s after it, and "**" at s counts as at the start of a pattern,
// as git's recursion has it.
func (w *wild) match(s, t int) int {
	k := s*(len(w.text)+1) + t
	var known int8
	switch {
	case w.memo != nil:
		known = w.memo[k]
	case w.memoMap != nil:
		known = w.memoMap[k]
	default:
		return w.dowild(s, t)
	}
	if known != 0 {
		return int(known) - 1 + wmAbortToStarStar
	}
	r := w.dowild(s, t)
	if known = int8(r-wmAbortToStarStar) + 1; w.memo != nil {
		w.memo[k] = known
	} else {
		w.memoMap[k] = known
	}
	return r
}

// recurse is match from inside dowild.
func (w *wild) recurse(s, t int) int {
	if w.memo == nil && w.memoMap == nil {
		if n := (len(w.p) + 1) * (len(w.text) + 1); n <= maxMemo {
			w.memo = make([]int8, n)
		} else {
			w.memoMap = map[int]int8{}
		}
	}
	return w.match(s, t)
}

const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// at returns s[i], or 0 past its end, as C's strings end in a NUL.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func (w *wild) dowild(s, t int) int {
	p, text, pathname := w.p, w.text, w.pathname
	i, j := s, t // positions in p and text
	for ; i < len(p); i, j = i+1, j+1 {
		pc := p[i]
		tc := at(text, j)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// The next character literally; a lone trailing backslash
			// matches nothing.
			i++
			if at(p, i) != tc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			m, ni, nj, done := w.star(s, i, j, tc)
			if done {
				return m
			}
			i, j = ni, nj
		case '[':
			var m int
			if i, m = w.class(i, tc); m != wmMatch {
				return m
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if j < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star matches the run of stars at p[i] (s is where dowild started in p)
// against text from j, whose byte is tc. done reports a final result m;
// otherwise a "*/" has consumed text up to the next slash and dowild goes
// on from ni and nj.
func (w *wild) star(s, i, j int, tc byte) (m, ni, nj int, done bool) {
	p, text, pathname := w.p, w.text, w.pathname
	var matchSlash bool
	i++
	if at(p, i) == '*' {
		prev := i - 2 // before the first '*'
		for at(p, i) == '*' {
			i++
		}
		switch {
		case !pathname:
			matchSlash = true
		case (prev < s || p[prev] == '/') &&
			(i == len(p) || p[i] == '/' || (p[i] == '\\' && at(p, i+1) == '/')):
			// "**/" also matches no folder at all: "a/**/b"
			// matches "a/b".
			if at(p, i) == '/' && w.recurse(i+1, j) == wmMatch {
				return wmMatch, i, j, true
			}
			matchSlash = true
		default:
			matchSlash = false // "a**b" is "a*b"
		}
	} else {
		matchSlash = !pathname
	}
	if i == len(p) {
		// A trailing "**" matches everything, a trailing "*"
		// only what has no more slashes.
		if !matchSlash && strings.IndexByte(text[j:], '/') >= 0 {
			return wmNoMatch, i, j, true
		}
		return wmMatch, i, j, true
	}
	if !matchSlash && p[i] == '/' {
		// "*/" matches up to the next slash, which the loop
		// consumes with the pattern's.
		k := strings.IndexByte(text[j:], '/')
		if k < 0 {
			return wmNoMatch, i, j, true
		}
		j += k
		return 0, i, j, false
	}
	for {
		if tc == 0 {
			break
		}
		if !isGlobSpecial(p[i]) {
			// Skip ahead to the literal that follows the star.
			pc := p[i]
			for tc = at(text, j); tc != 0 && (matchSlash || tc != '/'); tc = at(text, j) {
				if tc == pc {
					break
				}
				j++
			}
			if tc != pc {
				return wmNoMatch, i, j, true
			}
		}
		if m := w.recurse(i, j); m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m, i, j, true
			}
		} else if !matchSlash && tc == '/' {
			return wmAbortToStarStar, i, j, true
		}
		j++
		tc = at(text, j)
	}
	return wmAbortAll, i, j, true
}

// class matches tc against the bracket expression at p[i] ('['): it
// returns the position of the closing ']' and wmMatch when tc is in the
// class, or the result that ends the match.
func (w *wild) class(i int, tc byte) (int, int) {
	p, pathname := w.p, w.pathname
	i++
	c := at(p, i)
	if c == '!' {
		c = '^'
	}
	negated := c == '^'
	if negated {
		i++
		c = at(p, i)
	}
	var prev byte
	matched := false
	for {
		if c == 0 {
			return i, wmAbortAll
		}
		switch {
		case c == '\\':
			i++
			c = at(p, i)
			if c == 0 {
				return i, wmAbortAll
			}
			if tc == c {
				matched = true
			}
		case c == '-' && prev != 0 && at(p, i+1) != 0 && at(p, i+1) != ']':
			i++
			c = at(p, i)
			if c == '\\' {
				i++
				c = at(p, i)
				if c == 0 {
					return i, wmAbortAll
				}
			}
			if tc <= c && tc >= prev {
				matched = true
			}
			c = 0 // so that prev becomes 0
		case c == '[' && at(p, i+1) == ':':
			s := i + 2
			i = s
			for at(p, i) != 0 && at(p, i) != ']' {
				i++
			}
			if at(p, i) == 0 {
				return i, wmAbortAll
			}
			if i-s-1 < 0 || p[i-1] != ':' {
				// No ":]": an ordinary "[" in the class.
				i = s - 2
				c = '['
				if tc == c {
					matched = true
				}
				break
			}
			in, ok := posixClass(p[s:i-1], tc)
			if !ok {
				return i, wmAbortAll // an unknown [:class:]
			}
			if in {
				matched = true
			}
			c = 0
		default:
			if tc == c {
				matched = true
			}
		}
		prev = c
		i++
		c = at(p, i)
		if c == ']' {
			break
		}
	}
	if matched == negated || (pathname && tc == '/') {
		return i, wmNoMatch
	}
	return i, wmMatch
}

// posixClass reports whether c is in the [:name:] class, in ASCII as git
// has it, and false for ok when there is no such class.
func posixClass(name string, c byte) (in, ok bool) {
	upper := 'A' <= c && c <= 'Z'
	lower := 'a' <= c && c <= 'z'
	digit := '0' <= c && c <= '9'
	print := 0x20 <= c && c <= 0x7e
	space := c == ' ' || c == '\t' || c == '\n' || c == '\r'
	switch name {
	case "alnum":
		return upper || lower || digit, true
	case "alpha":
		return upper || lower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return print && c != ' ', true
	case "lower":
		return lower, true
	case "print":
		return print, true
	case "punct":
		return print && !upper && !lower && !digit && c != ' ', true
	case "space":
		return space, true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', true
	}
	return false, false
}
