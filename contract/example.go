package contract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// CodeExampleCitation is the code of a worked example's citation that
// names no source of the corpus (see Definition.CheckExample).
const CodeExampleCitation diag.Code = "example_citation"

// CheckExample checks the worked example of every language against the
// corpus c the contracts are built from. The example shows the generator
// the citation format; one that cites an address c does not have (the
// embedded Beijing-lodging example in a project about meals) shows it an
// address that does not exist in its corpus, which it may copy. Each
// citation [SOURCE_ID:START-END] of an example's answer that names no
// source of c, in any language, or lines outside that source's body, is a
// warning at the content file, sorted by language. A citation that is not
// an address is left to the definition's own checks.
func (d *Definition) CheckExample(c *corpus.Corpus) []*diag.Diagnostic {
	var out []*diag.Diagnostic
	for _, lang := range d.Langs() {
		for _, a := range exampleAddresses(d.Content[lang].Example.Answer) {
			i, found := slices.BinarySearchFunc(c.Sources, a.SourceID, func(s *corpus.Source, id string) int { return strings.Compare(s.ID, id) })
			var problem string
			switch {
			case !found:
				problem = "the corpus has no source " + a.SourceID
			case a.Range.End > c.Sources[i].NumLines():
				problem = fmt.Sprintf("%s has %d body lines", a.SourceID, c.Sources[i].NumLines())
			default:
				continue
			}
			out = append(out, &diag.Diagnostic{Pos: diag.Pos{Path: d.ContentFile}, Code: CodeExampleCitation, Severity: diag.SeverityWarning,
				Message: fmt.Sprintf("the worked example (%s) cites [%s], but %s: the generator is shown an address that is not in its corpus", lang, a, problem),
				Hint:    diag.Set("write a content file whose example cites a source of this corpus, and name it with {content}")})
		}
	}
	return out
}

// exampleAddresses lists the addresses with lines cited in brackets in
// text ([SOURCE_ID:START-END], the format the instruction asks for), in
// the order written; a bracket may hold several, separated by ", " or "; ".
func exampleAddresses(text string) []corpus.Address {
	var out []corpus.Address
	for {
		open := strings.IndexByte(text, '[')
		if open < 0 {
			return out
		}
		end := strings.IndexByte(text[open:], ']')
		if end < 0 {
			return out
		}
		for part := range strings.FieldsFuncSeq(text[open+1:open+end], func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
			if a, err := corpus.ParseAddress(part); err == nil && strings.Contains(part, ":") {
				out = append(out, a)
			}
		}
		text = text[open+end+1:]
	}
}
