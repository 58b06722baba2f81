package corpus_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
	supplement := func(f *fstest.MapFile) *fstest.MapFile {
		f.Data = []byte(strings.Replace(string(f.Data), "version: v1\n", "version: v1\nrole: supplement\n", 1))
		return f
	}
	fsys := fstest.MapFS{
		"a.md":    src("a", "en", "[meals]", "2025-01-01", "2026-01-01"),
		"a-zh.md": src("a", "zh", "[meals]", "2025-01-01", "2026-01-01"),
		"b.md":    src("b", "en", "[meals]", "2026-01-01", "2026-06-01"), // meets a
		"c.md":    src("c", "", "[meals, rail]", "2027-01-01", ""),       // after a gap, open
		"d.md":    src("d", "en", "[rail]", "2026-03-01", "2027-02-01"),
		// A supplement applies with the others by design and covers no
		// date of its own (as lint's coverage_gap says): it fills neither
		// the meals gap nor, alone, the tips subject.
		"e.md": supplement(src("e", "en", "[meals, tips]", "2026-06-01", "2027-01-01")),
	}
	c, err := corpus.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	d := corpus.MustParseDate
	want := []corpus.Subject{
		{Name: "meals", Sources: []string{"a", "b", "c", "e"}, Langs: []string{"en", "zh"}, AnyLang: true,
			Coverage: []corpus.Span{{From: d("2025-01-01"), Until: d("2026-06-01")}, {From: d("2027-01-01")}}},
		{Name: "rail", Sources: []string{"c", "d"}, Langs: []string{"en"}, AnyLang: true,
			Coverage: []corpus.Span{{From: d("2026-03-01")}}},
		{Name: "tips", Sources: []string{"e"}, Langs: []string{"en"}, Coverage: []corpus.Span{}},
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

func TestValidSubject(t *testing.T) {
	tests := []struct {
		subject string
		want    bool
	}{
		{"lodging", true},
		{"travel/lodging/beijing", true},
		{"a/b", true},
		{"hr/v1.2/leave_days", true},
		{"travel/lodging-notice", true},
		{"", false},
		{"/", false},
		{"a//b", false},
		{"/a", false},
		{"a/", false},
		{"Travel/lodging", false},
		{"travel/ lodging", false},
		{"travel\\lodging", false},
		{"a, b", false},
		{"a/./b", false},
		{"../etc", false},
		{"a/..", false},
		{".", false},
		{"a/差旅", false},
	}
	for _, tt := range tests {
		if got := corpus.ValidSubject(tt.subject); got != tt.want {
			t.Errorf("ValidSubject(%q) = %t, want %t", tt.subject, got, tt.want)
		}
	}
}

func TestFixSubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Travel/Lodging", "travel/lodging"},
		{"travel//lodging", "travel/lodging"},
		{"/travel/lodging/", "travel/lodging"},
		{" travel / lodging ", "travel/lodging"},
		{`travel\lodging`, "travel/lodging"},
		{"travel/lodging", ""}, // already valid
		{"a/./b", ""},
		{"car rental", ""},
		{"//", ""},
	}
	for _, tt := range tests {
		if got := corpus.FixSubject(tt.in); got != tt.want {
			t.Errorf("FixSubject(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSubjectsUnder(t *testing.T) {
	known := []string{"travel", "travel-notes/a", "travel/lodging", "travel/lodging/beijing", "travel/lodging/shanghai", "travel/rail"}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"travel/lodging", []string{"travel/lodging/beijing", "travel/lodging/shanghai"}},
		{"travel/lodging/", []string{"travel/lodging/beijing", "travel/lodging/shanghai"}},
		{"travel", []string{"travel/lodging", "travel/lodging/beijing", "travel/lodging/shanghai", "travel/rail"}},
		{"travel/lod", nil}, // a prefix of a segment is not a parent
		{"travel/lodging/beijing", nil},
		{"", nil},
		{"/", nil},
	}
	for _, tt := range tests {
		got := corpus.SubjectsUnder(tt.prefix, known)
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("SubjectsUnder(%q) mismatch (-want +got):\n%s", tt.prefix, diff)
		}
	}
}

// TestParseHierarchicalSubjects: a subject of several segments loads as
// written; a malformed one is refused at its position with a fix.
func TestParseHierarchicalSubjects(t *testing.T) {
	file := func(subjects string) []byte {
		return []byte("---\nsource_id: bj\nversion: v1\nsubjects: " + subjects + "\nvalid_from: 2026-01-01\n---\nText.\n")
	}
	src, err := corpus.Parse("p/bj.md", file("[travel/lodging/beijing, travel/lodging]"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"travel/lodging/beijing", "travel/lodging"}, src.Subjects); diff != "" {
		t.Errorf("Subjects mismatch (-want +got):\n%s", diff)
	}
	if !src.HasSubject("travel/lodging/beijing") || src.HasSubject("beijing") || src.HasSubject("travel") {
		t.Errorf("HasSubject is not exact equality of the whole subject")
	}
	tests := []struct {
		name, subjects string
		want           []string
	}{
		{"empty segment", "[travel//lodging]", []string{`[bad_value] p/bj.md:4:12: subjects "travel//lodging" is not a valid subject; write it as travel/lodging`}},
		{"leading slash", "[/travel/lodging]", []string{`[bad_value] p/bj.md:4:12: subjects "/travel/lodging" is not a valid subject; write it as travel/lodging`}},
		{"trailing slash", `["travel/lodging/"]`, []string{`[bad_value] p/bj.md:4:12: subjects "travel/lodging/" is not a valid subject; write it as travel/lodging`}},
		{"capital segment", "[travel/Lodging]", []string{`[bad_value] p/bj.md:4:12: subjects "travel/Lodging" is not a valid subject; write it as travel/lodging`}},
		{"backslash", `['travel\lodging']`, []string{`[bad_value] p/bj.md:4:12: subjects "travel\\lodging" is not a valid subject; write it as travel/lodging`}},
		{"dot segment", "[travel/../lodging]", []string{`[bad_value] p/bj.md:4:12: subjects "travel/../lodging" is not a valid subject; remove the '.' and '..' parts: a subject is a name, compared whole, not a path`}},
		{"blank inside a segment", "[travel/car rental]", []string{`[bad_value] p/bj.md:4:12: subjects "travel/car rental" is not a valid subject; use only lowercase letters, digits, '.', '_' and '-', and '/' between the parts of a subject such as travel/lodging`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := corpus.Parse("p/bj.md", file(tt.subjects))
			if diff := cmp.Diff(tt.want, problems(t, err)); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareSubjects(t *testing.T) {
	got := []string{"travel/lodging-local", "travel/lodging/shanghai", "rail", "travel", "travel/lodging", "travel-notes", "travel/lodging/beijing", "travel.x/a"}
	slices.SortFunc(got, corpus.CompareSubjects)
	want := []string{"rail", "travel", "travel/lodging", "travel/lodging/beijing", "travel/lodging/shanghai", "travel/lodging-local", "travel-notes", "travel.x/a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CompareSubjects order mismatch (-want +got):\n%s", diff)
	}
	// Without '/', the order is bytewise.
	flat := []string{"lodging-notice", "lodging", "a.b", "a-b", "a_b", "a"}
	bytewise := slices.Sorted(slices.Values(flat))
	slices.SortFunc(flat, corpus.CompareSubjects)
	if diff := cmp.Diff(bytewise, flat); diff != "" {
		t.Errorf("CompareSubjects on flat subjects is not bytewise (-want +got):\n%s", diff)
	}
}

func TestMeantSubjects(t *testing.T) {
	known := []string{"lodging", "rail", "travel/lodging", "travel/lodging/beijing", "travel/rail/beijing"}
	tests := []struct {
		in          string
		wantRelated []string
		wantClosest string
	}{
		{"travel", []string{"travel/lodging", "travel/lodging/beijing", "travel/rail/beijing"}, ""},
		{"beijing", []string{"travel/lodging/beijing", "travel/rail/beijing"}, ""},
		{"lodgin", nil, "lodging"},
		{"Travel//Lodging", nil, "travel/lodging"},
		{"Travel/Rail", []string{"travel/rail/beijing"}, ""},
		{"Beijing", []string{"travel/lodging/beijing", "travel/rail/beijing"}, ""},
		{"zzzzzzzz", nil, ""},
	}
	for _, tt := range tests {
		related, closest := corpus.MeantSubjects(tt.in, known)
		if diff := cmp.Diff(tt.wantRelated, related, cmpopts.EquateEmpty()); diff != "" || closest != tt.wantClosest {
			t.Errorf("MeantSubjects(%q) = %v, %q; want %v, %q", tt.in, related, closest, tt.wantRelated, tt.wantClosest)
		}
	}
}

// TestRelatedSubjectsTails: the subjects a name ends are found by their
// tails as a scan of every subject finds them: one segment or several,
// a tail that is also a subject, a tail repeated inside one subject
// (a/b/a/b), a name that ends no subject, and names that are no subject.
func TestRelatedSubjectsTails(t *testing.T) {
	known := []string{"a", "a/b", "a/b/a/b", "b", "b/a/b", "c/a/b", "c/ab", "meals/city/beijing", "travel/beijing", "travel/lodging/beijing"}
	scan := func(s string) []string {
		if under := corpus.SubjectsUnder(s, known); len(under) > 0 {
			return under
		}
		if !corpus.ValidSubject(s) {
			return nil
		}
		var out []string
		for _, k := range known {
			if strings.HasSuffix(k, "/"+s) {
				out = append(out, k)
			}
		}
		return out
	}
	hints := corpus.NewSubjectHints(known) // one, asked many times
	for _, s := range []string{"b", "a/b", "b/a/b", "ab", "beijing", "city/beijing", "lodging/beijing", "x", "jing", "/b", "B", "a b", ""} {
		want := scan(s)
		if diff := cmp.Diff(want, corpus.RelatedSubjects(s, known), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("RelatedSubjects(%q) mismatch (-scan +got):\n%s", s, diff)
		}
		if related, _ := hints.Meant(s); len(want) > 0 {
			if diff := cmp.Diff(want, related); diff != "" {
				t.Errorf("SubjectHints.Meant(%q) related mismatch (-scan +got):\n%s", s, diff)
			}
		}
	}
}
