//go:build !linux

package golden

import "os"

// fastFolder is Linux's fast golden reader (tree_linux.go); elsewhere
// every golden is read through its folder's os.Root.
type fastFolder struct{}

func openFastFolder(*os.Root) *fastFolder { return nil }

func (*fastFolder) read(string) ([]byte, bool) { return nil, false }

func (*fastFolder) close() {}

// openDirIn opens the folder name inside r.
func openDirIn(r *os.Root, name string) (*os.File, error) { return r.Open(name) }
