package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/ka2/ka2/internal/textsafe"
)

// WriteText prints the report for people: the pass rate of each condition
// against its threshold (with the variants not sent), of each case (with
// the distractors its position variants had), the skipped cases, the
// variants not sent and why, then each failed run's findings.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("condition         passed   rate  need  spread\n")
	for _, c := range r.Conditions {
		verdict := "ok"
		switch {
		case c.Runs == 0:
			verdict = "UNTESTED"
		case !c.OK:
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "%-16s %4d/%-4d %5.2f %5.2f  %.2f-%.2f  %s%s\n", c.Name, c.Passed, c.Runs, c.Rate, c.Need, c.Min, c.Max, verdict, notSent(c))
	}
	distractors := map[string]string{}
	for _, v := range r.Variants {
		if isPosition(v.Condition) {
			distractors[v.Case] = fmt.Sprint(v.Distractors)
		}
	}
	b.WriteString("\ncase                                     passed   rate  distractors\n")
	for _, c := range r.Cases {
		d, ok := distractors[c.Name]
		if !ok {
			d = "-"
		}
		fmt.Fprintf(&b, "%-40s %4d/%-4d %5.2f  %s\n", textsafe.Escape(c.Name), c.Passed, c.Runs, c.Rate, d)
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\nskipped\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "%s: %s\n", textsafe.Escape(s.Case), textsafe.Escape(s.Reason))
		}
	}
	header := false
	for _, v := range r.Variants {
		if v.Status == Sent {
			continue
		}
		if !header {
			b.WriteString("\nnot sent\n")
			header = true
		}
		fmt.Fprintf(&b, "%s [%s]: %s: %s\n", textsafe.Escape(v.Case), v.Condition, strings.ReplaceAll(string(v.Status), "_", " "), textsafe.Escape(v.Reason))
	}
	failed := false
	for _, x := range r.Runs {
		if x.Pass {
			continue
		}
		if !failed {
			b.WriteString("\nfailures\n")
			failed = true
		}
		fmt.Fprintf(&b, "%s [%s #%d]: %s\n", textsafe.Escape(x.Case), x.Condition, x.Repeat, textsafe.Escape(oneLine(x.Answer)))
		if x.Error != "" {
			fmt.Fprintf(&b, "  error: %s\n", textsafe.Escape(x.Error))
		}
		for _, f := range x.Findings {
			fmt.Fprintf(&b, "  %s\n", textsafe.Escape(f.String()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// notSent words a rate's variants that were not sent, or "".
func notSent(r Rate) string {
	var parts []string
	if r.Degenerate > 0 {
		parts = append(parts, fmt.Sprintf("%d degenerate", r.Degenerate))
	}
	if r.OverBudget > 0 {
		parts = append(parts, fmt.Sprintf("%d over budget", r.OverBudget))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:117]) + "..."
	}
	return s
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test suite per case, one
// test case per case × condition, failed when any of its repeats failed,
// with the findings of each failed repeat; a variant not sent is a
// skipped test case, and so is a skipped case (test case "build").
func (r *Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "ka2 eval"}
	byCase := map[string]int{}
	suite := func(name string) *junitSuite {
		si, ok := byCase[name]
		if !ok {
			si = len(out.Suites)
			byCase[name] = si
			out.Suites = append(out.Suites, junitSuite{Name: name})
		}
		return &out.Suites[si]
	}
	skip := func(s *junitSuite, name, classname, message string) {
		s.Cases = append(s.Cases, junitCase{Name: name, Classname: classname, Skipped: &junitSkipped{Message: message}})
		s.Tests++
		s.Skipped++
		out.Tests++
		out.Skipped++
	}
	type key struct {
		c    string
		cond Condition
	}
	at := map[key]int{}
	for _, v := range r.Variants {
		s := suite(v.Case)
		if v.Status != Sent {
			skip(s, string(v.Condition), v.Case, strings.ReplaceAll(string(v.Status), "_", " ")+": "+v.Reason)
			continue
		}
		at[key{v.Case, v.Condition}] = len(s.Cases)
		s.Cases = append(s.Cases, junitCase{Name: string(v.Condition), Classname: v.Case})
		s.Tests++
		out.Tests++
	}
	for _, x := range r.Skipped {
		skip(suite(x.Case), "build", x.Case, x.Reason)
	}
	for _, x := range r.Runs {
		s := suite(x.Case)
		ci := at[key{x.Case, x.Condition}]
		if x.Pass {
			continue
		}
		tc := &s.Cases[ci]
		if tc.Failure == nil {
			tc.Failure = &junitFailure{}
			s.Failures++
			out.Failures++
		}
		var b strings.Builder
		fmt.Fprintf(&b, "repeat %d: %s\n", x.Repeat, oneLine(x.Answer))
		if x.Error != "" {
			fmt.Fprintf(&b, "  error: %s\n", x.Error)
		}
		for _, f := range x.Findings {
			fmt.Fprintf(&b, "  %s\n", f)
		}
		tc.Failure.Text += b.String()
		if tc.Failure.Message == "" && len(x.Findings) > 0 {
			tc.Failure.Message = x.Findings[0].String()
		} else if tc.Failure.Message == "" {
			tc.Failure.Message = x.Error
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
