package grade

import (
	"fmt"
	"strings"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// CheckQuotes checks that every evidence record of c quotes its source in
// corp exactly (lang picks the source where ids repeat across languages;
// "" when it does not matter), so that an answer is graded against
// evidence the corpus confirms, not against a contract edited by hand.
// Records of promoted tool output or memory (tool:NAME, memory:NAME) have
// no corpus lines and are left alone. Every mismatch is reported, as a
// diag.List matching ErrBadContract.
func CheckQuotes(c *contract.Document, corp *corpus.Corpus, lang string) error {
	var errs diag.List
	for i, r := range c.Evidence {
		if strings.HasPrefix(r.SourceID, "tool:") || strings.HasPrefix(r.SourceID, "memory:") {
			continue
		}
		addr := fmt.Sprintf("%s:%d-%d", r.SourceID, r.LineStart, r.LineEnd)
		bad := func(format string, args ...any) {
			errs = append(errs, &diag.Diagnostic{Message: fmt.Sprintf("contract evidence[%d] (%s): ", i, addr) + fmt.Sprintf(format, args...),
				Hint: diag.Fix("grade against the contract ka2 build printed for this corpus"), Err: ErrBadContract})
		}
		s, err := corp.Lookup(r.SourceID, lang)
		if err != nil {
			bad("%v", err)
			continue
		}
		q, err := s.Quote(corpus.Range{Start: r.LineStart, End: r.LineEnd})
		if err != nil {
			bad("%v", err)
			continue
		}
		if q != r.Quote {
			bad("the quote differs from the corpus's lines")
		}
	}
	return errs.Mark(ErrBadContract)
}
