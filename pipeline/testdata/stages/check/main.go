// Command check is a pipeline stage for ka2's tests. It reads a stage
// context whose input is an answer (answer, amount, citation) and whose
// "contract" artifact is the ka2-context-v1 contract the answer was made
// from, and checks the citation against the contract: the address is
// well formed, the contract quotes those lines, the quoted lines state the
// amount, and the answer carries the address. It writes
//
//	{"output": {"ok": true, "citation": "travel-v2:3-3", "cited": "…"}}
//
// or lists the problems on stderr and exits 1.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

type stageContext struct {
	Input struct {
		Answer   string      `json:"answer"`
		Amount   json.Number `json:"amount"`
		Citation string      `json:"citation"`
	} `json:"input"`
	Artifacts struct {
		Contract *struct {
			Evidence []struct {
				SourceID  string `json:"source_id"`
				LineStart int    `json:"line_start"`
				LineEnd   int    `json:"line_end"`
				Quote     string `json:"quote"`
			} `json:"evidence"`
		} `json:"contract"`
	} `json:"artifacts"`
}

type verdict struct {
	OK       bool   `json:"ok"`
	Citation string `json:"citation"`
	Cited    string `json:"cited"`
}

var addressRE = regexp.MustCompile(`^([a-z0-9._-]+):([1-9][0-9]*)-([1-9][0-9]*)$`)

func main() {
	var ctx stageContext
	if err := json.NewDecoder(os.Stdin).Decode(&ctx); err != nil {
		fail("read the stage context: %v", err)
	}
	if ctx.Artifacts.Contract == nil {
		fail("no contract artifact: inherit artifacts from the stage that built it")
	}
	in := ctx.Input
	m := addressRE.FindStringSubmatch(in.Citation)
	if m == nil {
		fail("citation %q is not SOURCE:START-END", in.Citation)
	}
	start, _ := strconv.Atoi(m[2])
	end, _ := strconv.Atoi(m[3])
	var problems []string
	if !strings.Contains(in.Answer, "["+in.Citation+"]") {
		problems = append(problems, fmt.Sprintf("the answer does not carry [%s]", in.Citation))
	}
	cited := ""
	found := false
	for _, e := range ctx.Artifacts.Contract.Evidence {
		if e.SourceID != m[1] || start < e.LineStart || end > e.LineEnd || start > end {
			continue
		}
		lines := strings.Split(e.Quote, "\n")
		cited = strings.Join(lines[start-e.LineStart:end-e.LineStart+1], "\n")
		found = true
		break
	}
	switch {
	case !found:
		problems = append(problems, fmt.Sprintf("the contract quotes no lines %s", in.Citation))
	case !statesAmount(cited, string(in.Amount)):
		problems = append(problems, fmt.Sprintf("lines %s do not state %s: %q", in.Citation, in.Amount, cited))
	}
	if len(problems) > 0 {
		fail("%s", strings.Join(problems, "; "))
	}
	out := map[string]verdict{"output": {OK: true, Citation: in.Citation, Cited: cited}}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("write the verdict: %v", err)
	}
}

// statesAmount reports whether text has amount as a whole number, so 75
// is not found in 750.
func statesAmount(text, amount string) bool {
	re := regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(amount) + `([^0-9.]|$)`)
	return amount != "" && re.MatchString(text)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "check: "+format+"\n", args...)
	os.Exit(1)
}
