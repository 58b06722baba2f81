package contract

import (
	"errors"
	"fmt"
	"io"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// Settings are the per-question settings of a build, as `ka2 build` takes
// them from its flags: the subjects, dates, question, language, --short
// and --require-evidence. A RequestFile replaces the ones it sets (see
// Apply); Request turns the result into a Request.
//
// `ka2 build --request` and `ka2 serve`'s POST /v1/contract both parse the
// request with ParseRequestFile, make the Request with Settings.Apply and
// Request, build it with Builder.Build and print it with Result.WriteTo,
// so the same request and flags give the same bytes.
type Settings struct {
	Subjects        []string
	Dates           []string // YYYY-MM-DD
	Question        string
	Lang            string
	Short           bool
	RequireEvidence bool
}

// Apply returns s with every setting f sets replaced by f's value. A nil f
// changes nothing. Items and promotions are not settings: Request takes
// them from the request file.
func (s Settings) Apply(f *RequestFile) Settings {
	if f == nil {
		return s
	}
	if l := f.SubjectList(); len(l) > 0 {
		s.Subjects = l
	}
	if len(f.Dates) > 0 {
		s.Dates = f.Dates
	}
	if f.Question != "" {
		s.Question = f.Question
	}
	if f.Lang != "" {
		s.Lang = f.Lang
	}
	if f.Short != nil {
		s.Short = *f.Short
	}
	if f.RequireEvidence != nil {
		s.RequireEvidence = *f.RequireEvidence
	}
	return s
}

// The settings a SettingError can name.
const (
	SettingSubject  Setting = "subject"
	SettingDate     Setting = "date"
	SettingQuestion Setting = "question"
)

// ErrMissing is the cause of a SettingError for a setting that has no
// value.
var ErrMissing = errors.New("is required")

// SettingError is a setting that cannot make a Request: missing
// (errors.Is(err, ErrMissing)) or malformed (a date that is not
// YYYY-MM-DD). errors.Is(err, ErrBadRequest) holds for it.
type SettingError struct {
	Setting Setting
	Err     error
}

// Error says which setting is wrong and why, e.g. "subject is required".
func (e *SettingError) Error() string {
	return string(e.Setting) + " " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *SettingError) Unwrap() error { return e.Err }

// Is reports ErrBadRequest.
func (e *SettingError) Is(target error) bool { return target == ErrBadRequest }

// Request checks the settings and turns them, with the items and
// promotions of f (which may be nil), into a Request. A missing subject,
// date or question, or a date that is not a civil YYYY-MM-DD date, is a
// *SettingError, checked in that order.
func (s Settings) Request(f *RequestFile) (Request, error) {
	if len(s.Subjects) == 0 {
		return Request{}, &SettingError{SettingSubject, ErrMissing}
	}
	if len(s.Dates) == 0 {
		return Request{}, &SettingError{SettingDate, ErrMissing}
	}
	q := selector.Query{Subjects: s.Subjects, Lang: s.Lang, Dates: make([]corpus.Date, 0, len(s.Dates))}
	for _, text := range s.Dates {
		d, err := corpus.ParseDate(text)
		if err != nil {
			return Request{}, &SettingError{SettingDate, err}
		}
		q.Dates = append(q.Dates, d)
	}
	if s.Question == "" {
		return Request{}, &SettingError{SettingQuestion, ErrMissing}
	}
	req := Request{Query: q, Question: s.Question, Short: s.Short, RequireEvidence: s.RequireEvidence}
	if f != nil {
		req.Items, req.Promote = f.Candidates(), f.Promote
	}
	return req, nil
}

// WriteTo writes the contract as `ka2 build` prints it: the compact JSON
// followed by a newline. It writes nothing for a Result without a
// contract.
func (r *Result) WriteTo(w io.Writer) (int64, error) {
	if r == nil || r.JSON == nil {
		return 0, fmt.Errorf("no contract to write")
	}
	buf := make([]byte, 0, len(r.JSON)+1)
	buf = append(append(buf, r.JSON...), '\n')
	n, err := w.Write(buf)
	return int64(n), err
}
