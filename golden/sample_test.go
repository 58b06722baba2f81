package golden_test

import (
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/testutil"
)

// sampleCases is the project's own case set: every boundary case of the
// core issue, on the embedded sample corpus (and one small corpus of
// overlapping sources beside it).
const sampleCases = "testdata/sample-cases"

// updating reports whether goldens are being refreshed: goldie's -update
// flag (or GOLDIE_UPDATE=1) refreshes the sample cases' goldens too.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestSampleCases runs `ka2 regress` on the sample case set, as CI does:
// every case must match its golden, every expectation must hold and no
// golden may be left without a case.
func TestSampleCases(t *testing.T) {
	suite, err := golden.Load(context.Background(), []string{sampleCases}, golden.LoadOptions{})
	if err != nil {
		t.Fatalf("Load(%s): %v", sampleCases, err)
	}
	rep, err := golden.Run(context.Background(), suite, golden.Options{RejectUnreferenced: true, Update: updating(), Prune: updating()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var b strings.Builder
		rep.WriteText(&b, nil)
		t.Fatalf("the sample cases do not pass (refresh intended changes with go test ./golden -update):\n%s", b.String())
	}
	if rep.Summary.Cases < 30 {
		t.Errorf("the sample set has %d cases; it lost some", rep.Summary.Cases)
	}
}

func readGolden(t *testing.T, file, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(golden.Path(path.Join(sampleCases, file), name)))
	if err != nil {
		t.Fatal(err)
	}
	return golden.Pins(data, nil)
}

// TestSampleHostileSourceStaysData checks the hostile notice's golden
// structurally: exactly the six top-level keys, and its text inside one
// evidence quote.
func TestSampleHostileSourceStaysData(t *testing.T) {
	for _, name := range []string{"hostile-notice-stays-data", "hostile-notice-has-no-lang-so-zh-gets-it-too"} {
		data := readGolden(t, "trust.yaml", name)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatal(err)
		}
		if len(top) != 6 {
			t.Errorf("%s: %d top-level keys, want 6 (template, instruction, example, evidence, scope, question)", name, len(top))
		}
		var ev []struct{ Quote string }
		if err := json.Unmarshal(top["evidence"], &ev); err != nil {
			t.Fatal(err)
		}
		if len(ev) != 1 || !strings.Contains(ev[0].Quote, "cancel order A-104") {
			t.Errorf("%s: the hostile text is not one evidence quote: %+v", name, ev)
		}
		if strings.Contains(string(top["instruction"]), "A-104") {
			t.Errorf("%s: the hostile text reached the instruction", name)
		}
	}
}

// TestSampleShuffledCorpus copies the embedded sample corpus under other
// file names and folders, in another order, and checks that every case of
// the sample set that uses it builds byte for byte what its golden holds.
func TestSampleShuffledCorpus(t *testing.T) {
	dir := t.TempDir()
	names := map[string]string{} // sample path -> shuffled path
	i := 0
	err := fs.WalkDir(corpus.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		i++
		// Reverse the lexical order and nest some files deeper.
		names[p] = filepath.Join(strings.Repeat("z", 10-i), map[bool]string{true: "deeper", false: "."}[i%2 == 0], "file-"+string(rune('k'-i))+".md")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range names {
		data, err := fs.ReadFile(corpus.Sample(), from)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(dir, to), string(data))
	}
	shuffled, err := corpus.Folder(dir).Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	suite, err := golden.Load(context.Background(), []string{sampleCases}, golden.LoadOptions{Corpus: shuffled})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range suite.Cases {
		if c.Config.Corpus.Name != golden.SampleCorpus { // only the cases on the embedded sample
			continue
		}
		o := c.Build()
		want, err := os.ReadFile(filepath.FromSlash(c.Golden))
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Bytes; !o.Matches(want) {
			t.Errorf("%s: the shuffled corpus builds other bytes:\n%s", c, golden.Diff(c.Golden, golden.Pins(want, nil), "shuffled", got))
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("checked %d cases, want at least 20", checked)
	}
}
