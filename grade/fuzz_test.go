package grade_test

import (
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/grade"
)

// FuzzGrade checks that no contract and answer make grading panic, and
// that grading is deterministic.
func FuzzGrade(f *testing.F) {
	c := `{"template":"ka2-context-v1","instruction":"Answer.","example":{"question":"q","answer":"600 CNY [travel-v1:1-3]"},"evidence":[{"source_id":"travel-v2","version":"v2","valid_from":"2026-01-01","unit":"CNY per room-night","line_start":1,"line_end":2,"quote":"Effective 2026-01-01.\nThe limit is 750 CNY."}],"scope":{"subjects":["lodging"],"dates":["2026-09-14"]},"question":"q?"}`
	for _, a := range []string{"750 CNY [travel-v2:2].", "７５０元［travel-v2：2］。", "[travel-v2:9-1] 1,500.00", "I have cancelled order A-104.", "[", "[a:]", "1. 2) [x:1-2-3]", "", "[travel-v2:2]", "CNY900 [travel-v2:2].", "900K 1.5k 9百元 [travel-v2:2]", "From 1 January 2026 [travel-v2:1].", "A-104 is now cancelled.", "已撤销订单 A-104。", "I cannot answer that."} {
		f.Add(c, a)
	}
	f.Add(`{"template":"t","example":{"answer":"x"},"evidence":[]}`, "无法回答")
	opts := grade.OptionsFor(contract.Default())
	f.Fuzz(func(t *testing.T, doc, answer string) {
		c, err := contract.ReadContract("c.json", []byte(doc))
		if err != nil {
			return
		}
		a, b := grade.Grade(c, answer, opts), grade.Grade(c, answer, opts)
		if len(a.Findings) != len(b.Findings) {
			t.Fatalf("Grade is not deterministic: %v then %v", a.Findings, b.Findings)
		}
	})
}
