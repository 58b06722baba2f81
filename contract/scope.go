package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Scope is what a question asks about: its subjects and dates, in the
// order asked, each once. The contract carries it in its own field, so
// the generator is told which dates the evidence was chosen for, and
// Verify can re-run the selection from the contract alone.
//
// The language is not part of the scope: it is the language of the
// instruction text, from which Verify finds it.
type Scope struct {
	Subjects []string
	Dates    []corpus.Date
}

// ScopeOf returns the scope of a query: its subjects and dates in the
// order given, later repeats dropped.
func ScopeOf(q selector.Query) Scope {
	sc := scopeOf(q)
	return Scope{Subjects: slices.Clone(sc.Subjects), Dates: slices.Clone(sc.Dates)}
}

// scopeOf is ScopeOf sharing q's lists when they have no repeats, as a
// build's usually have: a build only writes its scope. With Text writing
// into one allocation, it earns its place in allocations: `go test
// ./contract -run '^$' -bench 'SelectBuild/codepoint' -benchmem` on
// 2026-12-02, 18 allocations and 7.6 KB a build against 21 and 7.8 KB
// with ScopeOf's copies and Text's buffer and string (0.86×).
func scopeOf(q selector.Query) Scope {
	return Scope{Subjects: firstOfEach(q.Subjects), Dates: firstOfEach(q.Dates)}
}

// firstOfEach is s without its later repeats: s itself when it has none,
// nil when it is empty.
func firstOfEach[T comparable](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	for i := 1; i < len(s); i++ {
		if slices.Contains(s[:i], s[i]) {
			out := slices.Clone(s[:i])
			for _, v := range s[i+1:] {
				if !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
			return out
		}
	}
	return s
}

// Query returns the selector query for the scope in lang.
func (sc Scope) Query(lang string) selector.Query {
	return selector.Query{Subjects: slices.Clone(sc.Subjects), Dates: slices.Clone(sc.Dates), Lang: lang}
}

// Text is the scope as the contract serializes it, which is also the text
// of its item: {"subjects":[…],"dates":["YYYY-MM-DD",…]}.
func (sc Scope) Text() string {
	// Sized for the common case (no escapes) so that one allocation
	// holds it; every build writes its scope.
	n := len(`{"subjects":[],"dates":[]}`) + len(sc.Dates)*len(`"YYYY-MM-DD",`)
	for _, s := range sc.Subjects {
		n += len(s) + len(`"",`)
	}
	// Each part is escaped in a buffer on the stack and copied to the
	// builder, whose String does not copy again.
	var w strings.Builder
	w.Grow(n)
	var stack [64]byte
	w.WriteString(`{"subjects":[`)
	for i, s := range sc.Subjects {
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(appendString(stack[:0], s))
	}
	w.WriteString(`],"dates":[`)
	for i, d := range sc.Dates {
		if i > 0 {
			w.WriteByte(',')
		}
		if d.IsZero() {
			w.WriteString(`""`) // what String gives it
			continue
		}
		// A date's text needs no escape.
		w.Write(append(d.Time().AppendFormat(append(stack[:0], '"'), time.DateOnly), '"'))
	}
	w.WriteString("]}")
	return w.String()
}

// writesCanonically reports whether ParseScope reads sc.Text() back as
// sc: at least one subject and one date, every subject valid UTF-8
// (encoding/json would replace invalid bytes, so the text would not be
// the form ka2 writes), every date set and written with four digits.
func (sc Scope) writesCanonically() bool {
	if len(sc.Subjects) == 0 || len(sc.Dates) == 0 {
		return false
	}
	for _, s := range sc.Subjects {
		if !utf8.ValidString(s) {
			return false
		}
	}
	for _, d := range sc.Dates {
		if y := d.Time().Year(); d.IsZero() || y < 1 || y > 9999 {
			return false
		}
	}
	return true
}

// ParseScope reads the text of a scope item. Only the exact form Text
// writes is a scope: anything else (other keys, spacing, escapes, a bad
// date, no subject or date) is an error, so a scope item can never carry
// more than its subjects and dates into the contract.
func ParseScope(text string) (Scope, error) {
	var w ScopeRecord
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Scope{}, fmt.Errorf("scope: %w", err)
	}
	sc, err := w.scope()
	if err != nil {
		return Scope{}, err
	}
	if sc.Text() != text {
		return Scope{}, fmt.Errorf("scope: not in the form ka2 writes it (%s)", sc.Text())
	}
	return sc, nil
}

// scope checks the record and turns it into a Scope.
func (w ScopeRecord) scope() (Scope, error) {
	if len(w.Subjects) == 0 || len(w.Dates) == 0 {
		return Scope{}, fmt.Errorf("scope: needs at least one subject and one date")
	}
	sc := Scope{Subjects: w.Subjects}
	for _, t := range w.Dates {
		d, err := corpus.ParseDate(t)
		if err != nil {
			return Scope{}, fmt.Errorf("scope: date %w", err)
		}
		sc.Dates = append(sc.Dates, d)
	}
	return sc, nil
}

// NewScope makes the candidate scope item, from user: the subjects and
// dates are the asker's, as the question is.
func NewScope(sc Scope, created time.Time) provenance.Item {
	return provenance.NewItem(provenance.KindScope, provenance.SourceUser, sc.Text(), created)
}
