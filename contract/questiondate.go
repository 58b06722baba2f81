package contract

import (
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/datetext"
)

// QuestionDate is a date the question names on which no scope date
// falls: the contract's evidence is for its scope's dates, so a generator
// given "What is the limit on 2026-09-14?" under a 2025-09-14 scope
// answers for a date the question did not ask. Build and verify never
// fail on it (the scope is what was asked); front ends warn.
type QuestionDate struct {
	// Text is the mention as written in the question, at byte Offset.
	Text   string `json:"text"`
	Offset int    `json:"offset"`
	// Date names it in ka2's form: 2026-09-14 for a day, 2026-09 for a
	// month; From and Until bound its days, From ≤ d < Until.
	Date        string      `json:"date"`
	From, Until corpus.Date `json:"-"`
}

// QuestionDatesOutsideScope returns the dates question names (ISO dates,
// "14 September 2026", "March 2025", "2026年9月14日" …; see
// internal/datetext for what is read) on which none of dates falls, in the
// order written.
func QuestionDatesOutsideScope(question string, dates []corpus.Date) []QuestionDate {
	var out []QuestionDate
	for _, m := range datetext.Find(question) {
		inScope := false
		for _, d := range dates {
			if m.Contains(d) {
				inScope = true
				break
			}
		}
		if !inScope {
			out = append(out, QuestionDate{Text: m.Text, Offset: m.Offset, Date: m.String(), From: m.From, Until: m.Until})
		}
	}
	return out
}
