package provenance

import (
	"crypto/sha256"
	"strings"
	"testing"
)

// BenchmarkForms times the one-pass forms of ASCII text against the
// plain way of deriving the same values, for the figures beside them: a
// quote's content sum (asciiContentSum, against hashing Canonical's
// string), a question's reading key (readingKey's buffer on the stack,
// against hashing Reading's string) and all of a question's forms
// (shortForms, against contentSum and readingKey, each its own pass).
func BenchmarkForms(b *testing.B) {
	quote := strings.Repeat("Line 4 explains a detail of the rule in plain words, with a receipt required for every claim.\n", 13)
	const question = "What is the limit for this claim?"
	for _, bm := range []struct {
		name string
		f    func()
	}{
		{"content-sum/one-pass", func() { contentSum(quote) }},
		{"content-sum/canonical", func() { _ = sha256.Sum256([]byte(Canonical(quote))) }},
		{"reading-key/stack", func() { readingKey(question) }},
		{"reading-key/reading", func() { readKeyOf([]byte(Reading(question))) }},
		{"question/short-forms", func() { shortForms(question) }},
		{"question/separate", func() { contentSum(question); readingKey(question) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bm.f()
			}
		})
	}
}
