package corpus_test

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/corpus"
)

func TestSubjects(t *testing.T) {
	src := func(id, lang, subjects, from, until string) *fstest.MapFile {
		text := "---\nsource_id: " + id + "\nversion: v1\nsubjects: " + subjects + "\nvalid_from: " + from + "\n"
		if until != "" {
			text += "valid_until: " + until + "\n"
		}
		if lang != "" {
			text += "lang: " + lang + "\n"
		}
		return &fstest.MapFile{Data: []byte(text + "---\nText.\n")}
	}
	fsys := fstest.MapFS{
		"a.md":    src("a", "en", "[meals]", "2025-01-01", "2026-01-01"),
		"a-zh.md": src("a", "zh", "[meals]", "2025-01-01", "2026-01-01"),
		"b.md":    src("b", "en", "[meals]", "2026-01-01", "2026-06-01"), // meets a
		"c.md":    src("c", "", "[meals, rail]", "2027-01-01", ""),       // after a gap, open
		"d.md":    src("d", "en", "[rail]", "2026-03-01", "2027-02-01"),
	}
	c, err := corpus.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	d := func(s string) corpus.Date { return mustParse(t, s) }
	want := []corpus.Subject{
		{Name: "meals", Sources: []string{"a", "b", "c"}, Langs: []string{"en", "zh"}, AnyLang: true,
			Coverage: []corpus.Span{{From: d("2025-01-01"), Until: d("2026-06-01")}, {From: d("2027-01-01")}}},
		{Name: "rail", Sources: []string{"c", "d"}, Langs: []string{"en"}, AnyLang: true,
			Coverage: []corpus.Span{{From: d("2026-03-01")}}},
	}
	if diff := cmp.Diff(want, c.Subjects(), cmp.Comparer(func(a, b corpus.Date) bool { return a == b })); diff != "" {
		t.Errorf("Subjects() mismatch (-want +got):\n%s", diff)
	}
	if got := want[0].Coverage[1].String(); got != "[2027-01-01, open)" {
		t.Errorf("Span.String() = %q", got)
	}
}

func mustParse(t *testing.T, s string) corpus.Date {
	t.Helper()
	d, err := corpus.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
