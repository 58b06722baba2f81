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
	d := corpus.MustParseDate
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

func TestCutsAndContains(t *testing.T) {
	d := corpus.MustParseDate
	src := func(from, until string) *corpus.Source {
		s := &corpus.Source{ValidFrom: d(from)}
		if until != "" {
			s.ValidUntil = d(until)
		}
		return s
	}
	ss := []*corpus.Source{src("2026-01-01", ""), src("2025-01-01", "2026-01-01"), src("2025-06-01", "2025-07-01")}
	want := []corpus.Date{d("2025-01-01"), d("2025-06-01"), d("2025-07-01"), d("2026-01-01")}
	if diff := cmp.Diff(want, corpus.Cuts(ss), dateCmp); diff != "" {
		t.Errorf("Cuts() mismatch (-want +got):\n%s", diff)
	}
	tests := []struct {
		name string
		span corpus.Span
		day  string
		want bool
	}{
		{"before from", ss[1].Validity(), "2024-12-31", false},
		{"on from", ss[1].Validity(), "2025-01-01", true},
		{"on until", ss[1].Validity(), "2026-01-01", false},
		{"open, long after", ss[0].Validity(), "2099-01-01", true},
	}
	for _, tt := range tests {
		if got := tt.span.Contains(d(tt.day)); got != tt.want {
			t.Errorf("%s: %v.Contains(%s) = %v, want %v", tt.name, tt.span, tt.day, got, tt.want)
		}
	}
}
