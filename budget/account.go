package budget

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/plural"
	"github.com/ka2/ka2/provenance"
)

// Limits are the budget's fixed terms, all in the counter's unit.
type Limits struct {
	// Capacity is W, the model's context window.
	Capacity int `json:"capacity"`
	// Reserve is R, the room kept for the model's output.
	Reserve int `json:"reserve"`
	// Wrapper is the message framing a chat API adds around the serialized
	// input; it is counted as overhead (part of H).
	Wrapper int `json:"wrapper"`
}

// Limit is the most the input may take: W − R.
func (l Limits) Limit() int { return l.Capacity - l.Reserve }

// MaxCapacity is the largest capacity a budget may have. The largest
// context windows offered today are a few million tokens; 100,000,000
// leaves a wide margin above them while keeping every sum Account forms
// (the limits plus the size of any text that fits in memory) far from the
// range of int, so a typo or a hostile value is refused instead of
// wrapping around.
const MaxCapacity = 100_000_000

// The limits a RangeError can name, spelled as in Limits' JSON.
const (
	LimitCapacity = "capacity"
	LimitReserve  = "reserve"
	LimitWrapper  = "wrapper"
)

// ErrLimitRange is matched (errors.Is) by every *RangeError.
var ErrLimitRange = errors.New("budget limit out of range")

// RangeError is a limit outside its allowed range Min..Max (inclusive).
// Reserve and wrapper must be smaller than the capacity: for them Max is
// Capacity − 1 and Capacity says which capacity that was.
type RangeError struct {
	// Limit is LimitCapacity, LimitReserve or LimitWrapper.
	Limit    string
	Got      int
	Min, Max int
	// Capacity is the capacity Max derives from, or 0 when Max is fixed.
	Capacity int
}

// Error says which limit, its value and its range, e.g. "reserve 1400 is
// out of range 0..1399: it must be smaller than the capacity 1400".
func (e *RangeError) Error() string {
	s := fmt.Sprintf("%s %d is out of range %d..%d", e.Limit, e.Got, e.Min, e.Max)
	if e.Capacity > 0 {
		s += fmt.Sprintf(": it must be smaller than the capacity %d", e.Capacity)
	}
	return s
}

// Is makes errors.Is(err, ErrLimitRange) true.
func (e *RangeError) Is(target error) bool { return target == ErrLimitRange }

// Validate reports every limit out of range, each as a *RangeError (in a
// RangeErrors list): capacity must be 1..MaxCapacity, and reserve and
// wrapper 0..capacity−1 (0..MaxCapacity−1 when the capacity itself is out
// of range). A reserve that leaves no room at all, or a wrapper that alone
// fills the window, describes no usable budget; it is a mistake in the
// settings, not an input that is over budget.
func (l Limits) Validate() error {
	var errs RangeErrors
	capacity := l.Capacity
	if capacity < 1 || capacity > MaxCapacity {
		errs = append(errs, &RangeError{Limit: LimitCapacity, Got: capacity, Min: 1, Max: MaxCapacity})
		capacity = 0
	}
	for _, v := range []struct {
		limit string
		got   int
	}{{LimitReserve, l.Reserve}, {LimitWrapper, l.Wrapper}} {
		switch {
		case capacity == 0 && (v.got < 0 || v.got >= MaxCapacity):
			errs = append(errs, &RangeError{Limit: v.limit, Got: v.got, Min: 0, Max: MaxCapacity - 1})
		case capacity > 0 && (v.got < 0 || v.got >= capacity):
			errs = append(errs, &RangeError{Limit: v.limit, Got: v.got, Min: 0, Max: capacity - 1, Capacity: capacity})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// RangeErrors lists the limits out of range, in the order capacity,
// reserve, wrapper.
type RangeErrors []*RangeError

// Error joins the problems with "; ".
func (e RangeErrors) Error() string {
	msgs := make([]string, len(e))
	for i, re := range e {
		msgs[i] = re.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap lets errors.As find each *RangeError and errors.Is match
// ErrLimitRange.
func (e RangeErrors) Unwrap() []error {
	errs := make([]error, len(e))
	for i, re := range e {
		errs[i] = re
	}
	return errs
}

// KindOverhead is the kind of the part that is every byte of the
// serialization belonging to no other part (keys, braces, commas, the
// template field) plus the wrapper. Every other part is of a context type
// (provenance.Kind): evidence parts are what the evidence budget B pays
// for, the others are fixed costs.
const KindOverhead provenance.Kind = "overhead"

// Span marks the bytes of one part within the serialized input.
type Span struct {
	Kind  provenance.Kind
	Label string // e.g. an evidence address "travel-v2:1-3"
	Start int    // byte offset, inclusive
	End   int    // byte offset, exclusive
}

// Part is the cost of one part of the input.
type Part struct {
	Kind  provenance.Kind `json:"kind"` // a context type, or KindOverhead
	Label string          `json:"label,omitempty"`
	Cost  int             `json:"cost"`
}

// Report is the accounting B = W − R − I − E − Q − H for one input. Parts
// lists every part in serialization order, with the overhead last, and
// their costs add up to Total exactly.
type Report struct {
	Counter string `json:"counter"`
	Limits
	Parts []Part `json:"parts"`
	// Total is the whole input: the serialized text plus the wrapper.
	Total int `json:"total"`
	// Fixed is every part that is not evidence (I + E + Q + H, and memory
	// or tool output when present).
	Fixed int `json:"fixed"`
	// EvidenceBudget is B = W − R − Fixed; negative when even the fixed
	// parts do not fit.
	EvidenceBudget int `json:"evidence_budget"`
	// EvidenceCost is what the evidence parts take.
	EvidenceCost int `json:"evidence_cost"`
	// Left is B − EvidenceCost; negative is the shortfall.
	Left int `json:"left"`
}

// Fits reports whether the input is within W − R. Exactly full fits.
func (r Report) Fits() bool { return r.Left >= 0 }

// Shortfall is how much the input is over the limit, or 0.
func (r Report) Shortfall() int { return max(0, -r.Left) }

// Account counts text once and attributes every unit to the span it starts
// in; bytes outside every span, and the wrapper, are overhead. spans must be
// in order and must not overlap, and limits must pass Validate: Account
// panics otherwise, as it does on an int overflow, because both are
// programming errors in the caller (with valid limits every sum is at most
// MaxCapacity plus the length of text, which cannot overflow a 64-bit int).
// The arithmetic is Tally's.
func Account(c Counter, text string, spans []Span, limits Limits) Report {
	cuts := accountCuts(spans, limits)
	return accountSegments(c.Name(), c.Split(text, cuts), spans, limits)
}

// AccountBytes is Account of text held as bytes, as a contract is
// written. The code-point counter counts them where they are; a BPE
// counter reads a copy as a string.
func AccountBytes(c Counter, text []byte, spans []Span, limits Limits) Report {
	cuts := accountCuts(spans, limits)
	var seg []int
	if _, ok := c.(codepointCounter); ok {
		// The segments take the room accountCuts left after the cuts.
		seg = splitRunes(cuts[len(cuts):len(cuts)+len(cuts)+1], text, cuts)
	} else {
		seg = c.Split(string(text), cuts)
	}
	return accountSegments(c.Name(), seg, spans, limits)
}

// AccountCounted is AccountBytes of a text assembled from parts some of
// which were counted before: runes[i], when not negative, is the number
// of code points of text[spans[i].Start:spans[i].End] (what
// utf8.RuneCount of those bytes returns); runes may be shorter than
// spans. The code-point counter takes it as the span's cost without
// reading those bytes, so a contract made of a corpus's records, counted
// once per load, is counted only where a request brings something new.
// The report is AccountBytes's whenever each runes[i] is what the counter
// attributes to span i, the code points that start in it: utf8.RuneCount
// of its bytes when it ends at a rune's edge. A span that a rune runs
// into from before it is counted as AccountBytes counts it.
//
// The BPE counters count every span: a token can run across a span's
// edge (a contract's `,{"` before an evidence record is one pretoken,
// and so is `"},` after it), so the cost of a part depends on what
// surrounds it and parts' costs do not add up.
func AccountCounted(c Counter, text []byte, spans []Span, runes []int, limits Limits) Report {
	if _, ok := c.(codepointCounter); !ok || len(runes) == 0 {
		return AccountBytes(c, text, spans, limits)
	}
	cuts := accountCuts(spans, limits)
	seg := splitRunesKnown(cuts[len(cuts):len(cuts)+len(cuts)+1], text, cuts, runes)
	return accountSegments(c.Name(), seg, spans, limits)
}

// accountCuts checks limits and returns the cuts of Split for spans, with
// room after them for Split's segments.
func accountCuts(spans []Span, limits Limits) []int {
	if err := limits.Validate(); err != nil {
		panic("budget: Account with invalid limits: " + err.Error())
	}
	cuts := make([]int, 0, 4*len(spans)+1)
	for _, s := range spans {
		cuts = append(cuts, s.Start, s.End)
	}
	return cuts
}

// accountSegments tallies the sizes Split gave the cuts of spans.
func accountSegments(counter string, seg []int, spans []Span, limits Limits) Report {
	parts := make([]Part, len(spans), len(spans)+1) // and the overhead
	serialization := seg[0]
	for i, s := range spans {
		serialization = add(serialization, seg[2*i+2]) // the gap after span i
		parts[i] = Part{Kind: s.Kind, Label: s.Label, Cost: seg[2*i+1]}
	}
	return tally(counter, parts, serialization, limits)
}

// Tally is the accounting B = W − R − I − E − Q − H for parts whose costs
// are already known, in serialization order, without the overhead part;
// serialization is what the serialization costs outside every part, to
// which the wrapper is added as overhead. Account counts a text and
// tallies it; Tally alone serves inputs sized elsewhere, such as the
// worked numbers of a specification. It panics on an int overflow.
func Tally(counter string, parts []Part, serialization int, limits Limits) Report {
	return tally(counter, append(make([]Part, 0, len(parts)+1), parts...), serialization, limits)
}

// tally is Tally on parts of its own, which the report keeps, the
// overhead appended: Account's, made with room for it.
func tally(counter string, parts []Part, serialization int, limits Limits) Report {
	r := Report{Counter: counter, Limits: limits, Parts: parts}
	for _, p := range parts {
		if p.Kind == provenance.KindEvidence {
			r.EvidenceCost = add(r.EvidenceCost, p.Cost)
		} else {
			r.Fixed = add(r.Fixed, p.Cost)
		}
	}
	overhead := add(limits.Wrapper, serialization)
	r.Parts = append(r.Parts, Part{Kind: KindOverhead, Cost: overhead})
	r.Fixed = add(r.Fixed, overhead)
	r.Total = add(r.Fixed, r.EvidenceCost)
	r.EvidenceBudget = sub(limits.Limit(), r.Fixed)
	r.Left = sub(r.EvidenceBudget, r.EvidenceCost)
	return r
}

// add returns a + b, panicking instead of wrapping around.
func add(a, b int) int {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		panic(fmt.Sprintf("budget: %d + %d overflows int", a, b))
	}
	return s
}

// sub returns a − b, panicking instead of wrapping around.
func sub(a, b int) int {
	if b == math.MinInt {
		panic(fmt.Sprintf("budget: %d − %d overflows int", a, b))
	}
	return add(a, -b)
}

// ErrOverBudget is matched (errors.Is) by every *OverError.
var ErrOverBudget = errors.New("over budget")

// OverError reports an input that does not fit. Nothing was cut: the
// caller decides what to drop, or raises the capacity.
type OverError struct {
	Report Report
	// Fit, when set, is a setting of the request under which the same
	// question does fit, found by the library that built the input. Front
	// ends word it for their users (a flag, a request field).
	Fit *Fit
}

// Fit is a way to make an over-budget input fit without cutting anything:
// the request setting to change and the total the input then takes.
type Fit struct {
	// Setting names the request setting, e.g. "short" for quoting the
	// author-declared cite ranges instead of whole bodies.
	Setting string `json:"setting"`
	// Total is what the input takes with the setting, within Limit.
	Total int `json:"total"`
	Limit int `json:"limit"`
}

// String words the fit in the library's terms, e.g. "the short form fits
// with total 1100 of 1200".
func (f Fit) String() string {
	return fmt.Sprintf("the %s form fits with total %d of %d", f.Setting, f.Total, f.Limit)
}

// WordFit is msg, a message that err's text went into, with the fit of the
// OverError in err worded by word for a front end's user (a flag, a
// request field) in place of the library's words. msg comes back as it is
// when err holds no OverError with a fit, or word returns "".
func WordFit(msg string, err error, word func(Fit) string) string {
	var oe *OverError
	if !errors.As(err, &oe) || oe.Fit == nil {
		return msg
	}
	w := word(*oe.Fit)
	if w == "" {
		return msg
	}
	return strings.Replace(msg, oe.Error(), oe.Summary()+"; "+w, 1)
}

// Error names the limit, the total, the shortfall and each part's cost,
// and the fit, if there is one.
func (e *OverError) Error() string {
	if e.Fit != nil {
		return e.Summary() + "; " + e.Fit.String()
	}
	return e.Summary()
}

// Summary is Error without the fit: what a front end that words the fit
// itself prints before it.
func (e *OverError) Summary() string {
	r := e.Report
	var b strings.Builder
	fmt.Fprintf(&b, "over budget by %s: the input takes %d, the limit is %d (capacity %d − reserve %d)",
		count(r.Shortfall(), r.Counter), r.Total, r.Limit(), r.Capacity, r.Reserve)
	if r.EvidenceBudget < 0 {
		fmt.Fprintf(&b, "; even without evidence the fixed parts take %d", r.Fixed)
	}
	b.WriteString("; costs:")
	for _, p := range r.Parts {
		fmt.Fprintf(&b, " %s %d,", p.name(), p.Cost)
	}
	s := strings.TrimSuffix(b.String(), ",")
	return s + "; " + e.Hint().String()
}

// Hint says how to make the input fit without cutting it: a larger
// capacity, a smaller reserve, or fewer dates. Front ends name the
// settings as their users set them (flags, or the service's own
// configuration, which a request cannot change).
func (e *OverError) Hint() diag.Hint {
	return diag.Set("raise {capacity}, lower {reserve}, or ask about fewer dates")
}

// Is makes errors.Is(err, ErrOverBudget) true.
func (e *OverError) Is(target error) bool { return target == ErrOverBudget }

func (p Part) name() string {
	if p.Label != "" {
		return string(p.Kind) + " " + p.Label
	}
	return string(p.Kind)
}

func unit(counter string) string {
	if counter == "codepoint" {
		return "code points"
	}
	return counter + " tokens"
}

// count words n units of counter, the noun agreeing with n: "1 code
// point", "2 cl100k_base tokens".
func count(n int, counter string) string {
	if counter == "codepoint" {
		return plural.Count(n, "code point", "code points")
	}
	return plural.Count(n, counter+" token", counter+" tokens")
}

// WriteText prints the accounting as aligned lines, for people.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(name string, v int, note string) {
		fmt.Fprintf(&b, "%-28s %7d", name, v)
		if note != "" {
			b.WriteString("  " + note)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "counter %s (%s)\n", r.Counter, unit(r.Counter))
	line("W capacity", r.Capacity, "")
	line("R reserve", r.Reserve, "")
	sums := map[provenance.Kind]int{}
	for _, p := range r.Parts {
		sums[p.Kind] += p.Cost
	}
	for _, k := range []provenance.Kind{provenance.KindInstruction, provenance.KindExample, provenance.KindMemory, provenance.KindToolOutput, provenance.KindScope, provenance.KindQuestion} {
		if _, ok := sums[k]; ok || k == provenance.KindInstruction || k == provenance.KindExample || k == provenance.KindQuestion {
			line(letter(k)+string(k), sums[k], "")
		}
	}
	line("H overhead", sums[KindOverhead], fmt.Sprintf("wrapper %d + serialization %d", r.Wrapper, sums[KindOverhead]-r.Wrapper))
	line("B = W − R − fixed", r.EvidenceBudget, "left for evidence")
	for _, p := range r.Parts {
		if p.Kind == provenance.KindEvidence {
			line("  evidence "+p.Label, p.Cost, "")
		}
	}
	line("evidence total", r.EvidenceCost, "")
	line("total input", r.Total, fmt.Sprintf("limit %d", r.Limit()))
	if r.Fits() {
		line("left", r.Left, "")
	} else {
		line("shortfall", r.Shortfall(), "over budget")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func letter(k provenance.Kind) string {
	switch k {
	case provenance.KindInstruction:
		return "I "
	case provenance.KindExample:
		return "E "
	case provenance.KindQuestion:
		return "Q "
	}
	return "  "
}
