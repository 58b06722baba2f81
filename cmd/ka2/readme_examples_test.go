package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shellLine is a line of a ```sh block of a documentation page.
type shellLine struct {
	page string // a docPages name
	line int
	text string
}

// readmeShellLines are the lines of every ```sh block of README.md and the
// docs/ pages, run by TestREADME or not, with their places.
func readmeShellLines(t *testing.T) []shellLine {
	t.Helper()
	var out []shellLine
	for _, page := range docPages(t) {
		in := false
		for i, l := range strings.Split(readPage(t, page), "\n") {
			trimmed := strings.TrimSpace(l)
			switch {
			case !in && (trimmed == "```sh" || strings.HasPrefix(trimmed, "```sh ")):
				in = true
			case in && trimmed == "```":
				in = false
			case in:
				out = append(out, shellLine{page, i + 1, l})
			}
		}
	}
	return out
}

// unquotedGlob returns the first word of a ka2 command on line that the
// shell would expand as a pattern ([...], * or ?, outside quotes), or "".
func unquotedGlob(line string) string {
	words := shellWords(line)
	inKa2 := false
	for _, w := range words {
		switch {
		case w.text == "ka2" && !w.quoted:
			inKa2 = true
		case !w.quoted && (w.text == "|" || w.text == ";" || w.text == "&&" || w.text == "||" || strings.HasPrefix(w.text, ">") || strings.HasPrefix(w.text, "<")):
			inKa2 = false
		case inKa2 && w.glob:
			return w.text
		}
	}
	return ""
}

type shellWord struct {
	text   string
	quoted bool // some of it was quoted
	glob   bool // an unquoted part is a pattern
}

var bracketPattern = regexp.MustCompile(`\[[^\]]+\]`)

// shellWords splits line as sh does, far enough to tell quoted from
// unquoted text; a '#' starting a word ends the line.
func shellWords(line string) []shellWord {
	var out []shellWord
	var cur shellWord
	var bare strings.Builder // cur's unquoted text
	flush := func() {
		if cur.text != "" || cur.quoted {
			b := bare.String()
			b = strings.ReplaceAll(b, "$?", "")
			cur.glob = bracketPattern.MatchString(b) || strings.ContainsAny(b, "*?")
			out = append(out, cur)
		}
		cur, bare = shellWord{}, strings.Builder{}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && cur.text == "" && !cur.quoted:
			flush()
			return out
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				end = len(line) - i - 1
			}
			cur.text += line[i+1 : i+1+end]
			cur.quoted = true
			i += end + 1
		case c == '\\' && i+1 < len(line):
			cur.text += line[i+1 : i+2]
			cur.quoted = true
			i++
		default:
			cur.text += string(c)
			bare.WriteByte(c)
		}
	}
	flush()
	return out
}

// TestREADMEQuotesPatterns: no example passes ka2 an argument the shell
// reads as a pattern ([travel-v1:3] unquoted matches a file named 3).
func TestREADMEQuotesPatterns(t *testing.T) {
	lines := readmeShellLines(t)
	if len(lines) == 0 {
		t.Fatal("no ```sh lines in README.md and docs/: nothing checked")
	}
	for _, l := range lines {
		if w := unquotedGlob(l.text); w != "" {
			t.Errorf("%s:%d: %s is a shell pattern: quote it\n\t%s", l.page, l.line, w, l.text)
		}
	}
}

func TestUnquotedGlob(t *testing.T) {
	tests := []struct{ line, want string }{
		{"ka2 show --lang zh [travel-v1:3] travel-v2", "[travel-v1:3]"},
		{"ka2 show --lang zh '[travel-v1:3]' 'travel-v2'", ""},
		{`ka2 show "[travel-v1:3]"`, ""},
		{`ka2 show \[travel-v1:3]`, ""},
		{"ka2 lint policies/*.md", "policies/*.md"},
		{`echo "cite [travel-v2:3]." | ka2 grade --answer - || [ $? -eq 1 ]`, ""},
		{"ka2 lint # every file [checked]", ""},
		{"ls [ab] && ka2 lint", ""},
	}
	for _, tt := range tests {
		if got := unquotedGlob(tt.line); got != tt.want {
			t.Errorf("unquotedGlob(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestREADMEServeExample sends the `ka2 serve` example request of
// docs/serve.md, the body POST /v1/contract takes, to
// `ka2 build --request -` (which answers with the same bytes) in the quick
// start's project, where the example runs `ka2 serve --corpus policies`:
// it must build a contract, not fail with an unknown subject.
func TestREADMEServeExample(t *testing.T) {
	const page = "docs/serve.md"
	_, section, ok := strings.Cut(readPage(t, page), "\n## `ka2 serve`\n")
	if !ok {
		t.Fatalf("%s has no section ## `ka2 serve`", page)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	m := regexp.MustCompile(`(?m)^curl -s \S+/v1/contract -d '([^']*)'$`).FindStringSubmatch(section)
	if m == nil || !strings.Contains(section[:strings.Index(section, m[0])], "ka2 serve --corpus policies") {
		t.Fatalf("%s: the ka2 serve section has no `ka2 serve --corpus policies` then `curl -s …/v1/contract -d '…'` example", page)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	initCmd := exec.CommandContext(ctx, "ka2", "init", "p")
	initCmd.Dir = dir
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("ka2 init: %v\n%s", err, out)
	}
	build := exec.CommandContext(ctx, "ka2", "build", "--corpus", "policies", "--request", "-")
	build.Dir, build.Stdin = filepath.Join(dir, "p"), strings.NewReader(m[1])
	var stderr strings.Builder
	build.Stderr = &stderr
	out, err := build.Output()
	if err != nil || !strings.HasPrefix(string(out), "{") {
		t.Errorf("the serve page's request %s in the quick start's project: %v\n%s", m[1], err, stderr.String())
	}
}
