package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastRequestSeeds are requests fastRequest reads (true) or leaves to
// the tree (false), each of a kind the service may be sent.
var fastRequestSeeds = []struct {
	json string
	fast bool
}{
	{`{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`, true},
	{"{\n  \"subjects\": [\"住宿\", \"meals\"],\n  \"dates\": [],\n  \"lang\": \"zh\",\n  \"short\": true,\n  \"require_evidence\": false\n}\n", true},
	{`{"counter":"o200k_base","capacity":6400,"reserve":-0,"provider":"openai"}`, true},
	{`{"subject":null,"subjects":null,"dates":null,"short":null,"capacity":null,"question":""}`, true},
	{`{}`, true},
	{" { } ", true},
	{`{"subject":"a","subjects":[]}`, true},
	{`{"subject":"","subjects":["b"]}`, true},
	{`{"question":"😀 é"}`, true},
	// Left to the tree: what it refuses, and what it reads that the scan
	// does not.
	{`{"subject":"a","subjects":["b"]}`, false},
	{`{"subjects":[" "]}`, false},
	{"{\"subjects\":[\"\u00a0\"]}", false},
	{`{"subjects":[null]}`, false},
	{`{"dates":["2026-02-30"]}`, false},
	{`{"dates":["2026-01-01T00:00:00Z"]}`, false},
	{`{"question":"a","question":"b"}`, false},
	{`{"Question":"a"}`, false},
	{`{"subjcet":"a"}`, false},
	{`{"items":[]}`, false},
	{`{"items":null}`, false},
	{`{"promote":[{"item":0,"to":"evidence"}]}`, false},
	{`{"question":"a\"b"}`, false},
	{`{"question":"\u00e9"}`, false},
	{"{\"question\":\"a\tb\"}", false},
	{"{\"question\":\"\xff\"}", false},
	{`{"capacity":1.5}`, false},
	{`{"capacity":1e3}`, false},
	{`{"capacity":01}`, false},
	{`{"capacity":99999999999999999999}`, false},
	{`{"capacity":-}`, false},
	{`{"short":"yes"}`, false},
	{`{"short":tru}`, false},
	{`{"short":truex}`, false},
	{`{"question":nullx}`, false},
	{`{"question":1}`, false},
	{`{"dates":"2026-01-01"}`, false},
	{`{"question":"a",}`, false},
	{`{"question":"a"} {}`, false},
	{`{"question" "a"}`, false},
	{`{"question":"a"`, false},
	{`{"dates":["2026-01-01",]}`, false},
	{`{"dates":["2026-01-01" "2026-01-02"]}`, false},
	{`["lodging"]`, false},
	{"\ufeff{}", false},
	{``, false},
}

// TestFastRequest: fastRequest reads the requests it should, and where it
// answers, its RequestFile is the tree's and the tree finds no problem.
func TestFastRequest(t *testing.T) {
	for _, tt := range fastRequestSeeds {
		if got := checkFastRequest(t, []byte(tt.json)); got != tt.fast {
			t.Errorf("fastRequest(%q) answered %v, want %v", tt.json, got, tt.fast)
		}
	}
}

// checkFastRequest reports whether fastRequest answered for data, and
// fails t if its answer is not the tree's.
func checkFastRequest(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := fastRequest(data)
	if !ok {
		return false
	}
	for _, extended := range []bool{false, true} {
		want, err := parseRequestTree("req.json", data, extended)
		if err != nil {
			t.Fatalf("fastRequest(%q) read a request the tree refuses: %v", data, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("fastRequest(%q) mismatch (-tree +fast):\n%s", data, diff)
		}
	}
	return true
}

func FuzzFastRequest(f *testing.F) {
	for _, s := range fastRequestSeeds {
		f.Add([]byte(s.json))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckText("fuzz.json", data) != nil {
			return // parseRequest refuses it before either reads it
		}
		checkFastRequest(t, data)
	})
}

// BenchmarkParseRequest reads the service's usual request both ways:
// parseRequest (through fastRequest) and the tree alone.
func BenchmarkParseRequest(b *testing.B) {
	data := []byte(`{"subject":"subject-00079","dates":["2021-07-25"],"question":"What is the limit for this claim?"}`)
	for _, bb := range []struct {
		name  string
		parse func(string, []byte, bool) (*RequestFile, error)
	}{{"fast", parseRequest}, {"tree", parseRequestTree}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bb.parse("request", data, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
