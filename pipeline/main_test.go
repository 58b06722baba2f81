package pipeline

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	stageOnce sync.Once
	stageDir  string
	stageErr  error
)

// stageBin returns the folder holding the test stage programs (answer,
// check and emit from testdata/stages), building them on first use with
// the go command. Only tests that run exec stages build them, so fuzzing
// never does. The folder is kept between runs, one per checkout: go build
// leaves programs that are up to date as they are, so a later run does
// not link them again.
func stageBin(t testing.TB) string {
	t.Helper()
	stageOnce.Do(func() {
		src, err := filepath.Abs("testdata/stages")
		if err != nil {
			stageErr = err
			return
		}
		sum := sha256.Sum256([]byte(src))
		stageDir = filepath.Join(os.TempDir(), fmt.Sprintf("ka2-pipeline-stages-%x", sum[:8]))
		if stageErr = os.MkdirAll(stageDir, 0o755); stageErr != nil {
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
