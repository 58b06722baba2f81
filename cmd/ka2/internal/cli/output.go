package cli

import (
	"context"
	"fmt"
	"io"

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
func writeOutput(ctx context.Context, out io.Writer, flag, name string, data []byte) error {
	if name == stdoutName {
		_, err := out.Write(data)
		return err
	}
	if err := atomicfile.Write(ctx, name, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
