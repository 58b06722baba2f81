// Package gennights generates a series of nightly ka2 regress reports with
// known first failures and flaky cases, for the tests and the timing of
// `ka2 report history`.
package gennights

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/ka2/ka2/golden"
)

// Spec describes a series.
type Spec struct {
	Nights, Cases int
	// PerFile is how many cases a case file holds (default 100).
	PerFile int
	// Start is the first night's start; each night starts a day later.
	Start time.Time
	// Breaks maps a case's index to the night from which it fails; the
	// corpus changes that night (and only on break nights).
	Breaks map[int]int
	// Flaky maps a case's index to nights on which it fails with nothing
	// changed.
	Flaky map[int][]int
}

// CaseName is the name of case i.
func CaseName(i int) string { return fmt.Sprintf("case-%05d", i) }

// FileOf is the case file of case i.
func (s Spec) FileOf(i int) string {
	return fmt.Sprintf("cases/suite-%03d.yaml", i/s.perFile())
}

func (s Spec) perFile() int {
	if s.PerFile > 0 {
		return s.PerFile
	}
	return 100
}

// Digest is a made-up SHA-256 for the text.
func Digest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Night returns the report of night n (0-based).
func (s Spec) Night(n int) *golden.Report {
	corpusVersion := 0
	for _, from := range s.Breaks {
		if from <= n {
			corpusVersion++
		}
	}
	start := s.Start.AddDate(0, 0, n)
	run := &golden.RunInfo{
		Started: start.UTC().Format(golden.TimeFormat), Finished: start.Add(90 * time.Second).UTC().Format(golden.TimeFormat), DurationMS: 90000,
		Tool:       golden.Tool{Version: "v1.4.0", Go: "go1.26.0"},
		Host:       "nightly-runner",
		Repository: &golden.Repository{Commit: Digest(fmt.Sprintf("commit %d", n))[:40]},
		Corpora:    []golden.CorpusDigest{{Location: "policies", Digest: Digest(fmt.Sprintf("corpus v%d", corpusVersion)), Sources: 40}},
	}
	nfiles := (s.Cases + s.perFile() - 1) / s.perFile()
	for f := range nfiles {
		run.CaseFiles = append(run.CaseFiles, golden.FileDigest{Path: s.FileOf(f * s.perFile()), SHA256: Digest(fmt.Sprintf("case file %d", f))})
	}
	rep := &golden.Report{Format: golden.ReportFormat, Run: run, Files: []golden.FileReport{}, Unreferenced: []golden.UnreferencedGolden{}}
	for i := range s.Cases {
		if i%s.perFile() == 0 {
			rep.Files = append(rep.Files, golden.FileReport{Path: s.FileOf(i)})
		}
		fail := false
		if from, ok := s.Breaks[i]; ok && n >= from {
			fail = true
		}
		for _, fn := range s.Flaky[i] {
			fail = fail || fn == n
		}
		c := golden.CaseReport{Name: CaseName(i), Line: 1 + 6*(i%s.perFile()), Status: golden.StatusPass, State: golden.StateMatch, Outcome: "contract",
			Golden: fmt.Sprintf("cases/testdata/golden/suite-%03d/%s.golden", i/s.perFile(), CaseName(i)),
			Budget: &golden.CaseBudget{Counter: "codepoint", Limit: 3600, Total: 1200 + (i*37)%1800 + 3*n,
				Parts: []golden.PartCost{{Kind: "instruction", Cost: 400}, {Kind: "evidence", Cost: 800 + (i*37)%1800 + 3*n}}}}
		if fail {
			c.Status, c.State = golden.StatusFail, golden.StateDiffers
			c.Summary = "evidence ~policy:1-4 (quote line 2)"
		}
		f := &rep.Files[len(rep.Files)-1]
		f.Cases = append(f.Cases, c)
		rep.Summary.Cases++
		if fail {
			rep.Summary.Failed++
			rep.Summary.Differs++
		} else {
			rep.Summary.Passed++
		}
	}
	return rep
}
