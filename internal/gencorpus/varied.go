package gencorpus

import (
	"fmt"
	"strings"
	"testing/fstest"
	"time"
)

// VariedSubjects are the subjects of the sources Varied makes.
var VariedSubjects = []string{"meals", "lodging", "rail", "parking", "visa"}

// VariedFirst is the earliest valid_from of a source Varied makes; every
// source starts within 720 days of it.
var VariedFirst = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Varied returns n sources that differ in every way an evidence record
// can: one or two subjects of VariedSubjects, overlapping versions and
// supplements, open-ended and closed validity, with and without a unit,
// in en, zh or no language, bodies of 1 to 7 lines, and no cite ranges,
// one, several, or one that is the whole body. Some lines hold characters
// JSON escapes or writes as they are (quotes, backslashes, <, &). The same
// n always gives the same files.
func Varied(n int) fstest.MapFS {
	fsys := make(fstest.MapFS, n)
	for i := range n {
		p, data := variedFile(i)
		fsys[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys
}

func variedFile(i int) (string, []byte) {
	var fm strings.Builder
	fmt.Fprintf(&fm, "---\nsource_id: var-%03d\nversion: v%d\n", i, 1+i%3)
	subjects := VariedSubjects[i%len(VariedSubjects)]
	if i%7 == 3 {
		subjects += ", " + VariedSubjects[(i+2)%len(VariedSubjects)]
	}
	fmt.Fprintf(&fm, "subjects: [%s]\n", subjects)
	from := VariedFirst.AddDate(0, 0, 60*(i%13))
	fmt.Fprintf(&fm, "valid_from: %s\n", from.Format(time.DateOnly))
	if i%3 != 0 {
		fmt.Fprintf(&fm, "valid_until: %s\n", from.AddDate(0, 0, 90*(1+i%4)).Format(time.DateOnly))
	}
	lang := []string{"en", "zh", "en", "zh", ""}[i%5]
	if lang != "" {
		fmt.Fprintf(&fm, "lang: %s\n", lang)
	}
	if i%4 != 3 {
		fmt.Fprintf(&fm, "unit: %s\n", []string{"EUR per day", "元/天", "CNY per night"}[i%3])
	}
	if i%6 == 5 {
		fm.WriteString("role: supplement\n")
	}
	lines := 1 + i%7
	if cite := variedCite(i, lines); cite != "" {
		fmt.Fprintf(&fm, "cite: [%s]\n", cite)
	}
	fm.WriteString("---\n")
	for l := 1; l <= lines; l++ {
		fm.WriteString(variedLine(i, l, lang))
		fm.WriteByte('\n')
	}
	return fmt.Sprintf("%s/var-%03d.md", []string{"a", "b", "c"}[i%3], i), []byte(fm.String())
}

// variedCite is the cite value of source i with a body of n lines: none,
// the first lines, several ranges with gaps, or the whole body.
func variedCite(i, n int) string {
	switch {
	case i%4 == 0:
		return ""
	case i%4 == 1:
		return fmt.Sprintf(`"1-%d"`, min(2, n))
	case i%4 == 2 && n >= 5:
		return fmt.Sprintf(`"1-1", "2-3", "5-%d"`, n)
	case i%4 == 2 && n >= 3:
		return fmt.Sprintf(`"1-1", "3-%d"`, n)
	default:
		return fmt.Sprintf(`"1-%d"`, n)
	}
}

// variedLine is body line l of source i: unique in the corpus, so a quote
// is found at one place only.
func variedLine(i, l int, lang string) string {
	amount := 20 + (i*7+l*3)%180
	switch {
	case l == 1 && lang == "zh":
		return fmt.Sprintf("适用范围：第 %d 号规则。", i)
	case l == 1:
		return fmt.Sprintf("Scope: rule %d.", i)
	case l == 2:
		return fmt.Sprintf("Rule %d, line 2: effective as its front matter says.", i)
	case lang == "zh":
		return fmt.Sprintf("第 %d 号规则第 %d 行：上限 %d。", i, l, amount)
	case (i+l)%5 == 0:
		return fmt.Sprintf(`Rule %d, line %d: "receipts" <kept> & filed \ at %d.`, i, l, amount)
	}
	return fmt.Sprintf("Rule %d, line %d: the limit is %d.", i, l, amount)
}
