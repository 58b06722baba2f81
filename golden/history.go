package golden

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// ErrNotReport is matched by ReadHistoryReport's errors for a file that is
// not a ka2 regress JSON report.
var ErrNotReport = errors.New("not a ka2 regress JSON report")

// ReadHistoryReport reads a JSON report for a history. Unlike ReadReport,
// which checks a shard for merging, it takes reports of any ka2 version:
// keys it does not know are left aside and a report of another version of
// the format is read for what it shares. It refuses what is not a ka2
// regress report at all, and a case whose status is neither pass nor
// fail, which the history could not place.
func ReadHistoryReport(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotReport, err)
	}
	if !strings.HasPrefix(r.Format, "ka2-regress-report-") {
		return nil, fmt.Errorf("%w: its format is %q, not %s", ErrNotReport, r.Format, ReportFormat)
	}
	for _, f := range r.Files {
		for _, c := range f.Cases {
			if c.Status != StatusPass && c.Status != StatusFail {
				return nil, fmt.Errorf("%w: case %s:%d %s has status %q, not pass or fail", ErrNotReport, f.Path, c.Line, c.Name, c.Status)
			}
		}
	}
	return &r, nil
}

// History is a series of nightly reports, night by night and case by case.
type History struct {
	// Nights are in the order they ran (by start time, then name; a report
	// without run information sorts by its name among those).
	Nights []Night
	// Cases are every case any night ran, by case file and name.
	Cases []CaseHistory
	// Commits are the commits between two nights' repository commits, one
	// line each, for the ranges of CommitRanges that the front end could
	// look up (in git); the history lists them under a first failure.
	Commits map[CommitRange][]string
}

// CommitRange is the repository's commit on a case's last pass and on its
// first failure.
type CommitRange struct{ From, To string }

// CommitRanges are the distinct commit ranges of the first failures, in
// order, for a front end to fill in Commits.
func (h *History) CommitRanges() []CommitRange {
	var out []CommitRange
	for ci := range h.Cases {
		if r, ok := h.Cases[ci].commitRange(); ok {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b CommitRange) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return slices.Compact(out)
}

// commitRange is the commit change between the case's last pass and its
// first failure, if its Changes hold one with both ends.
func (c *CaseHistory) commitRange() (CommitRange, bool) {
	for _, ch := range c.Changes {
		if ch.What == "commit" && ch.From != "" && ch.To != "" {
			return CommitRange{ch.From, ch.To}, true
		}
	}
	return CommitRange{}, false
}

// Night is one report of a history.
type Night struct {
	// Name is the report as the caller named it (its file).
	Name string
	// Run is the report's run information; nil for a report of a ka2
	// that wrote none.
	Run                   *RunInfo
	Cases, Passed, Failed int
	// Failing are the indexes in History.Cases of the cases that failed.
	Failing []int
}

// Label is the night's start time, or its name when it has none.
func (n Night) Label() string {
	if n.Run != nil && n.Run.Started != "" {
		return n.Run.Started
	}
	return n.Name
}

// PassRate is the share of the night's cases that passed, 0 to 1.
func (n Night) PassRate() float64 {
	if n.Cases == 0 {
		return 0
	}
	return float64(n.Passed) / float64(n.Cases)
}

// Mark is a case's outcome on one night.
type Mark byte

// The marks.
const (
	MarkAbsent Mark = 0   // the night did not run the case
	MarkPass   Mark = 'p' // it passed
	MarkFail   Mark = 'f' // it failed
)

// CaseHistory is one case over the nights.
type CaseHistory struct {
	File, Name string
	// Marks, Used and Limit are by night: the outcome, and the budget
	// total and limit (0 when the night has no budget for the case).
	Marks       []Mark
	Used, Limit []int32
	// FirstFailure is the first night the case failed, -1 if it never
	// did; LastPass is the last night before it that the case passed, -1
	// if none did.
	FirstFailure, LastPass int
	// Changes are what differs between LastPass and FirstFailure: the
	// corpora, the case's file, the repository's commit, the ka2 build.
	Changes []Change
	// Flips are failures between two passes with the same inputs: flaky.
	Flips []Flip
}

// Failed reports whether the case failed on any night.
func (c *CaseHistory) Failed() bool { return c.FirstFailure >= 0 }

// PeakUse is the most of its limit the case's input took on any night,
// 0 to 1 or above when over.
func (c *CaseHistory) PeakUse() float64 {
	peak := 0.0
	for i, u := range c.Used {
		if l := c.Limit[i]; l > 0 {
			peak = max(peak, float64(u)/float64(l))
		}
	}
	return peak
}

// Change is one input that differs between two nights.
type Change struct {
	What     string // "corpus LOCATION", "case file PATH", "commit" or "ka2"
	From, To string // "" for none
}

// Flip is a failure between passes: the case passed on Before, failed on
// Failed (and every night up to After), and passed again on After, and
// neither the corpora nor its case file nor ka2 changed from Before to
// After (the repository's commit may have).
type Flip struct{ Before, Failed, After int }

// HistoryBuilder gathers reports, one at a time, into a History; it keeps
// only what the history shows of each, so a year of nights of a large
// suite fits in memory.
type HistoryBuilder struct {
	nights []Night
	cases  map[caseKey]*CaseHistory
}

type caseKey struct{ file, name string }

// NewHistoryBuilder returns an empty HistoryBuilder.
func NewHistoryBuilder() *HistoryBuilder {
	return &HistoryBuilder{cases: map[caseKey]*CaseHistory{}}
}

// Add adds one night: the report r, named name.
func (b *HistoryBuilder) Add(name string, r *Report) {
	n := len(b.nights)
	night := Night{Name: name, Run: r.Run}
	if r.Run != nil {
		// Only the inputs are kept, not the report.
		run := *r.Run
		night.Run = &run
	}
	for _, f := range r.Files {
		for _, c := range f.Cases {
			k := caseKey{f.Path, c.Name}
			ch := b.cases[k]
			if ch == nil {
				ch = &CaseHistory{File: f.Path, Name: c.Name}
				b.cases[k] = ch
			}
			for len(ch.Marks) < n+1 {
				ch.Marks = append(ch.Marks, MarkAbsent)
				ch.Used = append(ch.Used, 0)
				ch.Limit = append(ch.Limit, 0)
			}
			night.Cases++
			if c.Status == StatusPass {
				night.Passed++
				ch.Marks[n] = MarkPass
			} else {
				night.Failed++
				ch.Marks[n] = MarkFail
			}
			if c.Budget != nil {
				ch.Used[n], ch.Limit[n] = int32(c.Budget.Total), int32(c.Budget.Limit)
			}
		}
	}
	b.nights = append(b.nights, night)
}

// Build returns the history of the nights added so far.
func (b *HistoryBuilder) Build() *History {
	order := make([]int, len(b.nights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(b.nights[x].Label(), b.nights[y].Label()), cmp.Compare(b.nights[x].Name, b.nights[y].Name))
	})
	h := &History{}
	for _, i := range order {
		h.Nights = append(h.Nights, b.nights[i])
	}
	for _, c := range b.cases {
		out := CaseHistory{File: c.File, Name: c.Name, FirstFailure: -1, LastPass: -1,
			Marks: make([]Mark, len(order)), Used: make([]int32, len(order)), Limit: make([]int32, len(order))}
		for to, from := range order {
			if from < len(c.Marks) {
				out.Marks[to], out.Used[to], out.Limit[to] = c.Marks[from], c.Used[from], c.Limit[from]
			}
		}
		h.Cases = append(h.Cases, out)
	}
	slices.SortFunc(h.Cases, func(x, y CaseHistory) int { return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Name, y.Name)) })
	for ci := range h.Cases {
		c := &h.Cases[ci]
		for n, m := range c.Marks {
			switch {
			case m == MarkFail:
				h.Nights[n].Failing = append(h.Nights[n].Failing, ci)
				if c.FirstFailure < 0 {
					c.FirstFailure = n
				}
			case m == MarkPass && c.FirstFailure < 0:
				c.LastPass = n
			}
		}
		if c.FirstFailure >= 0 && c.LastPass >= 0 {
			c.Changes = inputChanges(h.Nights[c.LastPass].Run, h.Nights[c.FirstFailure].Run, c.File)
		}
		c.Flips = flips(h.Nights, c)
	}
	return h
}

// flips finds each run of failures between two passes over which the
// case's inputs stayed the same.
func flips(nights []Night, c *CaseHistory) []Flip {
	var out []Flip
	before := -1
	for n := 0; n < len(c.Marks); n++ {
		switch c.Marks[n] {
		case MarkPass:
			before = n
		case MarkFail:
			if before < 0 {
				continue
			}
			after := n
			for after < len(c.Marks) && c.Marks[after] != MarkPass {
				after++
			}
			if after == len(c.Marks) {
				return out
			}
			if sameInputs(nights, before, after, c.File) {
				out = append(out, Flip{Before: before, Failed: n, After: after})
			}
			n = after - 1
		}
	}
	return out
}

// sameInputs reports whether no input of a case in file changed over the
// nights from..to: each of them has run information, and it names the
// same corpora, case file and ka2 build. The repository's commit is not
// an input: a nightly run is of whatever main holds, and a commit that
// touched neither the corpora nor the case file cannot change a build.
func sameInputs(nights []Night, from, to int, file string) bool {
	for n := from; n <= to; n++ {
		if nights[n].Run == nil {
			return false
		}
		for _, ch := range inputChanges(nights[from].Run, nights[n].Run, file) {
			if ch.What != "commit" {
				return false
			}
		}
	}
	return true
}

// inputChanges lists what differs between the runs a and b for a case of
// file; a run without information (nil) changes nothing it can name.
func inputChanges(a, b *RunInfo, file string) []Change {
	if a == nil || b == nil {
		return nil
	}
	var out []Change
	locs := map[string][2]string{}
	for _, c := range a.Corpora {
		v := locs[c.Location]
		v[0] = c.Digest
		locs[c.Location] = v
	}
	for _, c := range b.Corpora {
		v := locs[c.Location]
		v[1] = c.Digest
		locs[c.Location] = v
	}
	for _, loc := range slices.Sorted(maps.Keys(locs)) {
		if v := locs[loc]; v[0] != v[1] {
			out = append(out, Change{"corpus " + loc, v[0], v[1]})
		}
	}
	if fa, fb := caseFileDigest(a, file), caseFileDigest(b, file); fa != fb {
		out = append(out, Change{"case file " + file, fa, fb})
	}
	var ca, cb string
	if a.Repository != nil {
		ca = a.Repository.Commit
	}
	if b.Repository != nil {
		cb = b.Repository.Commit
	}
	if ca != cb {
		out = append(out, Change{"commit", ca, cb})
	}
	if a.Tool != b.Tool {
		out = append(out, Change{"ka2", toolName(a.Tool), toolName(b.Tool)})
	}
	return out
}

func caseFileDigest(r *RunInfo, file string) string {
	for _, f := range r.CaseFiles {
		if f.Path == file {
			return f.SHA256
		}
	}
	return ""
}

// maxListed is how many case names a line of the text history lists.
const maxListed = 5

// WriteText writes the history for a person: a line per night (its cases,
// pass rate, failing cases), each case that failed with the night it first
// failed and what changed since it last passed, the flaky cases, and the
// cases whose input came closest to its limit.
func (h *History) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "ka2 report history: %s", plural(len(h.Nights), "night"))
	if len(h.Nights) > 0 {
		fmt.Fprintf(&b, ", %s to %s", esc(h.Nights[0].Label()), esc(h.Nights[len(h.Nights)-1].Label()))
	}
	fmt.Fprintf(&b, ", %s\n", plural(len(h.Cases), "case"))
	for _, n := range h.Nights {
		fmt.Fprintf(&b, "  %s  %d/%d passed (%.2f%%)", esc(n.Label()), n.Passed, n.Cases, 100*n.PassRate())
		if len(n.Failing) > 0 {
			var names []string
			for _, ci := range n.Failing[:min(len(n.Failing), maxListed)] {
				names = append(names, esc(h.Cases[ci].Name))
			}
			fmt.Fprintf(&b, "; failing: %s", strings.Join(names, ", "))
			if more := len(n.Failing) - maxListed; more > 0 {
				fmt.Fprintf(&b, " and %d more", more)
			}
		}
		b.WriteByte('\n')
	}
	failed, flaky := h.failedAndFlaky()
	fmt.Fprintf(&b, "first failures (%d):\n", len(failed))
	for _, ci := range failed {
		c := &h.Cases[ci]
		fmt.Fprintf(&b, "  %s %s: first failed %s", esc(c.File), esc(c.Name), esc(h.Nights[c.FirstFailure].Label()))
		if c.LastPass < 0 {
			b.WriteString(" (never passed before)")
		} else {
			fmt.Fprintf(&b, " (last passed %s)", esc(h.Nights[c.LastPass].Label()))
			switch {
			case h.Nights[c.LastPass].Run == nil || h.Nights[c.FirstFailure].Run == nil:
				b.WriteString("; what changed is not known (a report without run information)")
			case len(c.Changes) == 0:
				b.WriteString("; no input changed")
			default:
				b.WriteString("; changed: " + changesText(c.Changes))
			}
		}
		if now := c.Marks[len(c.Marks)-1]; now == MarkFail {
			b.WriteString("; failing on the last night")
		}
		b.WriteByte('\n')
		if r, ok := c.commitRange(); ok {
			for _, line := range h.Commits[r] {
				fmt.Fprintf(&b, "    commit %s\n", esc(line))
			}
		}
	}
	fmt.Fprintf(&b, "flaky: failed between passes with unchanged inputs (%d):\n", len(flaky))
	for _, ci := range flaky {
		c := &h.Cases[ci]
		var at []string
		for _, f := range c.Flips {
			at = append(at, esc(h.Nights[f.Failed].Label()))
		}
		fmt.Fprintf(&b, "  %s %s: failed %s\n", esc(c.File), esc(c.Name), strings.Join(at, ", "))
	}
	top := h.topBudget(maxListed)
	fmt.Fprintf(&b, "budget: highest use of the limit (%d):\n", len(top))
	for _, ci := range top {
		c := &h.Cases[ci]
		first, last := -1, -1
		for n := range c.Limit {
			if c.Limit[n] > 0 {
				if first < 0 {
					first = n
				}
				last = n
			}
		}
		fmt.Fprintf(&b, "  %s %s: peak %.0f%%, %d → %d of %d\n", esc(c.File), esc(c.Name), 100*c.PeakUse(), c.Used[first], c.Used[last], c.Limit[last])
	}
	_, err := w.Write(b.Bytes())
	return err
}

func changesText(changes []Change) string {
	var parts []string
	for _, ch := range changes {
		parts = append(parts, fmt.Sprintf("%s %s → %s", esc(ch.What), orNone(shortRev(ch.From)), orNone(shortRev(ch.To))))
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return esc(s)
}

// failedAndFlaky are the indexes of the cases that ever failed, by the
// night they first failed, then file and name; and of the flaky ones.
func (h *History) failedAndFlaky() (failed, flaky []int) {
	for ci := range h.Cases {
		c := &h.Cases[ci]
		if c.Failed() {
			failed = append(failed, ci)
		}
		if len(c.Flips) > 0 {
			flaky = append(flaky, ci)
		}
	}
	slices.SortStableFunc(failed, func(x, y int) int { return cmp.Compare(h.Cases[x].FirstFailure, h.Cases[y].FirstFailure) })
	return failed, flaky
}

// topBudget is the indexes of the n cases with the highest peak use of
// their limit, highest first.
func (h *History) topBudget(n int) []int {
	var idx []int
	peak := make([]float64, len(h.Cases))
	for ci := range h.Cases {
		if peak[ci] = h.Cases[ci].PeakUse(); peak[ci] > 0 {
			idx = append(idx, ci)
		}
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(peak[y], peak[x]) })
	return idx[:min(n, len(idx))]
}
