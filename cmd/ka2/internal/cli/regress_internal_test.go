package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestRegressProgressLine checks the progress line: drawn on a terminal,
// erased before the report, absent otherwise.
func TestRegressProgressLine(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/regress.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range ar.Files {
		writeRegressTestFile(t, f.Name, f.Data)
	}
	for _, terminal := range []bool{true, false} {
		var out bytes.Buffer
		f := &Factory{Out: &out, OutTTY: terminal, Getenv: func(string) string { return "" }}
		o := &RegressOptions{f: f, Paths: []string{"cases"}, Format: "text", Unreferenced: "report"}
		err := runRegress(o)
		if err == nil {
			t.Fatal("the run passed without goldens")
		}
		got := out.String()
		drawn := strings.Contains(got, "\r\033[Kka2 regress: 7/7 cases, 7 failed\r\033[KFAIL cases/equipment/laptops.yaml:5 laptop-now")
		if drawn != terminal || (!terminal && strings.Contains(got, "\r")) {
			t.Errorf("terminal=%v: progress drawn=%v in:\n%q", terminal, drawn, got)
		}
	}
}

func writeRegressTestFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := regressWriteFile(name, data); err != nil {
		t.Fatal(err)
	}
}

func regressWriteFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}
