package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// FuzzVerify feeds Verify contracts built over the cited corpus, in both
// forms, and whatever the fuzzer makes of them. Verify never panics and
// says the same twice; and a contract it accepts that holds only what a
// plain build writes (no memory, tool output, promoted output or request
// instructions) is byte for byte the whole or the short build of its own
// scope and question.
func FuzzVerify(f *testing.F) {
	b := newBuilder(f, os.DirFS("testdata/cited"), "codepoint")
	b.Limits.Capacity = 20000
	for _, dates := range [][]string{{"2026-03-01"}, {"2025-07-01", "2026-08-01"}, {"2024-01-01"}} {
		for _, short := range []bool{false, true} {
			res, err := b.Build(context.Background(), request("en", "What may a meal cost?", short, "meals", dates...))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(res.JSON))
		}
	}
	f.Fuzz(func(t *testing.T, data string) {
		v := b.Verify([]byte(data), "")
		if again := b.Verify([]byte(data), ""); !slices.Equal(problemCodes(v), problemCodes(again)) {
			t.Fatalf("Verify() differs on the same input: %v, then %v", v.Problems, again.Problems)
		}
		if !v.OK() {
			return
		}
		var d contract.Document
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatalf("Verify() accepts what does not decode: %v", err)
		}
		if len(d.Memory) > 0 || len(d.ToolOutput) > 0 || len(v.Notes) > 0 || d.Scope == nil {
			return // typed parts come from a request, which the fuzzer does not give
		}
		q := selector.Query{Subjects: d.Scope.Subjects, Lang: v.Lang}
		for _, s := range d.Scope.Dates {
			day, err := corpus.ParseDate(s)
			if err != nil {
				t.Fatalf("Verify() accepts a scope date %q: %v", s, err)
			}
			q.Dates = append(q.Dates, day)
		}
		got := strings.TrimSuffix(strings.TrimSuffix(data, "\n"), "\r")
		for _, short := range []bool{false, true} {
			res, err := b.Build(context.Background(), contract.Request{Query: q, Question: d.Question, Short: short})
			if err == nil && bytes.Equal(res.JSON, []byte(got)) {
				return
			}
		}
		t.Fatalf("Verify() accepts a contract that neither build of its scope prints:\n%s", data)
	})
}
