package cli

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// terminalColumns is the width of the terminal standard output is, from
// COLUMNS when it is set to a number, else asked of the terminal; 0 when
// standard output is not a terminal.
func terminalColumns() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	return 0
}

// columns is f.Columns, or 0 (not a terminal).
func (f *Factory) columns() int {
	if f.Columns == nil || !f.OutTTY {
		return 0
	}
	return f.Columns()
}
