package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/eval"
)

// quoter answers as a careful generator does: the first amount the
// evidence states, cited, or a refusal when there is no evidence.
type quoter struct{}

func (quoter) Answer(_ context.Context, doc []byte, _ eval.Request) (string, error) {
	c, err := contract.ReadContract("contract", doc)
	if err != nil {
		return "", err
	}
	for _, r := range c.Evidence {
		for i, line := range strings.Split(r.Quote, "\n") {
			if strings.Contains(line, " CNY") {
				f := strings.Fields(line[:strings.Index(line, " CNY")])
				return fmt.Sprintf("The limit is %s CNY per room-night [%s:%d].", f[len(f)-1], r.SourceID, r.LineStart+i), nil
			}
		}
	}
	return "There is no applicable evidence, so I cannot answer.", nil
}

// A Spec is what ka2 eval asks for: case files, a generator and the
// options. Run checks the options, loads the cases, sends each variant
// and grades each answer; Failure says which condition fell short.
func ExampleSpec_Run() {
	dir, err := os.MkdirTemp("", "ka2-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "cases.yaml")
	err = os.WriteFile(file, []byte(`# No corpus: the embedded sample.
defaults:
  subject: lodging
  capacity: 4000
cases:
  - name: current
    question: What is the Beijing lodging limit?
    dates: [2026-09-14]
    expect:
      answer: ["750"]
`), 0o644)
	if err != nil {
		panic(err)
	}
	minPass, err := eval.ParseMinPass("1")
	if err != nil {
		panic(err)
	}
	spec := eval.Spec{Paths: []string{file}, Generator: quoter{}, Options: eval.Options{
		Conditions: []eval.Condition{eval.Base, eval.Hostile, eval.Missing}, Repeat: 1, Jobs: 1, Distractors: 2, MinPass: minPass}}
	rep, err := spec.Run(context.Background())
	if err != nil {
		panic(err)
	}
	for _, c := range rep.Conditions {
		fmt.Printf("%s: %d of %d passed\n", c.Name, c.Passed, c.Runs)
	}
	fmt.Println("failure:", rep.Failure())
	// Output:
	// base: 1 of 1 passed
	// hostile: 1 of 1 passed
	// missing: 1 of 1 passed
	// failure: <nil>
}
