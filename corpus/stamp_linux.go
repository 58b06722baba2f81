package corpus

import "syscall"

// ctimespec is a file's change time, which Linux's Stat_t names Ctim.
func ctimespec(st *syscall.Stat_t) syscall.Timespec { return st.Ctim }
