package eval

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/ka2/ka2/internal/textsafe"
)

// WriteText prints the report for people: the pass rate of each condition
// against its threshold, of each case, then each failed run's findings.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("condition         passed   rate  need  spread\n")
	for _, c := range r.Conditions {
		verdict := "ok"
		if !c.OK {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "%-16s %4d/%-4d %5.2f %5.2f  %.2f-%.2f  %s\n", c.Name, c.Passed, c.Runs, c.Rate, c.Need, c.Min, c.Max, verdict)
	}
	b.WriteString("\ncase                                     passed   rate\n")
	for _, c := range r.Cases {
		fmt.Fprintf(&b, "%-40s %4d/%-4d %5.2f\n", textsafe.Escape(c.Name), c.Passed, c.Runs, c.Rate)
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
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test suite per case, one
// test case per case × condition, failed when any of its repeats failed,
// with the findings of each failed repeat.
func (r *Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "ka2 eval"}
	byCase := map[string]int{}
	type key struct {
		c    string
		cond Condition
	}
	at := map[key]int{}
	for _, x := range r.Runs {
		si, ok := byCase[x.Case]
		if !ok {
			si = len(out.Suites)
			byCase[x.Case] = si
			out.Suites = append(out.Suites, junitSuite{Name: x.Case})
		}
		s := &out.Suites[si]
		k := key{x.Case, x.Condition}
		ci, ok := at[k]
		if !ok {
			ci = len(s.Cases)
			at[k] = ci
			s.Cases = append(s.Cases, junitCase{Name: string(x.Condition), Classname: x.Case})
			s.Tests++
			out.Tests++
		}
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
