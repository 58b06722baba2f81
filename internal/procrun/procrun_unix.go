//go:build unix

package procrun

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd's program the leader of a new process group, so that
// everything it starts can be ended with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// endGroup kills every process of p's group. A group that is already gone
// is not an error. The group's ID stays taken while any member (even a
// zombie) is left, so it cannot name another program's group.
func endGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
