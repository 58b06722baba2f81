package golden_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ka2/ka2/golden"
)

// A case file pins what one question receives. The first run finds no
// golden; --update writes it; from then on a run passes while the build's
// bytes stay the same.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "ka2-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "lodging.yaml")
	err = os.WriteFile(file, []byte(`# No corpus: the embedded sample.
defaults:
  subject: lodging
cases:
  - name: current-cap
    question: What is the Beijing hotel cap in September 2026?
    dates: [2026-09-14]
    expect:
      sources: [travel-v2]
`), 0o644)
	if err != nil {
		panic(err)
	}
	suite, err := golden.Load(context.Background(), []string{file}, golden.LoadOptions{})
	if err != nil {
		panic(err)
	}
	for _, opts := range []golden.Options{{}, {Update: true}, {}} {
		rep, err := golden.Run(context.Background(), suite, opts)
		if err != nil {
			panic(err)
		}
		fmt.Println(rep.SummaryLine())
	}
	// Output:
	// ka2 regress: 1 case, 0 passed, 1 failed (0 differ, 1 missing, 0 with failed expectations): FAIL
	// ka2 regress: 1 case, 1 passed, 0 failed; 0 goldens updated, 1 created: ok
	// ka2 regress: 1 case, 1 passed, 0 failed: ok
}
