package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ka2/ka2/corpus"
)

// benchFiles is the size of the generated corpus BenchmarkLint lints.
const benchFiles = 100_000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// generatedCorpus writes, once per process, a corpus of benchFiles policy
// files: 25,000 subjects, each in two versions (the second superseding the
// first) and two languages. One subject in a thousand has a problem (an
// open-ended first version, a missing unit), so the rules that report have
// work to do.
func generatedCorpus(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "ka2-lint-bench-")
		if benchErr != nil {
			return
		}
		n := 0
		for s := 0; n < benchFiles; s++ {
			dir := filepath.Join(benchDir, fmt.Sprintf("%03d", s/250))
			if s%250 == 0 {
				if benchErr = os.MkdirAll(dir, 0o755); benchErr != nil {
					return
				}
			}
			broken := s%1000 == 999
			for _, lang := range []string{"en", "zh"} {
				for v := 1; v <= 2; v++ {
					benchErr = os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%05d-v%d.%s.md", s, v, lang)),
						[]byte(benchFile(s, v, lang, broken)), 0o644)
					if benchErr != nil {
						return
					}
					n++
				}
			}
		}
	})
	if benchErr != nil {
		b.Fatalf("generate corpus: %v", benchErr)
	}
	return benchDir
}

func benchFile(s, v int, lang string, broken bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nsource_id: s%05d-v%d\nversion: v%d\nsubjects: [subject-%05d]\n", s, v, v, s)
	from, until := "2025-01-01", "2026-01-01"
	if v == 2 {
		from, until = "2026-01-01", ""
		fmt.Fprintf(&b, "supersedes: [s%05d-v1]\n", s)
	}
	fmt.Fprintf(&b, "valid_from: %s\n", from)
	if until != "" && !broken {
		fmt.Fprintf(&b, "valid_until: %s\n", until)
	}
	fmt.Fprintf(&b, "lang: %s\n", lang)
	if !broken {
		if lang == "zh" {
			b.WriteString("unit: 元/间夜\n")
		} else {
			b.WriteString("unit: CNY per room-night\n")
		}
	}
	b.WriteString("cite: [\"1-3\"]\n---\n")
	amount := 500 + 10*(s%50) + 100*v
	if lang == "zh" {
		fmt.Fprintf(&b, "适用范围：第 %d 号城市出差的住宿。\n生效日期：%s 起。\n住宿标准上限为每间夜 %d。\n报销时须提供酒店发票。\n", s, from, amount)
	} else {
		fmt.Fprintf(&b, "Scope: lodging on business trips to city %d.\nEffective from %s.\nThe lodging limit is %d per room-night.\nKeep the hotel invoice.\n", s, from, amount)
	}
	return b.String()
}

// BenchmarkLint lints the generated 100,000-file corpus from disk.
func BenchmarkLint(b *testing.B) {
	dir := generatedCorpus(b)
	fsys := os.DirFS(dir)
	opts := Options{Today: corpus.MustDate(2026, 9, 14)}
	var rep Report
	b.ResetTimer()
	for b.Loop() {
		var err error
		rep, err = Run(context.Background(), fsys, opts)
		if err != nil {
			b.Fatal(err)
		}
	}
	if rep.Files != benchFiles {
		b.Fatalf("linted %d files, want %d", rep.Files, benchFiles)
	}
	b.ReportMetric(float64(rep.Files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(len(rep.Findings)), "findings")
}

// BenchmarkLintSample lints the embedded sample corpus: the cost of one
// small run, dominated by fixed work per file.
func BenchmarkLintSample(b *testing.B) {
	opts := Options{Today: corpus.MustDate(2026, 9, 14)}
	for b.Loop() {
		if _, err := Run(context.Background(), corpus.Sample(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckSubjects checks 200 case subjects, half of them unknown
// (typos and parents), against 1,000 subjects: the hints are made once
// per call, not once per unknown subject.
func BenchmarkCheckSubjects(b *testing.B) {
	known := make([]string, 1000)
	for i := range known {
		known[i] = fmt.Sprintf("travel/city-%03d/lodging", i)
	}
	slices.Sort(known)
	refs := make([]SubjectRef, 200)
	for i := range refs {
		s := known[(i*37)%len(known)]
		switch i % 4 {
		case 1:
			s = strings.Replace(s, "lodging", "lodgign", 1)
		case 3:
			s = strings.TrimSuffix(s, "/lodging")
		}
		refs[i] = SubjectRef{Path: "cases/c.yaml", Line: i + 1, Col: 14, Subject: s}
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(CheckSubjects(refs, known, nil)) != 100 {
			b.Fatal("want 100 findings")
		}
	}
}
