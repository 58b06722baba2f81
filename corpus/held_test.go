package corpus

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestParseHeldLists: a parsed source's short lists (its subjects, the
// sources it replaces, its cite ranges, its line ends) are slices of the
// Source's own storage while they fit, and arrays of their own past it,
// with the same items either way; every list's capacity is its length, so
// an append to one never writes into the Source.
func TestParseHeldLists(t *testing.T) {
	tests := []struct {
		name                   string
		subjects, supersedes   []string
		cites                  []string
		lines                  int
		heldSubj, heldSup      bool
		heldCite, heldEndsWant bool
	}{
		{name: "one of each", subjects: []string{"lodging"}, supersedes: []string{"old"}, cites: []string{"1-2"}, lines: 3,
			heldSubj: true, heldSup: true, heldCite: true, heldEndsWant: true},
		{name: "none to replace, no cite, one line", subjects: []string{"lodging"}, lines: 1,
			heldSubj: true, heldEndsWant: true},
		{name: "as many lines as held", subjects: []string{"a"}, cites: []string{"1-1", "3-4"}, lines: heldLines,
			heldSubj: true, heldCite: true, heldEndsWant: true},
		{name: "more than held", subjects: []string{"a", "b"}, supersedes: []string{"x", "y", "z"}, cites: []string{"1-1", "2-2", "3-3"}, lines: heldLines + 1},
		{name: "a long body", subjects: []string{"rail"}, lines: 200, heldSubj: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			fmt.Fprintf(&b, "---\nsource_id: s\nversion: v1\nsubjects: [%s]\nvalid_from: 2026-01-01\n", strings.Join(tt.subjects, ", "))
			if len(tt.supersedes) > 0 {
				fmt.Fprintf(&b, "supersedes: [%s]\n", strings.Join(tt.supersedes, ", "))
			}
			if len(tt.cites) > 0 {
				fmt.Fprintf(&b, "cite: [\"%s\"]\n", strings.Join(tt.cites, `", "`))
			}
			b.WriteString("---\n")
			var lines []string
			for i := range tt.lines {
				lines = append(lines, fmt.Sprintf("Line %d of the rule.", i+1))
			}
			b.WriteString(strings.Join(lines, "\n") + "\n")
			s, err := Parse("p.md", []byte(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			var cites []string
			for _, r := range s.Cite {
				cites = append(cites, r.String())
			}
			if !slices.Equal(s.Subjects, tt.subjects) || !slices.Equal(s.Supersedes, tt.supersedes) || !slices.Equal(cites, tt.cites) {
				t.Errorf("subjects %q, supersedes %q, cite %q; want %q, %q, %q", s.Subjects, s.Supersedes, cites, tt.subjects, tt.supersedes, tt.cites)
			}
			if got := slices.Collect(func(yield func(string) bool) {
				for _, l := range s.Lines() {
					if !yield(l) {
						return
					}
				}
			}); !slices.Equal(got, lines) {
				t.Errorf("lines %q, want %q", got, lines)
			}
			if tt.supersedes == nil && s.Supersedes != nil || tt.cites == nil && s.Cite != nil {
				t.Errorf("an empty list is not nil: supersedes %#v, cite %#v", s.Supersedes, s.Cite)
			}
			for _, c := range []struct {
				what       string
				cap, len   int
				held, want bool
			}{
				{"subjects", cap(s.Subjects), len(s.Subjects), inSource(s, s.Subjects), tt.heldSubj},
				{"supersedes", cap(s.Supersedes), len(s.Supersedes), inSource(s, s.Supersedes), tt.heldSup},
				{"cite", cap(s.Cite), len(s.Cite), inSource(s, s.Cite), tt.heldCite},
				{"line ends", cap(s.ends), len(s.ends), inSource(s, s.ends), tt.heldEndsWant},
			} {
				if c.held != c.want {
					t.Errorf("%s held in the Source: %v, want %v", c.what, c.held, c.want)
				}
				if c.cap != c.len {
					t.Errorf("%s: capacity %d, length %d", c.what, c.cap, c.len)
				}
			}
		})
	}
}

// inSource reports whether l's items are in s's own storage.
func inSource[T any](s *Source, l []T) bool {
	if cap(l) == 0 {
		return false
	}
	p, start := uintptr(unsafe.Pointer(unsafe.SliceData(l))), uintptr(unsafe.Pointer(s))
	return start <= p && p < start+unsafe.Sizeof(*s)
}
