//go:build unix

package inputfile

import "syscall"

// nonBlock opens a named pipe without waiting for a writer; regular files
// read the same with or without it.
const nonBlock = syscall.O_NONBLOCK
