package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain removes the folder of built stage programs after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if stageDir != "" {
		os.RemoveAll(stageDir)
	}
	os.Exit(code)
}

var (
	stageOnce sync.Once
	stageDir  string
	stageErr  error
)

// stageBin returns the folder holding the test stage programs (answer,
// check and emit from testdata/stages), building them on first use with
// the go command. Only tests that run exec stages build them, so fuzzing
// never does.
func stageBin(t testing.TB) string {
	t.Helper()
	stageOnce.Do(func() {
		stageDir, stageErr = os.MkdirTemp("", "ka2-pipeline-stages-")
		if stageErr != nil {
			return
		}
		gocmd := "go"
		if goroot := os.Getenv("GOROOT"); goroot != "" {
			gocmd = filepath.Join(goroot, "bin", "go")
		}
		cmd := exec.Command(gocmd, "build", "-o", stageDir,
			"./testdata/stages/answer", "./testdata/stages/check", "./testdata/stages/emit")
		if out, err := cmd.CombinedOutput(); err != nil {
			stageErr = fmt.Errorf("build the test stages: %v\n%s", err, out)
		}
	})
	if stageErr != nil {
		t.Fatal(stageErr)
	}
	return stageDir
}
