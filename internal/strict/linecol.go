package strict

import "unicode/utf8"

// LineCol returns the 1-based line and column (in code points) of byte
// offset off in data. Bytes that are not UTF-8 count as one code point
// each; off is clamped to data.
func LineCol(data []byte, off int) (line, col int) {
	c := newCursor(data)
	return c.pos(off)
}

// cursor gives the positions of offsets in data as LineCol does, asked in
// increasing order (a parser making its nodes), in time linear in the
// text as a whole: each byte is stepped over once, not once per offset
// asked after it. An offset before the last one asked starts it again
// from the beginning.
type cursor struct {
	data []byte
	// at is a byte offset on a character boundary, of line and column
	// line and col.
	at, line, col int
	// scanned counts the bytes stepped over, for the test that proves
	// the cost linear.
	scanned int
}

func newCursor(data []byte) cursor { return cursor{data: data, line: 1, col: 1} }

// pos returns the 1-based line and column (in code points) of off.
func (c *cursor) pos(off int) (line, col int) {
	off = min(max(off, 0), len(c.data))
	if off < c.at {
		c.at, c.line, c.col = 0, 1, 1
	}
	for c.at < off {
		b := c.data[c.at]
		size := 1
		switch {
		case b == '\n':
			c.line, c.col = c.line+1, 0
		case b >= utf8.RuneSelf:
			_, size = utf8.DecodeRune(c.data[c.at:])
			if c.at+size > off {
				// off is inside this character: its bytes before off
				// count one each, as they do in LineCol's count of the
				// text up to off; the cursor stays on the boundary.
				return c.line, c.col + off - c.at
			}
		}
		c.col++
		c.at += size
		c.scanned += size
	}
	return c.line, c.col
}
