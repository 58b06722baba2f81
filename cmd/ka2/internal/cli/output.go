package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ka2/ka2/internal/atomicfile"
)

// stdoutName is the file name that means standard output wherever ka2
// writes a file (--report, --trace, --audit, --output).
const stdoutName = "-"

// writeOutput writes data to the file named by an output flag: to out
// for "-", else through atomicfile.Write, which replaces a regular file
// atomically, writes a device or FIFO (or a link to one, such as
// /dev/stdout) in place, and never replaces a link or a device with a
// file. Its errors name the flag.
//
// A name that is standard output itself (/dev/stdout, /proc/self/fd/1, a
// link to either) is written to out too, after what was written there
// before: opened again, even in place, it would start at the file's
// beginning, and replaced, the rest of the output would go to a file no
// path names.
func writeOutput(ctx context.Context, out io.Writer, flag, name string, data []byte) error {
	if name == stdoutName || isFile(out, name) {
		_, err := out.Write(data)
		return err
	}
	if err := atomicfile.Write(ctx, name, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// isFile reports whether w is an open file that name also names.
func isFile(w io.Writer, name string) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	ni, err := os.Stat(name)
	return err == nil && os.SameFile(fi, ni)
}
