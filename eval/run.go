package eval

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/diag"
)

// Spec is one evaluation as a front end asks for it: where the cases
// are, what answers them, and the Options.
type Spec struct {
	// Paths are the case files or folders, in ka2 regress's format.
	Paths []string
	// Load opens the cases' corpora as Load does.
	Load golden.LoadOptions
	// Generator answers every variant sent.
	Generator Generator
	Options
}

// Run checks the Options (see Validate: each is given), loads the cases
// and evaluates them with the generator: everything between a front
// end's reading of its settings and its printing of the report. A setting out of range is a
// *SettingError; the report's Failure says whether every condition met
// its threshold.
func (spec Spec) Run(ctx context.Context) (*Report, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Generator == nil {
		return nil, errors.New("eval: no generator")
	}
	cases, err := Load(ctx, spec.Paths, spec.Load)
	if err != nil {
		return nil, err
	}
	return Evaluate(ctx, cases, spec.Generator, spec.Options)
}

// Setting names one of the Options, as a SettingError reports it.
type Setting string

// The settings a SettingError can name.
const (
	SettingRepeat      Setting = "repeat"
	SettingJobs        Setting = "jobs"
	SettingDistractors Setting = "distractors"
	SettingMaxTokens   Setting = "max_tokens"
	SettingMinPass     Setting = "min_pass"
	// SettingConditions is the list of conditions to run (see
	// ParseConditions).
	SettingConditions Setting = "conditions"
)

// SettingError is a setting given a value it does not take: out of range
// (Want says what it takes), or unreadable (Err says why).
type SettingError struct {
	Setting Setting
	Value   string
	Want    string
	Err     error
}

// Error words the problem without a front end, e.g. `invalid value "0"
// for the repeat setting: want 1..100`.
func (e *SettingError) Error() string {
	name := diag.SettingWords(string(e.Setting))
	if e.Err != nil {
		return name + ": " + e.Err.Error()
	}
	return fmt.Sprintf("invalid value %q for %s: want %s", e.Value, name, e.Want)
}

// Unwrap returns the cause of an unreadable value.
func (e *SettingError) Unwrap() error { return e.Err }

// Validate checks the ranges the settings take as given: Repeat 1..100,
// Jobs 1..64, Distractors 1..100, MaxTokens not negative (0: from the
// case), every MinPass rate from 0 to 1. (Evaluate also reads a zero
// Repeat, Jobs or Distractors as its default; a front end that lets its
// user give 0 rejects it here.) The first out of range is a
// *SettingError.
func (o Options) Validate() error {
	in := func(s Setting, v, lo, hi int, want string) error {
		if v < lo || v > hi {
			return &SettingError{Setting: s, Value: strconv.Itoa(v), Want: want}
		}
		return nil
	}
	for _, err := range []error{
		in(SettingRepeat, o.Repeat, 1, 100, "1..100"),
		in(SettingJobs, o.Jobs, 1, 64, "1..64"),
		in(SettingDistractors, o.Distractors, 1, 100, "1..100"),
		in(SettingMaxTokens, o.MaxTokens, 0, int(^uint(0)>>1), "1 or more"),
	} {
		if err != nil {
			return err
		}
	}
	for _, c := range AllConditions() {
		if r, ok := o.MinPass[c]; ok && !(r >= 0 && r <= 1) {
			return &SettingError{Setting: SettingMinPass, Value: strconv.FormatFloat(r, 'g', -1, 64), Want: rateWant}
		}
	}
	return nil
}

const rateWant = "a rate from 0 to 1"

// ParseMinPass reads pass thresholds, "0.9" or "0.9,hostile=1,missing=0.8":
// a rate for every condition, then rates for the conditions named
// (position names all three places). The result holds a rate for every
// condition, so that a threshold of 0 is never taken for an unset one.
// A value that is no rate from 0 to 1, or names no condition, is a
// *SettingError.
func ParseMinPass(s string) (map[Condition]float64, error) {
	def := 0.9
	per := map[Condition]float64{}
	rate := func(v string) (float64, error) {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, &SettingError{Setting: SettingMinPass, Value: v, Want: rateWant}
		}
		return r, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			r, err := rate(name)
			if err != nil {
				return nil, err
			}
			def = r
			continue
		}
		cs, err := ParseConditions(name)
		if err != nil {
			return nil, &SettingError{Setting: SettingMinPass, Value: name, Err: err}
		}
		r, err := rate(v)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			per[c] = r
		}
	}
	for _, c := range AllConditions() {
		if _, ok := per[c]; !ok {
			per[c] = def
		}
	}
	return per, nil
}

// ErrEmptyHostile is returned by HostileText for a record with no text.
var ErrEmptyHostile = errors.New("the hostile record is empty")

// HostileText makes a hostile record's text from a file's bytes: CRLF
// line ends read as LF, and final line ends dropped, so that the record
// counts its lines as the file shows them. A record that is only white
// space is ErrEmptyHostile.
func HostileText(data []byte) (string, error) {
	text := strings.TrimRight(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if strings.TrimSpace(text) == "" {
		return "", ErrEmptyHostile
	}
	return text, nil
}

// FailedError is a report's failure: the conditions whose pass rate is
// below their threshold, and those with no run, which tested nothing.
type FailedError struct {
	Below    []Rate
	Untested []string
}

// Error lists the conditions that failed, e.g. "below the pass
// threshold: hostile 0.50 < 0.90".
func (e *FailedError) Error() string {
	var below, why []string
	for _, c := range e.Below {
		below = append(below, fmt.Sprintf("%s %.2f < %.2f", c.Name, c.Rate, c.Need))
	}
	if len(below) > 0 {
		why = append(why, "below the pass threshold: "+strings.Join(below, ", "))
	}
	if len(e.Untested) > 0 {
		why = append(why, "no variant was sent, so nothing was tested: "+strings.Join(e.Untested, ", "))
	}
	return strings.Join(why, "; ")
}

// Failure is nil when every condition met its threshold (r.OK), else a
// *FailedError naming the conditions that did not.
func (r *Report) Failure() error {
	if r.OK {
		return nil
	}
	e := &FailedError{}
	for _, c := range r.Conditions {
		switch {
		case c.Runs == 0:
			e.Untested = append(e.Untested, c.Name)
		case !c.OK:
			e.Below = append(e.Below, c)
		}
	}
	return e
}
