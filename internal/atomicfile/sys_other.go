//go:build !unix

package atomicfile

import "os"

// syncDirOS does nothing: folders cannot be synced here (Windows refuses
// FlushFileBuffers on them), and a rename is made durable by the system.
func syncDirOS(*os.Root, string) error { return nil }

// running cannot tell, so it says yes: a file that may be in use is never
// removed.
func running(int) bool { return true }

// inPlaceFlags: opening does not wait here.
const inPlaceFlags = 0

// blocking has nothing to undo.
func blocking(*os.File) error { return nil }
