package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ka2/ka2/internal/testutil"
)

// TestRegressProgressLine checks the progress line: drawn on standard
// error when it is a terminal, erased before the report, absent otherwise,
// with --quiet too; standard output never has it.
func TestRegressProgressLine(t *testing.T) {
	chdirRegressFixture(t)
	for _, tt := range []struct {
		terminal, quiet bool
	}{{true, false}, {false, false}, {true, true}} {
		var out, errOut bytes.Buffer
		f := &Factory{Out: &out, ErrOut: &errOut, OutTTY: true, ErrTTY: tt.terminal, Getenv: func(string) string { return "" }}
		o := &RegressOptions{f: f, Paths: []string{"cases"}, Format: "text", Unreferenced: "report", Quiet: tt.quiet, Color: "never"}
		err := runRegress(o)
		if err == nil {
			t.Fatal("the run passed without goldens")
		}
		got := errOut.String()
		want := tt.terminal && !tt.quiet
		drawn := strings.HasSuffix(got, "\r\033[Kka2 regress: 7/7 cases, 7 failed\r\033[K")
		if drawn != want || (!want && got != "") {
			t.Errorf("terminal=%v quiet=%v: progress drawn=%v in:\n%q", tt.terminal, tt.quiet, drawn, got)
		}
		if strings.Contains(out.String(), "\r") || !strings.HasPrefix(out.String(), "FAIL cases/equipment/laptops.yaml:5 laptop-now") {
			t.Errorf("terminal=%v quiet=%v: standard output:\n%q", tt.terminal, tt.quiet, out.String())
		}
	}
}

// chdirRegressFixture writes the cases of testdata/regress.txtar, without
// goldens, into a new folder and makes it the working folder.
func chdirRegressFixture(t *testing.T) {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/regress.txtar")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, f := range ar.Files {
		testutil.WriteFile(t, f.Name, string(f.Data))
	}
}

// TestColor: --color auto colours on a terminal unless NO_COLOR is set;
// always and never decide alone.
func TestColor(t *testing.T) {
	tests := []struct {
		mode    string
		tty     bool
		noColor string
		want    bool
	}{
		{"auto", true, "", true},
		{"auto", true, "1", false},
		{"auto", false, "", false},
		{"always", false, "1", true},
		{"never", true, "", false},
	}
	for _, tt := range tests {
		f := &Factory{OutTTY: tt.tty, Getenv: func(k string) string {
			if k == "NO_COLOR" {
				return tt.noColor
			}
			return ""
		}}
		if got := f.color(tt.mode); got != tt.want {
			t.Errorf("color(%s) with terminal=%v NO_COLOR=%q = %v, want %v", tt.mode, tt.tty, tt.noColor, got, tt.want)
		}
	}
}

// TestRegressColorDiff: a differing golden's diff is coloured with
// --color always, and the report file never is.
func TestRegressColorDiff(t *testing.T) {
	chdirRegressFixture(t)
	f := &Factory{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
	if err := runRegress(&RegressOptions{f: f, Paths: []string{"cases"}, Update: true, Format: "text", Unreferenced: "report"}); err != nil {
		t.Fatal(err)
	}
	golden := "cases/equipment/testdata/golden/laptops/laptop-now.golden"
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte(`laptop`), []byte(`laptoP`), 1)
	if bytes.Equal(changed, data) {
		t.Fatalf("%s has no %q", golden, "laptop")
	}
	testutil.WriteFile(t, golden, string(changed))
	for _, mode := range []string{"always", "never"} {
		var out bytes.Buffer
		f.Out = &out
		_ = runRegress(&RegressOptions{f: f, Paths: []string{"cases"}, Format: "text", Unreferenced: "report", Color: mode, Reports: []string{"r.txt"}})
		colored := strings.Contains(out.String(), "\033[31m-") && strings.Contains(out.String(), "\033[32m+")
		if colored != (mode == "always") {
			t.Errorf("--color %s: coloured = %v in\n%s", mode, colored, out.String())
		}
		if file, _ := os.ReadFile("r.txt"); bytes.Contains(file, []byte("\033")) || !bytes.Contains(file, []byte("FAIL")) {
			t.Errorf("--color %s: report file:\n%q", mode, file)
		}
	}
}
