// Command ka2 selects effective-date evidence and builds budgeted context
// contracts. See the README and docs/ for the commands and their exit codes.
package main

import (
	"os"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
)

func main() { os.Exit(cli.Main()) }
