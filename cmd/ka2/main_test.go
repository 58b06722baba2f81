package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ka2/ka2/cmd/ka2/internal/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ka2": func() { os.Exit(cli.Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each runs the
// real ka2 binary and checks stdout, stderr and the exit status.
// GOLDIE_UPDATE=1 rewrites the expected outputs, as it does for the
// library goldens.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("GOLDIE_UPDATE") != "",
		Cmds:          map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": cmdExits, "chown": cmdChown},
		Condition: func(cond string) (bool, error) {
			if cond == "root" { // chown needs it
				return os.Getuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// cmdChown gives files to a user id: "chown 12345 shared/ka2.yaml".
func cmdChown(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: chown UID FILE...")
	}
	uid, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("chown: bad user id %q", args[0])
	}
	for _, f := range args[1:] {
		ts.Check(os.Lchown(ts.MkAbs(f), uid, -1))
	}
}

// cmdExits runs a command and checks its exit status, which plain exec
// cannot: "exits 3 ka2 build …". Its output is then checked with stdout and
// stderr as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
