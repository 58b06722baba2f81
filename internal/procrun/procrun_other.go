//go:build !unix

package procrun

import (
	"os"
	"os/exec"
)

// ownGroup does nothing where there are no Unix process groups.
func ownGroup(*exec.Cmd) {}

// endGroup kills the program itself; without Unix process groups, what it
// started is not reached.
func endGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
