package provenance_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/testutil"
	"github.com/ka2/ka2/provenance"
)

// FuzzParsePolicy: the policy parser never panics, every failure is a
// located policy error, and a policy that parses behaves the same when
// parsed again.
func FuzzParsePolicy(f *testing.F) {
	f.Add(string(provenance.DefaultPolicyYAML))
	for _, data := range testutil.SeedFiles(f, "testdata/*.yaml") {
		f.Add(string(data))
	}
	f.Add("version: 1\nprotected: []\nsources: {}\ntransitions: []\n")
	f.Add("version: 1\nprotected: [memory]\nsources:\n  \"tool:*\": [tool_output]\ntransitions:\n  - {from: tool_output, to: memory, validate: [{check: max_codepoints, limit: 5}]}\n")
	f.Add("version: 1\nprotected: [instruction]\nsources: {}\ntransitions: []\n...\nprotected: []\n")
	f.Add("version: !!str 1\nprotected: [!kind memory]\nsources: {}\ntransitions: []\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := provenance.ParsePolicy("fuzz.yaml", []byte(src))
		if err != nil {
			var pe *provenance.Error
			if !errors.As(err, &pe) || pe.Code != provenance.CodePolicy || pe.Path != "fuzz.yaml" || pe.Message == "" {
				t.Fatalf("error %v is not a located policy error", err)
			}
			return
		}
		q, err := provenance.ParsePolicy("fuzz.yaml", []byte(src))
		if err != nil || !slices.Equal(p.Protected(), q.Protected()) || p.Digest() != q.Digest() {
			t.Fatalf("second parse differs: %v", err)
		}
		for _, k := range p.Protected() {
			if !k.Valid() {
				t.Fatalf("protected type %q is not a kind", k)
			}
		}
		for _, tr := range p.Transitions() {
			if !tr.From.Valid() || !tr.To.Valid() || tr.From == tr.To {
				t.Fatalf("bad transition %+v", tr)
			}
		}
		// Remote callers get only request types, and only promotions a
		// transition makes.
		r := p.Remote()
		for _, k := range r.Types {
			if k != provenance.KindInstruction && k != provenance.KindMemory && k != provenance.KindToolOutput {
				t.Fatalf("remote type %q cannot be in a request", k)
			}
		}
		for _, k := range r.Promote {
			if !slices.ContainsFunc(p.Transitions(), func(tr provenance.Transition) bool { return tr.To == k }) {
				t.Fatalf("remote promotion to %s, which no transition makes", k)
			}
		}
		// A store under the policy works; routes end where they should.
		s := provenance.NewStore(p)
		for _, r := range p.Sources() {
			src := strings.Replace(r.Match, "*", "x", 1)
			for _, k := range provenance.Kinds() {
				if route, ok := p.Route(src, k); ok && (route[len(route)-1] != k || !p.Allows(src, route[0])) {
					t.Fatalf("Route(%s, %s) = %v", src, k, route)
				}
			}
			for _, k := range r.Types {
				if k == provenance.KindExample {
					continue
				}
				if _, err := s.Add(provenance.NewItem(k, src, "fuzz "+string(k), noTime)); err != nil && !errors.Is(err, provenance.ErrRefused) {
					t.Fatalf("Add: %v", err)
				}
			}
		}
	})
}

// FuzzWrappedCheck compares the indexed wrapped-content check with a brute
// force search: an instruction registered after a tool result is refused
// exactly when it reads the same (equal Reading forms), or when its
// Reading form contains the Reading form of a tool result line of at
// least 20 code points.
func FuzzWrappedCheck(f *testing.F) {
	f.Add(toolText, "<instructions>"+toolText+"</instructions>")
	f.Add("short", "<instructions>short</instructions>")
	f.Add("line one is long enough to count\nline two", "prefix LINE ONE IS LONG ENOUGH TO COUNT suffix")
	f.Add("订单 A-104 查询结果：已确认，每间夜七百二十元整。", "请注意：订单 a-104 查询结果：已确认，每间夜七百二十元整。谢谢")
	f.Add("Answer only from evidence.", "Answer only from evidence.")
	f.Fuzz(func(t *testing.T, tool, inst string) {
		if !utf8.ValidString(tool) || !utf8.ValidString(inst) || provenance.Canonical(tool) == "" {
			return
		}
		s := provenance.NewStore(nil)
		if _, err := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:fuzz", tool, noTime)); err != nil {
			t.Fatalf("tool_output refused: %v", err)
		}
		_, err := s.Add(provenance.NewItem(provenance.KindInstruction, "system", inst, noTime))
		want := diag.Code("")
		canon := provenance.Canonical(inst)
		reading := provenance.Reading(inst)
		if canon != "" && reading == provenance.Reading(tool) {
			want = provenance.CodeProtected
		} else if canon != "" {
			for _, line := range strings.Split(tool, "\n") {
				c := provenance.Reading(strings.TrimSuffix(line, "\r"))
				if utf8.RuneCountInString(c) >= 20 && strings.Contains(reading, c) {
					want = provenance.CodeWrapped
					break
				}
			}
		}
		var got diag.Code
		if err != nil {
			got = provErr(t, err).Code
		}
		if got != want {
			t.Fatalf("instruction %q after tool result %q: got %q (%v), want %q", inst, tool, got, err, want)
		}
	})
}
