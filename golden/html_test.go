package golden_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/golden"
)

// TestReportHTML runs the sample cases with three broken ones and a golden
// whose quote holds a script, and checks the HTML report: golden, failing
// cases first, the changed record side by side, everything escaped, and
// well-formed.
func TestReportHTML(t *testing.T) {
	inSampleCopy(t)
	breakSome(t)
	edit(t, "cases/testdata/golden/boundaries/compare-2025-and-2026.golden",
		"The lodging limit is 600 CNY", `The lodging limit is <script>alert(\"x\")</script> & 600 CNY`)
	rep, err := golden.Run(t.Context(), load(t, "cases"), golden.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b, golden.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	goldie.New(t, goldie.WithFixtureDir(fixtureDir)).Assert(t, "report/html", b.Bytes())

	if strings.Contains(got, "<script") {
		t.Error("the report holds a <script> element")
	}
	if !strings.Contains(got, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; 600 CNY") {
		t.Error("the quote's script is not shown escaped")
	}
	failing, other := strings.Index(got, `id="failing"`), strings.Index(got, `id="passing"`)
	if failing < 0 || other < 0 || strings.Index(got, "<span class=\"status\">FAIL</span>mid-2026") > other {
		t.Error("failing cases do not come first")
	}
	checkWellFormed(t, got)

	// The hand-edited golden's record is paired with the build's and
	// marked changed in its quote.
	var mid *golden.CaseReport
	for i := range rep.Files {
		for j := range rep.Files[i].Cases {
			if c := &rep.Files[i].Cases[j]; c.Name == "mid-2026" {
				mid = c
			}
		}
	}
	if mid == nil {
		t.Fatal("no case mid-2026")
	}
	var changes []string
	for _, rc := range mid.Records {
		changes = append(changes, rc.Change+" "+strings.Join(rc.Fields, ","))
	}
	if diff := cmp.Diff([]string{"changed quote"}, changes); diff != "" {
		t.Errorf("mid-2026 records mismatch (-want +got):\n%s", diff)
	}
	if mid.Budget == nil || mid.Budget.Limit != 1400 || len(mid.Budget.Parts) == 0 {
		t.Errorf("mid-2026 budget = %+v", mid.Budget)
	}
}

func TestRecordChanges(t *testing.T) {
	rec := func(id string, start, end int, quote string) string {
		return `{"source_id":"` + id + `","version":"v1","valid_from":"2026-01-01","line_start":` +
			string(rune('0'+start)) + `,"line_end":` + string(rune('0'+end)) + `,"quote":"` + quote + `"}`
	}
	want := []byte(`{"evidence":[` + rec("a", 1, 2, `x\ny`) + `,` + rec("b", 1, 1, "b") + `,` + rec("gone", 1, 1, "g") + `]}`)
	got := []byte(`{"evidence":[` + rec("new", 1, 1, "n") + `,` + rec("a", 1, 3, `x\ny\nz`) + `,` + rec("b", 1, 1, "b") + `]}`)
	var out []string
	for _, rc := range golden.RecordChanges(want, got) {
		s := rc.Change
		if rc.Golden != nil {
			s += " " + rc.Golden.SourceID
		}
		if rc.Actual != nil {
			s += " → " + rc.Actual.SourceID
		}
		if len(rc.Fields) > 0 {
			s += " [" + strings.Join(rc.Fields, ",") + "]"
		}
		out = append(out, s)
	}
	wantOut := []string{"added → new", "changed a → a [lines,quote]", "same b → b", "removed gone"}
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("RecordChanges() mismatch (-want +got):\n%s", diff)
	}
	if rc := golden.RecordChanges(nil, []byte(`{"error":{"kind":"no_evidence","message":"m"}}`)); len(rc) != 0 {
		t.Errorf("RecordChanges() of an error = %v, want none", rc)
	}
}

// TestReportHTMLEscapesEverything writes a report whose every text is
// hostile.
func TestReportHTMLEscapesEverything(t *testing.T) {
	evil := `<script>alert(1)</script>"'&`
	rep := &golden.Report{Format: golden.ReportFormat, Files: []golden.FileReport{{Path: "cases/" + evil + ".yaml", Cases: []golden.CaseReport{{
		Name: "c" + evil, Line: 3, Status: golden.StatusFail, Golden: evil, State: golden.StateDiffers, Outcome: evil,
		Summary: evil, Diff: "-" + evil + "\n+" + evil + "\n", Expectations: []string{evil}, Note: evil, Error: evil + "\x00",
		Records: []golden.RecordChange{{Change: golden.RecordChanged, Fields: []string{"quote"},
			Golden: &contract.EvidenceRecord{SourceID: evil, Quote: evil}, Actual: &contract.EvidenceRecord{SourceID: evil, Quote: evil + "\n" + evil}}},
		Budget: &golden.CaseBudget{Counter: evil, Limit: 10, Total: 12, Parts: []golden.PartCost{{Kind: "evidence", Cost: 12}}},
	}}}}, Unreferenced: []golden.UnreferencedGolden{{Path: evil}}}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b, golden.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script") {
		t.Errorf("hostile text reached the page unescaped:\n%s", b.String())
	}
	checkWellFormed(t, b.String())
}

// checkWellFormed parses the page as XML (it is written so), refusing
// scripts, event handlers and external references.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(page, "<!DOCTYPE html>\n")))
	dec.Strict = true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok {
			if el.Name.Local == "script" || el.Name.Local == "link" || el.Name.Local == "img" {
				t.Errorf("the page has a <%s> element", el.Name.Local)
			}
			for _, a := range el.Attr {
				if strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "src" {
					t.Errorf("<%s %s=%q>", el.Name.Local, a.Name.Local, a.Value)
				}
			}
		}
	}
}
