package golden

import (
	"bytes"
	"cmp"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/internal/textsafe"
)

// ReportFormat identifies the JSON report's shape; `ka2 report merge`
// refuses reports of another format.
const ReportFormat = "ka2-regress-report-v1"

// MaxReportSize is the most `ka2 report merge` reads of one shard's JSON
// report. A report takes about 450 to 900 bytes for a case that passes
// (more with the budget's parts) and a few KB for one that fails, its
// diff included; a diff that rewrites a whole contract of the default
// 4096-token budget (about 16 KB of text) takes about 40 KB. 512 MiB
// holds some 600,000 passing cases, or 13,000 cases that all fail that
// way, beyond any real shard, while it stops a runaway file before it
// takes the machine's memory. (The strict check of a shard holds the
// nodes of one case file's report at a time, not of the whole shard.)
const MaxReportSize = 512 << 20

// Report is the outcome of a run: every case in suite order, grouped by
// case file, and the unreferenced goldens. It is a plain value: the JSON
// report is this struct, and text and JUnit are views of it.
type Report struct {
	Format string `json:"format"`
	// Run says when and on what the run ran; nil in reports of an older
	// ka2.
	Run *RunInfo `json:"run,omitempty"`
	// Shard is set for a run of one shard.
	Shard   *ShardInfo   `json:"shard,omitempty"`
	Summary Summary      `json:"summary"`
	Files   []FileReport `json:"files"`
	// Unreferenced goldens, pruned or not.
	Unreferenced []UnreferencedGolden `json:"unreferenced"`
	// RejectUnreferenced says unreferenced goldens that were not pruned
	// fail the run.
	RejectUnreferenced bool `json:"reject_unreferenced"`
	// StaleRemoved are temporary files that an earlier run killed
	// mid-write left beside the goldens, removed by this writing run.
	StaleRemoved []string `json:"stale_removed,omitempty"`
	// Stopped is set when the run stopped at its failure limit
	// (Options.MaxFailures) before every case ran.
	Stopped *Stopped `json:"stopped,omitempty"`
}

// Stopped says that a run stopped early, and how many cases it did not run.
type Stopped struct {
	MaxFailures int `json:"max_failures"`
	NotRun      int `json:"not_run"`
}

// ShardInfo says which shard a report covers and how many cases the whole
// suite has, so merging can check that every shard is there.
type ShardInfo struct {
	Shard
	SuiteCases int `json:"suite_cases"`
}

// Summary counts a report's cases.
type Summary struct {
	Cases  int `json:"cases"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	// Why cases failed; a case may count under several.
	Differs            int `json:"differs"`
	Missing            int `json:"missing"`
	ExpectationsFailed int `json:"expectations_failed"`
	Errors             int `json:"errors"`
	// What the run wrote.
	Updated int `json:"updated"`
	Created int `json:"created"`
	Pending int `json:"pending"`
	// Unreferenced goldens left in place, and those deleted.
	Unreferenced int `json:"unreferenced"`
	Pruned       int `json:"pruned"`
}

// FileReport is the cases of one case file, in file order.
type FileReport struct {
	Path  string       `json:"path"`
	Cases []CaseReport `json:"cases"`
}

// Status is whether a case passed.
type Status string

// The statuses.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
)

// State is what a run found and did with a case's golden.
type State string

// The golden states. A case passes with match, updated or created and no
// failed expectation.
const (
	StateMatch      State = "match"      // the golden holds exactly the build's bytes
	StateDiffers    State = "differs"    // it holds other bytes
	StateMissing    State = "missing"    // there is no golden
	StateUpdated    State = "updated"    // it differed and --update rewrote it
	StateCreated    State = "created"    // it was missing and --update wrote it
	StateUnreadable State = "unreadable" // it could not be read
)

// CaseReport is the outcome of one case.
type CaseReport struct {
	Name   string `json:"name"`
	Line   int    `json:"line"`
	Status Status `json:"status"`
	Golden string `json:"golden"`
	State  State  `json:"state"`
	// Outcome is "contract" or the build's error kind.
	Outcome string `json:"outcome"`
	// Summary says in one line what changed; Diff shows it.
	Summary string `json:"summary,omitempty"`
	Diff    string `json:"diff,omitempty"`
	// Expectations are the failed expectations.
	Expectations []string `json:"expectations,omitempty"`
	// Pending is the pending golden the run wrote.
	Pending string `json:"pending,omitempty"`
	// Note explains something the run did not do.
	Note string `json:"note,omitempty"`
	// Error is a golden that could not be read or written.
	Error string `json:"error,omitempty"`
	// Records compares the golden's evidence with the build's, record by
	// record, for a case whose golden differs or is missing.
	Records []RecordChange `json:"records,omitempty"`
	// Budget is the build's budget by part; nil when the build failed
	// before assembling the input.
	Budget *CaseBudget `json:"budget,omitempty"`
}

// UnreferencedGolden is a golden or pending file no case refers to.
type UnreferencedGolden struct {
	Path   string `json:"path"`
	Pruned bool   `json:"pruned,omitempty"`
}

// count fills in the summary.
func (r *Report) count() {
	var s Summary
	for _, f := range r.Files {
		for _, c := range f.Cases {
			s.Cases++
			if c.Status == StatusPass {
				s.Passed++
			} else {
				s.Failed++
			}
			switch c.State {
			case StateDiffers:
				s.Differs++
			case StateMissing:
				s.Missing++
			case StateUpdated:
				s.Updated++
			case StateCreated:
				s.Created++
			}
			if len(c.Expectations) > 0 {
				s.ExpectationsFailed++
			}
			if c.Error != "" {
				s.Errors++
			}
			if c.Pending != "" {
				s.Pending++
			}
		}
	}
	for _, u := range r.Unreferenced {
		if u.Pruned {
			s.Pruned++
		} else {
			s.Unreferenced++
		}
	}
	r.Summary = s
}

// OK reports whether the run passed: every case passed, and no
// unreferenced golden is left when they are rejected.
func (r *Report) OK() bool {
	return r.Summary.Failed == 0 && !(r.RejectUnreferenced && r.Summary.Unreferenced > 0)
}

// WriteJSON writes the report as indented JSON, without HTML escaping.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads a JSON report, refusing invalid text, repeated keys
// (keys that differ only in case among them), unknown keys, values of the
// wrong JSON type or outside their field's known set (a status, a state,
// an outcome, a record change and its fields, a budget part's kind, a
// counter), and other formats.
func ReadReport(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	// encoding/json would turn invalid text into U+FFFD and keep the last
	// of a repeated key, and the merged report would no longer say what
	// the shard said.
	if e := jsontext.Exact(data); e != nil {
		if e.Repeated {
			return nil, fmt.Errorf("the report at %s", e)
		}
		return nil, fmt.Errorf("invalid text in the report at %s", e)
	}
	// Through the strict decoder first: keys exactly as the Report type
	// spells them, each once, values of their JSON types and known sets.
	l, err := checkReport(data)
	if je, ok := errors.AsType[*strict.JSONError](err); ok {
		return nil, fmt.Errorf("not a ka2 regress JSON report: at %d:%d: %w", je.Line, je.Col, je)
	} else if err != nil {
		return nil, fmt.Errorf("not a ka2 regress JSON report: %w", err)
	}
	if len(l) > 0 {
		l.Sort()
		msg := fmt.Sprintf("the report at %d:%d: %s", l[0].Line, l[0].Col, l[0].Message)
		if h := l[0].Hint.String(); h != "" {
			msg += "; " + h
		}
		if len(l) > 1 {
			msg += fmt.Sprintf(" (and %s)", plural(len(l)-1, "more problem"))
		}
		return nil, errors.New(msg)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a ka2 regress JSON report: %w", err)
	}
	if r.Format != ReportFormat {
		return nil, hinted(fmt.Errorf("report format %q: this ka2 reads %s", r.Format, ReportFormat), diag.Set("write the report with {format} json"))
	}
	return &r, nil
}

// WriteText writes the report for a person: every case that did not
// simply pass (with its summary, failed expectations and diff), every
// unreferenced golden, and a closing summary line. name words the
// settings its advice names for the front end (the CLI passes flag
// names); nil means diag.SettingWords.
func (r *Report) WriteText(w io.Writer, name func(setting string) string) error {
	return r.writeText(w, name, false)
}

// WriteColorText is WriteText with the diffs coloured for a terminal (see
// ColorDiff).
func (r *Report) WriteColorText(w io.Writer, name func(setting string) string) error {
	return r.writeText(w, name, true)
}

func (r *Report) writeText(w io.Writer, name func(setting string) string, color bool) error {
	var b bytes.Buffer
	for _, f := range r.Files {
		for _, c := range f.Cases {
			if c.Status == StatusPass && c.State == StateMatch {
				continue
			}
			label := strings.ToUpper(string(c.State))
			if c.Status == StatusFail {
				label = "FAIL"
			}
			// Names, expectations, notes and diffs come from files: esc
			// escapes what could forge a line of the report or reach the
			// terminal as a control sequence.
			fmt.Fprintf(&b, "%s %s:%d %s", label, esc(f.Path), c.Line, esc(c.Name))
			if c.Status == StatusFail && c.State != StateMatch {
				fmt.Fprintf(&b, " (golden %s)", c.State)
			}
			b.WriteByte('\n')
			if c.Summary != "" {
				fmt.Fprintf(&b, "    %s\n", esc(c.Summary))
			}
			for _, e := range c.Expectations {
				fmt.Fprintf(&b, "    expectation failed: %s\n", esc(e))
			}
			if c.Note != "" {
				fmt.Fprintf(&b, "    %s\n", esc(c.Note))
			}
			if c.Error != "" {
				fmt.Fprintf(&b, "    error: %s\n", esc(c.Error))
			}
			switch {
			case c.State == StateUpdated || c.State == StateCreated:
				fmt.Fprintf(&b, "    wrote %s\n", esc(c.Golden))
			case c.Pending != "":
				fmt.Fprintf(&b, "    pending %s (accept with ka2 review)\n", esc(c.Pending))
			}
			if c.Diff != "" && c.Status == StatusFail {
				for _, line := range strings.Split(strings.TrimSuffix(c.Diff, "\n"), "\n") {
					line = esc(line) + "\n"
					if color {
						line = ColorDiff(line)
					}
					b.WriteString("    " + line)
				}
			}
		}
	}
	for _, u := range r.Unreferenced {
		what := "unreferenced golden"
		switch {
		case u.Pruned:
			what = "pruned"
		case r.RejectUnreferenced:
			what = "FAIL unreferenced golden"
		}
		fmt.Fprintf(&b, "%s %s\n", what, esc(u.Path))
	}
	if r.Summary.Unreferenced > 0 && !r.RejectUnreferenced {
		fmt.Fprintf(&b, "    (goldens of removed or renamed cases: %s)\n", unreferencedHint.Phrase(wording(name)))
	}
	for _, p := range r.StaleRemoved {
		fmt.Fprintf(&b, "removed stale temporary file %s (left by a run stopped while writing)\n", p)
	}
	b.WriteString(r.SummaryLine())
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// SummaryLine is the report in one line.
func (r *Report) SummaryLine() string {
	s := r.Summary
	var b strings.Builder
	b.WriteString("ka2 regress: ")
	if r.Shard != nil {
		fmt.Fprintf(&b, "shard %s of %d cases: ", r.Shard.Shard, r.Shard.SuiteCases)
	}
	fmt.Fprintf(&b, "%s, %d passed, %d failed", plural(s.Cases, "case"), s.Passed, s.Failed)
	if s.Failed > 0 {
		fmt.Fprintf(&b, " (%d differ, %d missing, %d with failed expectations", s.Differs, s.Missing, s.ExpectationsFailed)
		if s.Errors > 0 {
			fmt.Fprintf(&b, ", %d unreadable or unwritable", s.Errors)
		}
		b.WriteString(")")
	}
	if s.Updated+s.Created > 0 {
		fmt.Fprintf(&b, "; %s, %d created", plural(s.Updated, "golden")+" updated", s.Created)
	}
	if s.Pending > 0 {
		fmt.Fprintf(&b, "; %s written for ka2 review", plural(s.Pending, "pending golden"))
	}
	if s.Unreferenced > 0 {
		fmt.Fprintf(&b, "; %s", plural(s.Unreferenced, "unreferenced golden"))
		if r.RejectUnreferenced {
			b.WriteString(" (rejected)")
		}
	}
	if s.Pruned > 0 {
		fmt.Fprintf(&b, "; %d pruned", s.Pruned)
	}
	if r.Stopped != nil {
		fmt.Fprintf(&b, "; stopped at the limit of %s, %s not run", plural(r.Stopped.MaxFailures, "failure"), plural(r.Stopped.NotRun, "case"))
	}
	if r.OK() {
		b.WriteString(": ok")
	} else {
		b.WriteString(": FAIL")
	}
	return b.String()
}

// esc is textsafe.Escape: one line of printable text.
func esc(s string) string { return textsafe.Escape(s) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// JUnit XML: one testsuite per case file, one testcase per case, the diff
// in the failure body. Attribute names follow the schema Jenkins, GitLab
// and GitHub test reporters read.
type junitSuites struct {
	XMLName   xml.Name     `xml:"testsuites"`
	Name      string       `xml:"name,attr"`
	Tests     int          `xml:"tests,attr"`
	Failures  int          `xml:"failures,attr"`
	Errors    int          `xml:"errors,attr"`
	Time      string       `xml:"time,attr,omitempty"`
	Timestamp string       `xml:"timestamp,attr,omitempty"`
	Suites    []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

// junitProperty is one fact about the run, in every testsuite: the
// schema CI reporters read has properties only there.
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

// WriteJUnit writes the report as JUnit XML. Unreferenced goldens, when
// rejected, are failed testcases of one more testsuite. name words
// settings as for WriteText.
func (r *Report) WriteJUnit(w io.Writer, name func(setting string) string) error {
	out := junitSuites{Name: "ka2 regress"}
	for _, f := range r.Files {
		s := junitSuite{Name: f.Path}
		for _, c := range f.Cases {
			jc := junitCase{Name: c.Name, Classname: strings.TrimSuffix(f.Path, ".yaml"), File: f.Path, Line: c.Line}
			if c.Status == StatusFail {
				jc.Failure = junitFailureOf(c)
				s.Failures++
			} else if c.State != StateMatch {
				jc.SystemOut = fmt.Sprintf("golden %s: %s\n%s", c.State, c.Golden, c.Summary)
			}
			s.Tests++
			s.Cases = append(s.Cases, jc)
		}
		out.Suites = append(out.Suites, s)
	}
	if r.RejectUnreferenced && r.Summary.Unreferenced > 0 {
		s := junitSuite{Name: "unreferenced goldens"}
		for _, u := range r.Unreferenced {
			if u.Pruned {
				continue
			}
			s.Tests++
			s.Failures++
			s.Cases = append(s.Cases, junitCase{Name: u.Path, Classname: "unreferenced", File: u.Path,
				Failure: &junitFailure{Type: "unreferenced", Message: "no case refers to this golden",
					Body: diag.Set("Delete it with {prune}, or restore the case it belonged to.").Phrase(wording(name))}})
		}
		out.Suites = append(out.Suites, s)
	}
	props, stampAt := r.junitRun()
	if r.Run != nil && r.Run.Started != "" {
		out.Time = fmt.Sprintf("%.3f", float64(r.Run.DurationMS)/1000)
		out.Timestamp = stampAt
	}
	for i := range out.Suites {
		s := &out.Suites[i]
		out.Tests += s.Tests
		out.Failures += s.Failures
		s.Timestamp, s.Properties = out.Timestamp, props
		if r.Run != nil {
			s.Hostname = r.Run.Host
		}
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// junitRun is the run information as JUnit properties, and the start
// as JUnit's timestamp (ISO 8601 without a zone: it is UTC).
func (r *Report) junitRun() ([]junitProperty, string) {
	ri := r.Run
	if ri == nil {
		return nil, ""
	}
	props := []junitProperty{{"ka2.version", ri.Tool.Version}}
	add := func(name, value string) {
		if value != "" {
			props = append(props, junitProperty{name, xmlSafe(value)})
		}
	}
	add("ka2.revision", ri.Tool.Revision)
	add("go.version", ri.Tool.Go)
	add("started", ri.Started)
	add("finished", ri.Finished)
	if r.Shard != nil {
		add("shard", r.Shard.Shard.String())
	}
	if ri.Repository != nil {
		add("repository.commit", ri.Repository.Commit)
	}
	for _, c := range ri.Corpora {
		add("corpus."+c.Location, c.Digest)
	}
	for _, f := range ri.CaseFiles {
		add("casefile."+f.Path, f.SHA256)
	}
	var at string
	if t, err := time.Parse(TimeFormat, ri.Started); err == nil {
		at = t.Format("2006-01-02T15:04:05")
	}
	return props, at
}

func junitFailureOf(c CaseReport) *junitFailure {
	f := &junitFailure{Type: "golden_" + string(c.State)}
	var msg []string
	var body strings.Builder
	switch {
	case c.Error != "":
		f.Type = "error"
		msg = append(msg, c.Error)
	case c.State != StateMatch && c.State != StateUpdated && c.State != StateCreated:
		msg = append(msg, "golden "+string(c.State)+": "+c.Summary)
	default:
		f.Type = "expectation"
	}
	msg = append(msg, c.Expectations...)
	f.Message = strings.Join(msg, "; ")
	fmt.Fprintf(&body, "golden: %s\n", c.Golden)
	if c.Summary != "" {
		fmt.Fprintf(&body, "summary: %s\n", c.Summary)
	}
	for _, e := range c.Expectations {
		fmt.Fprintf(&body, "expectation failed: %s\n", e)
	}
	if c.Pending != "" {
		fmt.Fprintf(&body, "pending: %s\n", c.Pending)
	}
	if c.Diff != "" {
		body.WriteString("\n")
		body.WriteString(c.Diff)
	}
	f.Body = xmlSafe(body.String())
	return f
}

// xmlSafe replaces the characters XML 1.0 cannot hold, even in CDATA (most
// control characters, unpaired surrogates, U+FFFE and U+FFFF, invalid
// UTF-8), with U+FFFD, so a hand-broken golden cannot break the report.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t', r == '\n', r == '\r',
			0x20 <= r && r <= 0xD7FF, 0xE000 <= r && r <= 0xFFFD, 0x10000 <= r && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// ErrMerge is matched by the errors Merge returns for reports that do not
// make one run: a missing or repeated shard, shards of different runs, or a
// case in two reports.
var ErrMerge = errors.New("cannot merge reports")

// Merge combines the JSON reports of the shards of one run into the report
// the unsharded run would have given: files in path order, cases in line
// order, and the summary recounted. When the reports are shards it checks
// that each of 1..N is there exactly once and that together they hold
// every case of the suite.
func Merge(reports []*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("%w: no reports", ErrMerge)
	}
	if err := checkShards(reports); err != nil {
		return nil, err
	}
	for _, r := range reports {
		if r.Stopped != nil {
			return nil, fmt.Errorf("%w: a report stopped at its limit of %s with %s not run, so the merged report would not hold every case; run the shards without a failure limit",
				ErrMerge, plural(r.Stopped.MaxFailures, "failure"), plural(r.Stopped.NotRun, "case"))
		}
	}
	run, err := mergeRuns(reports)
	if err != nil {
		return nil, err
	}
	out := &Report{Format: ReportFormat, Run: run, Files: []FileReport{}, Unreferenced: []UnreferencedGolden{}}
	byPath := map[string]*FileReport{}
	var order []string
	unref := map[string]bool{}
	for _, r := range reports {
		out.RejectUnreferenced = out.RejectUnreferenced || r.RejectUnreferenced
		for _, f := range r.Files {
			fr := byPath[f.Path]
			if fr == nil {
				fr = &FileReport{Path: f.Path}
				byPath[f.Path] = fr
				order = append(order, f.Path)
			}
			fr.Cases = append(fr.Cases, f.Cases...)
		}
		for _, u := range r.Unreferenced {
			if k := u.Path; !unref[k] {
				unref[k] = true
				out.Unreferenced = append(out.Unreferenced, u)
			}
		}
		out.StaleRemoved = append(out.StaleRemoved, r.StaleRemoved...)
	}
	slices.Sort(out.StaleRemoved)
	out.StaleRemoved = slices.Compact(out.StaleRemoved)
	slices.Sort(order)
	for _, p := range order {
		fr := byPath[p]
		slices.SortStableFunc(fr.Cases, func(a, b CaseReport) int { return cmp.Compare(a.Line, b.Line) })
		for i := 1; i < len(fr.Cases); i++ {
			if fr.Cases[i].Name == fr.Cases[i-1].Name {
				return nil, fmt.Errorf("%w: case %s:%d %s is in more than one report", ErrMerge, p, fr.Cases[i].Line, fr.Cases[i].Name)
			}
		}
		out.Files = append(out.Files, *fr)
	}
	slices.SortFunc(out.Unreferenced, func(a, b UnreferencedGolden) int { return strings.Compare(a.Path, b.Path) })
	out.count()
	if s := reports[0].Shard; s != nil && out.Summary.Cases != s.SuiteCases {
		return nil, fmt.Errorf("%w: the shards hold %d cases, but the suite has %d: were they run on the same case folders and version?",
			ErrMerge, out.Summary.Cases, s.SuiteCases)
	}
	return out, nil
}

// errUnsharded is a merge of a report that is not one shard's.
var errUnsharded = hinted(fmt.Errorf("%w: an unsharded report covers the whole run", ErrMerge), diag.Set("merge the reports of the runs sharded with {shard}"))

// unreferencedHint is WriteText's advice on unreferenced goldens.
var unreferencedHint = diag.Set("delete them with {prune}; {unreferenced}=reject fails the run on them")

// wording is name, or diag.SettingWords when name is nil.
func wording(name func(setting string) string) func(string) string {
	if name == nil {
		return diag.SettingWords
	}
	return name
}

func checkShards(reports []*Report) error {
	first := reports[0].Shard
	if first == nil {
		if len(reports) > 1 {
			for _, r := range reports {
				if r.Shard == nil {
					return errUnsharded
				}
			}
		}
		return nil
	}
	seen := make([]bool, first.Count+1)
	for _, r := range reports {
		s := r.Shard
		switch {
		case s == nil:
			return errUnsharded
		case s.Count != first.Count || s.SuiteCases != first.SuiteCases:
			return fmt.Errorf("%w: shard %s of a %d-case suite and shard %s of a %d-case suite are from different runs",
				ErrMerge, first.Shard, first.SuiteCases, s.Shard, s.SuiteCases)
		case seen[s.Index]:
			return fmt.Errorf("%w: shard %s is given twice", ErrMerge, s.Shard)
		}
		seen[s.Index] = true
	}
	var missing []string
	for k := 1; k <= first.Count; k++ {
		if !seen[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.Count))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: shard %s missing: its cases would be left out of the summary", ErrMerge, strings.Join(missing, ", "))
	}
	return nil
}
