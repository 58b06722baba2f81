//go:build !unix

package inputfile

// nonBlock: other systems have no non-blocking open; the type check
// before opening still applies.
const nonBlock = 0
