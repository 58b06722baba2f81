package corpus

import "syscall"

// ctimespec is a file's change time, which Darwin's Stat_t names
// Ctimespec.
func ctimespec(st *syscall.Stat_t) syscall.Timespec { return st.Ctimespec }
