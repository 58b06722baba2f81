package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ka2/ka2/internal/testutil"
)

// readmeBlock is a runnable shell example of the README and the output it
// shows, if any.
type readmeBlock struct {
	line   int    // where the block starts
	kind   string // "test": in an empty folder; "test-init": inside a ka2 init project; "test-repo": beside a copy of the repository's examples/
	script string
	output *string // the block right after it fenced "text output", if any
}

// readmeBlocks extracts the README's runnable examples: fenced blocks
// whose info string is "sh test", "sh test-init" or "sh test-repo", each
// with the "text output" block that follows it.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks  []readmeBlock
		cur     *strings.Builder
		info    string
		start   int
		lastEnd = -2 // line of the last runnable block's closing fence
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if rest, ok := strings.CutPrefix(trimmed, "```"); ok && rest != "" {
				info, start, cur = rest, n, &strings.Builder{}
			} else if ok {
				info, start, cur = "", n, &strings.Builder{}
			}
			continue
		}
		if trimmed != "```" {
			cur.WriteString(line + "\n")
			continue
		}
		text := cur.String()
		cur = nil
		switch info {
		case "sh test", "sh test-init", "sh test-repo":
			blocks = append(blocks, readmeBlock{line: start, kind: strings.TrimPrefix(info, "sh "), script: text})
			lastEnd = n
		case "text output":
			if len(blocks) == 0 || lastEnd != start-2 {
				t.Fatalf("%s:%d: a text output block must follow a runnable block after one blank line", path, start)
			}
			blocks[len(blocks)-1].output = &text
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// TestREADME runs every runnable example of the README (see readmeBlocks)
// as a shell script with the ka2 under test on PATH, and checks the output
// it shows exactly: an example that drifts from what ka2 does fails here.
func TestREADME(t *testing.T) {
	blocks := readmeBlocks(t, filepath.Join("..", "..", "README.md"))
	if len(blocks) < 5 {
		t.Fatalf("found %d runnable README examples; the fences lost their \"sh test\" marks?", len(blocks))
	}
	dir := t.TempDir()
	for _, b := range blocks {
		var s strings.Builder
		fmt.Fprintf(&s, "# README.md:%d\n", b.line)
		switch b.kind {
		case "test-init":
			s.WriteString("exec ka2 init proj\ncd proj\n")
		case "test-repo":
			s.WriteString("copyexamples\n")
		}
		s.WriteString("exec sh -e $WORK/script.sh\n")
		if b.output != nil {
			s.WriteString("cmp stdout $WORK/want.txt\n")
		}
		fmt.Fprintf(&s, "-- script.sh --\n%s", b.script)
		if b.output != nil {
			fmt.Fprintf(&s, "-- want.txt --\n%s", *b.output)
		}
		name := fmt.Sprintf("readme_line_%04d.txtar", b.line)
		testutil.WriteFile(t, filepath.Join(dir, name), s.String())
	}
	testscript.Run(t, testscript.Params{
		Dir:  dir,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": cmdExits, "copyexamples": cmdCopyExamples},
	})
}

// cmdCopyExamples copies the repository's examples folder into the
// script's work folder, keeping the stage programs executable.
func cmdCopyExamples(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: copyexamples")
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	ts.Check(err)
	ts.Check(os.CopyFS(ts.MkAbs("examples"), os.DirFS(src)))
}
