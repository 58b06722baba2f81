package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMatchesPinned: a run compares what readGolden pinned
// (matchesPinned) instead of joining the golden's lines a second time
// (Matches); the two agree on every golden, contract or error.
func TestMatchesPinned(t *testing.T) {
	built := `{"template":"t","evidence":[{"source_id":"a","line_start":1,"quote":"one\ntwo"}],"n":1.50}` + "\n"
	contract := Outcome{Bytes: []byte(built)}
	stored := string(contract.Stored())
	errBody := "{\n  \"error\": {\n    \"kind\": \"no_evidence\"\n  }\n}\n"
	failed := Outcome{Bytes: []byte(errBody), Kind: KindNoEvidence}
	tests := []struct {
		name   string
		o      Outcome
		golden string
	}{
		{"the stored form", contract, stored},
		{"compact, the quote one string", contract, built},
		{"a quote line changed", contract, strings.Replace(stored, `"two"`, `"three"`, 1)},
		{"a number spelled otherwise", contract, strings.Replace(built, "1.50", "1.5", 1)},
		{"not JSON", contract, "{"},
		{"the error golden", failed, errBody},
		{"the error golden compacted", failed, `{"error":{"kind":"no_evidence"}}`},
		{"a contract where an error was", failed, stored},
	}
	for _, tt := range tests {
		want := tt.o.Matches([]byte(tt.golden))
		if got := tt.o.matchesPinned(Pins([]byte(tt.golden), tt.o.def)); got != want {
			t.Errorf("%s: matchesPinned(Pins()) = %v, Matches() = %v", tt.name, got, want)
		}
	}
}

// A run takes a golden as matching without Pins (inStoredForm) exactly
// when it is byte for byte what Stored writes; any other golden, an older
// form that matches as well as one that differs by a byte anywhere, goes
// to matchesPinned, and the run's answer is Matches' on every one.
func TestInStoredForm(t *testing.T) {
	built := `{"template":"t","instruction":"say \"so\"","evidence":[{"source_id":"a","line_start":1,"quote":"one\ntwo\n"},{"source_id":"b","line_start":2,"quote":"x y"}],"n":1.50,"empty":{},"none":[],"question":"q"}` + "\n"
	o := Outcome{Bytes: []byte(built)}
	stored := string(o.Stored())
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(built), "", "  "); err != nil {
		t.Fatal(err)
	}
	errBody := "{\n  \"error\": {\n    \"kind\": \"no_evidence\"\n  }\n}\n"
	failed := Outcome{Bytes: []byte(errBody), Kind: KindNoEvidence}
	tests := []struct {
		name          string
		o             Outcome
		golden        string
		stored, match bool
	}{
		{"the stored form", o, stored, true, true},
		{"compact, as ka2 build prints it", o, built, false, true},
		{"compact, without the newline", o, strings.TrimSuffix(built, "\n"), false, true},
		{"indented, each text one string", o, indented.String() + "\n", false, true},
		{"indented by a tab", o, strings.ReplaceAll(stored, "  ", "\t"), false, true},
		{"a blank line at the end", o, stored + "\n", false, true},
		{"no newline at the end", o, strings.TrimSuffix(stored, "\n"), false, true},
		{"a space before a colon", o, strings.Replace(stored, `"n": `, `"n" : `, 1), false, true},
		{"a quote line changed", o, strings.Replace(stored, `"two"`, `"twO"`, 1), false, false},
		{"an escaped quote unescaped", o, strings.Replace(stored, `\"so\"`, `'so'`, 1), false, false},
		{"a number spelled otherwise", o, strings.Replace(stored, "1.50", "1.5", 1), false, false},
		{"a space inside a string", o, strings.Replace(stored, `"x y"`, `"x  y"`, 1), false, false},
		{"a text's lines joined wrongly", o, strings.Replace(stored, "\"one\",\n", "\"one\\n\",\n", 1), false, false},
		{"a line of a text dropped", o, strings.Replace(stored, ",\n        \"\"", "", 1), false, false},
		{"keys in another order", o, strings.Replace(stored, `"template": "t",`+"\n"+`  "instruction": "say \"so\"",`, `"instruction": "say \"so\"",`+"\n"+`  "template": "t",`, 1), false, false},
		{"not JSON", o, stored[:len(stored)/2], false, false},
		{"empty", o, "", false, false},
		{"the error golden", failed, errBody, true, true},
		{"the error golden compacted", failed, `{"error":{"kind":"no_evidence"}}`, false, false},
		{"a contract where an error was", failed, stored, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := []byte(tt.golden)
			if got := tt.o.inStoredForm(g); got != tt.stored {
				t.Errorf("inStoredForm() = %v, want %v", got, tt.stored)
			}
			if got := tt.o.Matches(g); got != tt.match {
				t.Errorf("Matches() = %v, want %v", got, tt.match)
			}
			if run := tt.o.inStoredForm(g) || tt.o.matchesPinned(Pins(g, tt.o.def)); run != tt.match {
				t.Errorf("a run's answer = %v, Matches() = %v", run, tt.match)
			}
		})
	}
	// A byte changed anywhere in the stored form, whatever it is, leaves
	// it no longer the stored form.
	for i := range stored {
		for _, c := range []byte{' ', '\n', '"', '0', 'x'} {
			if stored[i] == c {
				continue
			}
			g := []byte(stored)
			g[i] = c
			if o.inStoredForm(g) {
				t.Errorf("byte %d set to %q: still the stored form:\n%s", i, c, g)
			}
		}
	}
}

// FuzzInStoredForm: for any JSON document as a build prints it, the
// stored form is taken as stored, and any other bytes are not (a fuzzed
// golden, or the stored form with one byte changed); built bytes that are
// not JSON (which Stored returns as they are) match no golden this way.
func FuzzInStoredForm(f *testing.F) {
	f.Add([]byte(`{"a":"\u12G4","b":01,"c":-,"d":1.e5,"e":tru,"f":"\x"}`), []byte{}, uint16(0))
	f.Add([]byte("{\"a\":\"\t\x01\"}"), []byte{}, uint16(0))
	f.Add([]byte(`{"template":"t","evidence":[{"quote":"a\nb\n"}],"question":"q","n":[1,{"a":[]}]}`), []byte("x"), uint16(7))
	f.Add([]byte(`{"evidence":[{"quote":["a","b"]}],"question":{"a":"b\nc"}}`), []byte{}, uint16(0))
	f.Add([]byte(`"a\nb"`), []byte("\"a\\nb\"\n"), uint16(1))
	f.Add([]byte(`{"instruction":"\\\n\"\n","memory":[{"text":"\n"}]}`), []byte(" "), uint16(30))
	f.Fuzz(func(t *testing.T, doc, other []byte, at uint16) {
		raw := Outcome{Bytes: append(bytes.Clone(doc), '\n')}
		for _, g := range [][]byte{raw.Stored(), raw.Bytes, other} {
			if raw.inStoredForm(g) && (!json.Valid(doc) || !bytes.Equal(g, raw.Stored())) {
				t.Fatalf("inStoredForm(%q) for the build %q", g, raw.Bytes)
			}
		}
		var c bytes.Buffer
		if json.Compact(&c, doc) != nil {
			return
		}
		o := Outcome{Bytes: append(c.Bytes(), '\n')}
		stored := o.Stored()
		if ok := o.inStoredForm(stored); ok != bytes.Equal(Pins(o.Bytes, nil), o.Bytes) {
			// Only an array at a text's place (which no contract holds)
			// is left to Pins.
			t.Fatalf("inStoredForm(Stored()) = %v for %s", ok, o.Bytes)
		}
		for _, g := range [][]byte{other, doc, changed(stored, int(at), other)} {
			if o.inStoredForm(g) && !bytes.Equal(g, stored) {
				t.Fatalf("inStoredForm(%q) for %s, whose stored form is\n%s", g, o.Bytes, stored)
			}
		}
	})
}

// changed returns b with the byte at at (modulo its length) replaced by
// with's first byte, or removed when with is empty.
func changed(b []byte, at int, with []byte) []byte {
	if len(b) == 0 {
		return b
	}
	at %= len(b)
	out := append([]byte{}, b[:at]...)
	if len(with) > 0 {
		out = append(out, with[0])
	}
	return append(out, b[at+1:]...)
}

// BenchmarkCompareGolden compares each sample golden with the contract it
// pins, as a run does: in one pass (inStoredForm, the fast path) and
// through Pins and json.Compact (matchesPinned, every golden before it).
func BenchmarkCompareGolden(b *testing.B) {
	paths, err := filepath.Glob("testdata/sample-cases/testdata/golden/*/*.golden")
	if err != nil || len(paths) == 0 {
		b.Fatalf("no goldens: %v", err)
	}
	var outcomes []Outcome
	var goldens [][]byte
	for _, p := range paths {
		g, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if isErrorReport(g) {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, Pins(g, nil)); err != nil {
			b.Fatal(err)
		}
		o := Outcome{Bytes: append(c.Bytes(), '\n')}
		if !o.inStoredForm(g) {
			b.Fatalf("%s is not in the stored form", p)
		}
		outcomes, goldens = append(outcomes, o), append(goldens, g)
	}
	b.Run("stored-form", func(b *testing.B) {
		for b.Loop() {
			for i, o := range outcomes {
				if !o.inStoredForm(goldens[i]) {
					b.Fatal("no match")
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(outcomes)), "ns/golden")
	})
	b.Run("pins", func(b *testing.B) {
		for b.Loop() {
			for i, o := range outcomes {
				if !o.matchesPinned(Pins(goldens[i], o.def)) {
					b.Fatal("no match")
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(outcomes)), "ns/golden")
	})
}
