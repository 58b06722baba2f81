package budget

import "unicode/utf8"

// Pre-tokenizers. tiktoken splits text into pieces with a regular expression
// before it merges bytes, and a token never crosses a piece. The expressions
// need backtracking and a negative lookahead (\s+(?!\S)), which Go's regexp
// lacks, so each is reproduced here as a hand-written scanner: next(s, i)
// returns the end of the piece that the expression matches at i, choosing
// among the alternatives in order exactly as a backtracking engine does.
// Every scanner reads each byte a bounded number of times per piece and
// every piece is non-empty, so splitting is linear in the text. Each also
// returns how far it read (see scanner), for walk's step count, with which
// TestWorstCaseLinear checks that claim.
//
// s must be valid UTF-8 (see validView).

// cl100kNext matches at s[i] the cl100k_base pattern
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func (rc *runeClasses) cl100kNext(s string, i int) (end, far int) {
	r0, c0, n0 := rc.at(s, i)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r0 == '\'' {
		if k := contraction(s, i); k > 0 {
			return read(i + k)
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c0&clsL != 0 {
		return read(rc.run(s, i+n0, clsL))
	}
	if isPrefix(r0, c0) && i+n0 < len(s) {
		if _, c1, n1 := rc.at(s, i+n0); c1&clsL != 0 {
			return read(rc.run(s, i+n0+n1, clsL))
		}
	}
	// \p{N}{1,3}
	if c0&clsN != 0 {
		return read(rc.digits(s, i+n0))
	}
	// ?[^\s\p{L}\p{N}]+[\r\n]*
	if e := rc.punct(s, i, r0, c0, n0); e > 0 {
		return read(newlines(s, e, false))
	}
	return rc.space(s, i)
}

// read is the result of an alternative that read no further than the end
// of its match.
func read(end int) (int, int) { return end, end }

// o200kNext matches at s[i] the o200k_base pattern
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func (rc *runeClasses) o200kNext(s string, i int) (end, far int) {
	r0, c0, n0 := rc.at(s, i)
	pre := isPrefix(r0, c0)
	// What a failed lowerWord read counts too.
	far = i
	// First alternative, with its optional prefix taken, then without it.
	if pre {
		e, f := rc.lowerWord(s, i+n0)
		if far = max(far, f); e > 0 {
			return e, far
		}
	}
	if c0&(clsU|clsW) != 0 {
		e, f := rc.lowerWord(s, i)
		if far = max(far, f); e > 0 {
			return e, far
		}
	}
	// Second alternative, in the same order.
	if pre {
		if e := rc.upperWord(s, i+n0); e > 0 {
			return e, max(far, e)
		}
	}
	if c0&clsU != 0 {
		e := rc.upperWord(s, i)
		return e, max(far, e)
	}
	// \p{N}{1,3}
	if c0&clsN != 0 {
		e := rc.digits(s, i+n0)
		return e, max(far, e)
	}
	// ?[^\s\p{L}\p{N}]+[\r\n/]*
	if e := rc.punct(s, i, r0, c0, n0); e > 0 {
		e = newlines(s, e, true)
		return e, max(far, e)
	}
	e, f := rc.space(s, i)
	return e, max(far, f)
}

// isPrefix reports whether a rune is in [^\r\n\p{L}\p{N}].
func isPrefix(r rune, cls uint8) bool {
	return cls&(clsL|clsN) == 0 && r != '\r' && r != '\n'
}

// isPunct reports whether a rune's class is [^\s\p{L}\p{N}].
func isPunct(cls uint8) bool {
	return cls&(clsS|clsL|clsN) == 0
}

// run returns the end of the run of runes having any of bits, from i.
func (rc *runeClasses) run(s string, i int, bits uint8) int {
	for i < len(s) {
		if b := s[i]; b < 0x80 {
			if rc.ascii[b]&bits == 0 {
				return i
			}
			i++
			continue
		}
		_, c, n := rc.at(s, i)
		if c&bits == 0 {
			return i
		}
		i += n
	}
	return i
}

// digits ends \p{N}{1,3} whose first number rune ends at i.
func (rc *runeClasses) digits(s string, i int) int {
	for k := 1; k < 3 && i < len(s); k++ {
		_, c, n := rc.at(s, i)
		if c&clsN == 0 {
			break
		}
		i += n
	}
	return i
}

// punct matches " ?[^\s\p{L}\p{N}]+" at i, where the first rune is r0 of
// class c0 and size n0, and returns its end, or 0 when it does not match.
func (rc *runeClasses) punct(s string, i int, r0 rune, c0 uint8, n0 int) int {
	if isPunct(c0) {
		return rc.punctRun(s, i+n0)
	}
	if r0 == ' ' && i+1 < len(s) {
		if _, c1, n1 := rc.at(s, i+1); isPunct(c1) {
			return rc.punctRun(s, i+1+n1)
		}
	}
	return 0
}

// punctRun returns the end of the run of [^\s\p{L}\p{N}] from i.
func (rc *runeClasses) punctRun(s string, i int) int {
	for i < len(s) {
		_, c, n := rc.at(s, i)
		if !isPunct(c) {
			return i
		}
		i += n
	}
	return i
}

// newlines returns the end of [\r\n]* from i, or of [\r\n/]* with slash.
func newlines(s string, i int, slash bool) int {
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || slash && s[i] == '/') {
		i++
	}
	return i
}

// space matches, at a whitespace rune at i, the three whitespace
// alternatives in order:
//
//	\s*[\r\n]+  the run up to and including its last \r or \n;
//	\s+(?!\S)   the run, less its last rune when a non-space follows it;
//	\s+         the run, when it is one rune followed by a non-space.
//
// far is the end of the run, which it reads whole.
func (rc *runeClasses) space(s string, i int) (end, far int) {
	j, last, nl := i, i, -1
	for j < len(s) {
		r, c, n := rc.at(s, j)
		if c&clsS == 0 {
			break
		}
		if r == '\r' || r == '\n' {
			nl = j
		}
		last = j
		j += n
	}
	switch {
	case nl >= 0:
		return nl + 1, j
	case j == len(s) || last == i:
		return j, j
	default:
		return last, j
	}
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i],
// which holds an apostrophe, or 0. tiktoken's regex engine (the Rust regex
// crate) matches (?i) by Unicode simple case folding, so besides the ASCII
// letters in either case the code points of contractionFolds match too:
// "'\u017F" (LONG S) is "'s".
func contraction(s string, i int) int {
	c1, n1 := foldedAt(s, i+1)
	switch c1 {
	case 's', 't', 'm', 'd':
		return 1 + n1
	case 'r', 'v':
		if c2, n2 := foldedAt(s, i+1+n1); c2 == 'e' {
			return 1 + n1 + n2
		}
	case 'l':
		if c2, n2 := foldedAt(s, i+1+n1); c2 == 'l' {
			return 1 + n1 + n2
		}
	}
	return 0
}

// foldedAt returns the lower-case ASCII letter that the rune at s[j] folds
// to and the rune's size, or 0 when it is not a letter of the contractions
// (or j is the end).
func foldedAt(s string, j int) (byte, int) {
	if j >= len(s) {
		return 0, 0
	}
	if b := s[j]; b < utf8.RuneSelf {
		if b|0x20 >= 'a' && b|0x20 <= 'z' {
			return b | 0x20, 1
		}
		return 0, 1
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	return contractionFolds[r], n
}

// lowerWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// and an optional contraction at p, and returns its end or 0. When the
// greedy "upper" run is not followed by a "lower" rune, a backtracking
// engine gives runes back until the last rune of the run that is also
// "lower" (Lm, Lo, M) can start the lower run; that rune then ends the
// lower run, since the rune after it is not "lower". far is the end of
// what it read, which passes the match when it gives runes back.
func (rc *runeClasses) lowerWord(s string, p int) (end, far int) {
	q, lastW, lastWEnd := p, -1, -1
	for q < len(s) {
		_, c, n := rc.at(s, q)
		if c&clsU == 0 {
			if c&clsW != 0 { // Ll: the lower run starts here
				e := rc.run(s, q+n, clsW)
				return read(e + contractionAt(s, e))
			}
			break
		}
		if c&clsW != 0 {
			lastW, lastWEnd = q, q+n
		}
		q += n
	}
	if lastW < 0 {
		return 0, q
	}
	e := lastWEnd + contractionAt(s, lastWEnd)
	return e, max(e, q)
}

// upperWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// and an optional contraction at p, and returns its end or 0.
func (rc *runeClasses) upperWord(s string, p int) int {
	q := rc.run(s, p, clsU)
	if q == p {
		return 0
	}
	e := rc.run(s, q, clsW)
	return e + contractionAt(s, e)
}

// contractionAt is contraction where s[i] may be anything or the end.
func contractionAt(s string, i int) int {
	if i < len(s) && s[i] == '\'' {
		return contraction(s, i)
	}
	return 0
}
