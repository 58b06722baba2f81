package budget

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refTable is one table of testdata/unicode/counts.txt.gz: OpenAI's
// tiktoken's token count for template with every scalar value in its slot.
type refTable struct {
	encoding, template string
	// starts[k] is the first code point of run k, counts[k] its count.
	starts []rune
	counts []int
}

// count returns the expected count for r.
func (t *refTable) count(r rune) int {
	k, found := slices.BinarySearch(t.starts, r)
	if !found {
		k--
	}
	return t.counts[k]
}

// text returns the template with r in its slot.
func (t *refTable) text(r rune) string {
	return strings.ReplaceAll(t.template, "{x}", string(r))
}

// loadReference reads testdata/unicode/counts.txt.gz (format in gen.mjs).
func loadReference(tb testing.TB) []*refTable {
	tb.Helper()
	path := filepath.Join("testdata", "unicode", "counts.txt.gz")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	var tables []*refTable
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "#"):
			continue
		case strings.HasPrefix(text, "= "):
			enc, tpl, ok := strings.Cut(text[2:], " ")
			var template string
			if !ok || json.Unmarshal([]byte(tpl), &template) != nil {
				tb.Fatalf("%s:%d: bad table line %q", path, line, text)
			}
			tables = append(tables, &refTable{encoding: enc, template: template})
			continue
		}
		gap, count, ok := strings.Cut(text, " ")
		g, err1 := strconv.Atoi(gap)
		n, err2 := strconv.Atoi(count)
		if !ok || err1 != nil || err2 != nil || len(tables) == 0 {
			tb.Fatalf("%s:%d: bad run line %q", path, line, text)
		}
		t := tables[len(tables)-1]
		start := rune(g)
		if k := len(t.starts); k > 0 {
			start += t.starts[k-1]
		}
		t.starts = append(t.starts, start)
		t.counts = append(t.counts, n)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(tables) != 6 {
		tb.Fatalf("%s: %d tables, want 6", path, len(tables))
	}
	return tables
}

// goClasses returns the class bits of r by Go's unicode package, as
// tiktoken-go (and ka2 before ucd_tables.go) sees them.
func goClasses(r rune) uint8 {
	in := func(tables ...*unicode.RangeTable) bool { return unicode.IsOneOf(tables, r) }
	var c uint8
	if unicode.IsLetter(r) {
		c |= clsL
	}
	if unicode.IsNumber(r) {
		c |= clsN
	}
	if unicode.IsSpace(r) {
		c |= clsS
	}
	if in(unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= clsU
	}
	if in(unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= clsW
	}
	return c
}

// ucdClasses returns the class bits of r straight from the generated
// Unicode 16.0.0 tables, as tiktoken's regex engine sees them.
func ucdClasses(r rune) uint8 {
	in := func(tables ...*unicode.RangeTable) bool { return unicode.IsOneOf(tables, r) }
	var c uint8
	if in(ucdLu, ucdLl, ucdLt, ucdLm, ucdLo) {
		c |= clsL
	}
	if in(ucdN) {
		c |= clsN
	}
	if in(ucdWhiteSpace) {
		c |= clsS
	}
	if in(ucdLu, ucdLt, ucdLm, ucdLo, ucdM) {
		c |= clsU
	}
	if in(ucdLl, ucdLm, ucdLo, ucdM) {
		c |= clsW
	}
	return c
}

// newerThanGo reports whether r's class at Unicode 16.0.0 is not the one
// Go's unicode tables (15.0.0) give it. These are code points added in
// Unicode 15.1 and 16.0 (TestUCDOnlyAdds), on which tiktoken-go is known to
// be wrong: its regexp2 patterns use Go's tables.
func newerThanGo(r rune) bool {
	return newerRunes()[r]
}

// newerRunes is the set of newerThanGo, found once per test process. Only a
// code point in some class on either side can differ, so it walks the
// tables' ranges rather than all 1,114,112 code points.
var newerRunes = sync.OnceValue(func() map[rune]bool {
	set := make(map[rune]bool)
	tables := []*unicode.RangeTable{
		ucdLu, ucdLl, ucdLt, ucdLm, ucdLo, ucdM, ucdN, ucdWhiteSpace,
		unicode.L, unicode.M, unicode.N, unicode.White_Space,
	}
	// The tables overlap (Lo is in L, …): compare each code point once.
	seen := make([]bool, unicode.MaxRune+1)
	for _, t := range tables {
		visit := func(lo, hi, stride uint32) {
			for c := lo; c <= hi; c += stride {
				if seen[c] {
					continue
				}
				seen[c] = true
				if r := rune(c); ucdClasses(r) != goClasses(r) {
					set[r] = true
				}
			}
		}
		for _, x := range t.R16 {
			visit(uint32(x.Lo), uint32(x.Hi), uint32(x.Stride))
		}
		for _, x := range t.R32 {
			visit(x.Lo, x.Hi, x.Stride)
		}
	}
	return set
})

// scanRunes returns the code points TestUnicodeScan counts: all scalar
// values with -long, otherwise every code point whose class is not
// the one Go's unicode tables give (those added in Unicode 15.1 and 16.0),
// the first code point of every 50th run and its predecessor, and every
// 97th scalar value.
func scanRunes(full bool, ref []*refTable) []rune {
	var out []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if full || r%97 == 0 || newerThanGo(r) {
			out = append(out, r)
		}
	}
	if !full {
		for _, t := range ref {
			for k := 0; k < len(t.starts); k += 50 {
				out = append(out, t.starts[k], t.starts[k]-1)
			}
		}
		out = slices.DeleteFunc(out, func(r rune) bool { return !utf8.ValidRune(r) })
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// TestUnicodeScan counts templates around Unicode scalar values and
// compares with the counts pinned from OpenAI's tiktoken (see
// testdata/unicode/README.md). By default it scans a sample that holds
// every code point on which Go's Unicode 15.0 tables and tiktoken's 16.0
// differ; -long scans all 1,112,064.
func TestUnicodeScan(t *testing.T) {
	ref := loadReference(t)
	runes := scanRunes(*long, ref)
	total, bad := 0, 0
	badRunes := make(map[rune]bool)
	for _, tab := range ref {
		e := pureGo(t, tab.encoding)
		var first []string
		for _, r := range runes {
			total++
			want := tab.count(r)
			if got := e.count(tab.text(r)); got != want {
				bad++
				badRunes[r] = true
				if len(first) < 5 {
					first = append(first, fmt.Sprintf("%U %q: %d tokens, tiktoken %d", r, tab.text(r), got, want))
				}
			}
		}
		if len(first) > 0 {
			t.Errorf("%s %q: first mismatches:\n\t%s", tab.encoding, tab.template, strings.Join(first, "\n\t"))
		}
	}
	t.Logf("%d of %d counts differ from tiktoken, on %d of %d code points scanned (full=%v)", bad, total, len(badRunes), len(runes), *long)
}

// TestTiktokenProbes compares token IDs with OpenAI's tiktoken on the
// strings of testdata/unicode/probes.json: contractions with U+017F LONG S
// (tiktoken's regex engine folds case by Unicode simple case folding, so
// " I'\u017F" is one piece; tiktoken-go does not fold it), the edges of \s,
// and code points new in Unicode 15.1 and 16.0 in context.
func TestTiktokenProbes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "unicode", "probes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var probes []struct {
		Encoding string
		Text     string
		IDs      []int
	}
	if err := json.Unmarshal(raw, &probes); err != nil {
		t.Fatal(err)
	}
	if len(probes) == 0 {
		t.Fatal("no probes")
	}
	for _, p := range probes {
		if got := pureGo(t, p.Encoding).encode(p.Text); !slices.Equal(got, p.IDs) {
			t.Errorf("%s encode(%q) = %v, tiktoken gives %v", p.Encoding, p.Text, got, p.IDs)
		}
	}
}
