// Command answer is a pipeline stage for ka2's tests. It reads a stage
// context whose input is a ka2-context-v1 contract, finds the first
// evidence line that states an amount (a number followed by CNY or 元),
// and answers with that line and its address:
//
//	{"output": {"answer": "… 750 CNY per room-night. [travel-v2:3-3]",
//	            "amount": 750, "citation": "travel-v2:3-3"}}
//
// With -amount N it lies: it answers N with the same citation, so the
// checker has something to catch. With no amount in the evidence it exits
// 1 and says so on stderr.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
)

type stageContext struct {
	Input struct {
		Evidence []struct {
			SourceID  string `json:"source_id"`
			LineStart int    `json:"line_start"`
			Quote     string `json:"quote"`
		} `json:"evidence"`
	} `json:"input"`
}

type answer struct {
	Answer   string      `json:"answer"`
	Amount   json.Number `json:"amount"`
	Citation string      `json:"citation"`
}

var amountRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:CNY|元)`)

func main() {
	lie := flag.String("amount", "", "answer this amount instead of the cited one")
	flag.Parse()
	var ctx stageContext
	if err := json.NewDecoder(os.Stdin).Decode(&ctx); err != nil {
		fail("read the stage context: %v", err)
	}
	for _, e := range ctx.Input.Evidence {
		for i, line := range strings.Split(e.Quote, "\n") {
			m := amountRE.FindStringSubmatchIndex(line)
			if m == nil {
				continue
			}
			amount := line[m[2]:m[3]]
			if *lie != "" {
				line = line[:m[2]] + *lie + line[m[3]:]
				amount = *lie
			}
			n := e.LineStart + i
			cite := fmt.Sprintf("%s:%d-%d", e.SourceID, n, n)
			out := answer{Answer: strings.TrimSpace(line) + " [" + cite + "]", Amount: json.Number(amount), Citation: cite}
			fmt.Fprintf(os.Stderr, "answer: cited %s\n", cite)
			if err := json.NewEncoder(os.Stdout).Encode(map[string]answer{"output": out}); err != nil {
				fail("write the answer: %v", err)
			}
			return
		}
	}
	fail("no evidence record states an amount; refusing to answer")
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "answer: "+format+"\n", args...)
	os.Exit(1)
}
