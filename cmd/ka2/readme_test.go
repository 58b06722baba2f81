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

// docPages are the documentation pages whose examples must run, relative
// to the repository root: README.md, then every page under docs/ (a glob,
// so a page added there is covered without naming it here).
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md pages: the reference the README links to is missing")
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(filepath.Join("..", ".."), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// readPage returns the text of page (a docPages name).
func readPage(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readmeBlock is a runnable shell example of a documentation page and the
// output it shows, if any.
type readmeBlock struct {
	page   string // the docPages name of the page it is on
	line   int    // where the block starts
	kind   string // "test": in an empty folder; "test-init": inside a ka2 init project; "test-repo": beside a copy of the repository's examples/
	script string
	output *string // the block right after it fenced "text output", if any
}

// readmeBlocks extracts a page's runnable examples: fenced blocks whose
// info string is "sh test", "sh test-init" or "sh test-repo", each with
// the "text output" block that follows it. shell counts every ```sh
// block, runnable or not.
func readmeBlocks(t *testing.T, page string) (blocks []readmeBlock, shell int) {
	t.Helper()
	var (
		cur     *strings.Builder
		info    string
		start   int
		lastEnd = -2 // line of the last runnable block's closing fence
	)
	sc := bufio.NewScanner(strings.NewReader(readPage(t, page)))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if rest, ok := strings.CutPrefix(trimmed, "```"); ok {
				info, start, cur = rest, n, &strings.Builder{}
				if info == "sh" || strings.HasPrefix(info, "sh ") {
					shell++
				}
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
			blocks = append(blocks, readmeBlock{page: page, line: start, kind: strings.TrimPrefix(info, "sh "), script: text})
			lastEnd = n
		case "text output":
			if len(blocks) == 0 || lastEnd != start-2 {
				t.Fatalf("%s:%d: a text output block must follow a runnable block after one blank line", page, start)
			}
			blocks[len(blocks)-1].output = &text
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks, shell
}

// notRun are the pages whose shell examples are all left unrun, and why.
// Any other page with ```sh blocks must have a runnable one: a page
// whose every block lost its "sh test" mark would otherwise pass unchecked.
var notRun = map[string]string{
	"docs/performance.md": "ka2perf ratios runs for minutes; .ci/run runs it -quick",
}

// TestREADME runs every runnable example of README.md and the docs/ pages
// (see readmeBlocks) as a shell script with the ka2 under test on PATH,
// and checks the output it shows exactly: an example that drifts from
// what ka2 does fails here.
func TestREADME(t *testing.T) {
	var blocks []readmeBlock
	for _, page := range docPages(t) {
		b, shell := readmeBlocks(t, page)
		if shell > 0 && len(b) == 0 && notRun[page] == "" {
			t.Errorf("%s has %d ```sh blocks and none runnable; mark them \"sh test\" (or say in notRun why not)", page, shell)
		}
		blocks = append(blocks, b...)
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d runnable examples in README.md and docs/; the fences lost their \"sh test\" marks?", len(blocks))
	}
	dir := t.TempDir()
	for _, b := range blocks {
		var s strings.Builder
		fmt.Fprintf(&s, "# %s:%d\n", b.page, b.line)
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
		name := strings.NewReplacer("/", "_", ".md", "").Replace(b.page)
		name = fmt.Sprintf("%s_line_%04d.txtar", name, b.line)
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
