package cli_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
)

// testNow is the clock of every command run in these tests: the worked
// example's question date.
func testNow() time.Time { return time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC) }

// runKA2 runs ka2 with args on fake streams, in the current directory,
// and returns the exit code, stdout and stderr.
func runKA2(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cli.Factory{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut, Now: testNow}
	code := cli.Run(t.Context(), f, args)
	return code, out.String(), errOut.String()
}

// parseFlags runs the command newCmd makes on args with a runF that only
// captures its options, as cli/cli's flag tests do: it returns the options
// the command would run with, or the error that stopped it first.
func parseFlags[O any](newCmd func(*cli.Factory, func(*O) error) *cobra.Command, args []string) (*O, error) {
	var got *O
	cmd := newCmd(&cli.Factory{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard, Now: testNow},
		func(o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err != nil {
		return nil, err
	}
	return got, nil
}

// flagsFailed checks err against wantErr, the error a flag test expects
// ("" for none), matched in full, or as a part when partial is set. It
// reports whether the case is done: it expected an error.
func flagsFailed(t *testing.T, err error, wantErr string, partial bool) bool {
	t.Helper()
	switch {
	case wantErr == "":
		if err != nil {
			t.Fatalf("Execute() error = %v, want none", err)
		}
		return false
	case err == nil || (!partial && err.Error() != wantErr) || (partial && !strings.Contains(err.Error(), wantErr)):
		t.Fatalf("Execute() error = %v, want %q", err, wantErr)
	}
	return true
}
