package corpus_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ka2/ka2/corpus"
)

// The benchmark corpus: benchSubjects subjects, each with benchVersions
// consecutive versions (v1 until v2 starts, …, the last one open-ended),
// one file of about 1 KB per source, one folder per subject.
const (
	benchSubjects = 1000
	benchVersions = 100
	benchSources  = benchSubjects * benchVersions
)

// benchFile returns the policy file for version v (1-based) of subject s.
// The same arguments give the same bytes on every run.
func benchFile(s, v int) []byte {
	id := func(v int) string { return fmt.Sprintf("s%04d-v%03d", s, v) }
	from := corpus.MustDate(2000, 1, 1).AddDays(60 * (v - 1))
	fm := []string{
		"source_id: " + id(v),
		fmt.Sprintf("version: v%d", v),
		fmt.Sprintf("subjects: [subject-%04d, travel]", s),
		"valid_from: " + from.String(),
	}
	if v < benchVersions {
		fm = append(fm, "valid_until: "+from.AddDays(60).String())
	}
	if v > 1 {
		fm = append(fm, "supersedes: ["+id(v-1)+"]")
	}
	fm = append(fm, "lang: en", "unit: CNY per room-night", `cite: ["1-3", "7"]`)
	amount := 400 + (s*7+v*13)%600
	var b strings.Builder
	fmt.Fprintf(&b, "Scope: lodging on business trips for cost centre %04d.\n", s)
	fmt.Fprintf(&b, "Effective from %s; version %d of this rule.\n", from, v)
	fmt.Fprintf(&b, "The lodging limit is %d CNY per room-night.\n", amount)
	b.WriteString("Keep the hotel invoice; claims without one are not reimbursed.\n")
	b.WriteString("Rooms above the limit need written approval before the trip.\n")
	b.WriteString("Shared rooms are not required, but they are welcome.\n")
	fmt.Fprintf(&b, "Breakfast is included in the limit of %d CNY when the hotel lists it separately.\n", amount)
	b.WriteString("Late check-out fees are covered only when a flight leaves after 18:00.\n")
	b.WriteString("Loyalty points stay with the traveller and do not change the limit.\n")
	b.WriteString("Receipts in a foreign currency are converted at the rate on the invoice date.\n")
	b.WriteString("Travellers who stay with friends or family do not claim the lodging limit.\n")
	b.WriteString("A cancelled booking is refunded only when the trip itself was cancelled.\n")
	b.WriteString("Questions about this rule go to the travel desk, not to the hotel.\n")
	return []byte(doc(fm, b.String()))
}

var benchCorpus struct {
	once  sync.Once
	dir   string
	bytes int64
	err   error
}

// benchCorpusDir writes the benchmark corpus once per test binary run, to a
// folder that TestMain removes at the end.
func benchCorpusDir(b *testing.B) (string, int64) {
	b.Helper()
	benchCorpus.once.Do(func() {
		dir, err := os.MkdirTemp("", "ka2-corpus-bench-")
		if err != nil {
			benchCorpus.err = err
			return
		}
		benchCorpus.dir = dir
		for s := range benchSubjects {
			folder := filepath.Join(dir, fmt.Sprintf("subject-%04d", s))
			if err := os.Mkdir(folder, 0o755); err != nil {
				benchCorpus.err = err
				return
			}
			for v := 1; v <= benchVersions; v++ {
				data := benchFile(s, v)
				benchCorpus.bytes += int64(len(data))
				if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("v%03d.md", v)), data, 0o644); err != nil {
					benchCorpus.err = err
					return
				}
			}
		}
	})
	if benchCorpus.err != nil {
		b.Fatal(benchCorpus.err)
	}
	return benchCorpus.dir, benchCorpus.bytes
}

func TestMain(m *testing.M) {
	defer func() {
		if benchCorpus.dir != "" {
			os.RemoveAll(benchCorpus.dir)
		}
	}()
	m.Run()
}

// BenchmarkLoad loads a corpus of 100,000 sources (about 1 KB each) from
// disk through os.Root, as the CLI does, with the front matter fast path
// on (yaml=fast) and off (yaml=v3), so one run gives the ratio that
// justifies keeping the fast path.
func BenchmarkLoad(b *testing.B) {
	dir, size := benchCorpusDir(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	forEachYAMLPath(b, func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var c *corpus.Corpus
		for b.Loop() {
			c, err = corpus.Load(root.FS())
			if err != nil {
				b.Fatal(err)
			}
		}
		if len(c.Sources) != benchSources {
			b.Fatalf("Load() gave %d sources, want %d", len(c.Sources), benchSources)
		}
		b.ReportMetric(float64(benchSources)*float64(b.N)/b.Elapsed().Seconds(), "sources/s")
	})
}

// forEachYAMLPath runs bench with the front matter fast path on, then off.
func forEachYAMLPath(b *testing.B, bench func(b *testing.B)) {
	for _, slow := range []bool{false, true} {
		name := "yaml=fast"
		if slow {
			name = "yaml=v3"
		}
		b.Run(name, func(b *testing.B) {
			defer corpus.SetSlowYAML(slow)()
			bench(b)
		})
	}
}

// BenchmarkParse parses one file of the benchmark corpus, with the front
// matter fast path on and off.
func BenchmarkParse(b *testing.B) {
	data := benchFile(42, 50)
	forEachYAMLPath(b, func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := corpus.Parse("subject-0042/v050.md", data); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sources/s")
	})
}

// TestBenchFile checks the generator the benchmarks rely on: its files
// parse, are about 1 KB, and chain their versions without gaps.
func TestBenchFile(t *testing.T) {
	var sources []*corpus.Source
	for v := 1; v <= benchVersions; v++ {
		data := benchFile(7, v)
		if len(data) < 900 || len(data) > 1200 {
			t.Errorf("version %d: %d bytes, want about 1 KB", v, len(data))
		}
		s, err := corpus.Parse(fmt.Sprintf("subject-0007/v%03d.md", v), data)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		sources = append(sources, s)
	}
	for i := 1; i < len(sources); i++ {
		if sources[i-1].ValidUntil != sources[i].ValidFrom {
			t.Errorf("version %d ends on %s, but version %d starts on %s", i, sources[i-1].ValidUntil, i+1, sources[i].ValidFrom)
		}
	}
	if last := sources[len(sources)-1]; !last.ValidUntil.IsZero() {
		t.Errorf("the last version ends on %s, want open-ended", last.ValidUntil)
	}
	if _, err := corpus.New(sources); err != nil {
		t.Error(err)
	}
}
