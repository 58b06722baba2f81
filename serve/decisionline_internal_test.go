package serve

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/internal/jsontext"
)

// fill sets every field of the struct v points to, and of the structs and
// pointers it holds, to a value that is not zero, with text from s: a
// field added to Decision is then in the line TestDecisionLine compares.
func fill(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(len(s)) + 7)
	case reflect.Uint64:
		v.SetUint(uint64(len(s)) + 9)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), s)
		fill(v.Index(1), s+"2")
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 9, 14, 10, 4, 5, 123456000, time.FixedZone("", 8*3600))))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), s)
		}
	default:
		panic("fill: a field of kind " + v.Kind().String())
	}
}

// checkDecisionLine fails t unless marshalDecision gives jsontext's bytes
// for d, or fails where it fails.
func checkDecisionLine(t *testing.T, d Decision) {
	t.Helper()
	want, wantErr := jsontext.Marshal(&d)
	got, err := marshalDecision(&d)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("marshalDecision(%+v) =\n%s, %v\njsontext.Marshal gives\n%s, %v", d, got, err, want, wantErr)
	}
}

// TestDecisionLine: a decision's line is the bytes encoding/json writes
// for it, whichever fields are set, whatever text they hold.
func TestDecisionLine(t *testing.T) {
	texts := []string{"x", "", "<a & b>", "a\"b\\c\n\r\t\b\f\x00\x1f", "\u2028\u2029", "\xff\xfe", "住宿 750 元", "🙂"}
	for _, s := range texts {
		var d Decision
		fill(reflect.ValueOf(&d).Elem(), s)
		checkDecisionLine(t, d)
	}
	full := "{}"
	for _, d := range []Decision{
		{},
		{Time: time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC), Dropped: 3},
		{ID: "ab12-1", Time: time.Date(2026, 12, 2, 6, 0, 0, 1, time.Local), Endpoint: "contract", Status: 200, Outcome: OutcomeOK,
			Request: &full, RequestSHA256: "aa", AnswerSHA256: "bb", Corpus: DecisionCorpus{Digest: "cc", Generation: 1},
			ContractSHA256: "dd", Budget: &DecisionBudget{Counter: "codepoint", Limits: budget.Limits{Capacity: 1600, Reserve: 200}, Limit: 1400, Total: -5, Left: 1405},
			Records: []string{"travel-v2:1-3"}},
		{Endpoint: "verify", Status: 400, Outcome: OutcomeError, ErrorKind: "bad_request", Query: "lang=zh", Records: []string{}},
		// Times at the edges of what the JSON of time.Time writes.
		{Time: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 23*3600+59*60))},
		{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -24*3600))},
		{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 5*3600+30*60+15))},
	} {
		checkDecisionLine(t, d)
	}
}

func FuzzDecisionLine(f *testing.F) {
	f.Add("ab12-1", "contract", `{"subject":"lodging"}`, "lang=en", "travel-v2:1-3", 200, uint64(1), int64(1764655200123456789))
	f.Add("", "", "\xff<>&\u2028", "", "", 0, uint64(0), int64(0))
	f.Fuzz(func(t *testing.T, id, endpoint, request, query, record string, status int, gen uint64, nanos int64) {
		d := Decision{ID: id, Time: time.Unix(0, nanos).UTC(), Endpoint: endpoint, Status: status, Outcome: OutcomeOK,
			Request: &request, RequestSHA256: request, AnswerSHA256: id, Query: query,
			Corpus: DecisionCorpus{Digest: record, Generation: gen, Revision: query}, Records: []string{record, id}}
		checkDecisionLine(t, d)
	})
}

// BenchmarkDecisionLine encodes a contract's line as the sample corpus
// makes it, by hand and by reflection.
func BenchmarkDecisionLine(b *testing.B) {
	req := `{"subject":"lodging","dates":["2026-01-01"],"question":"What is the Beijing lodging limit?"}`
	d := Decision{ID: "2ed6ebdeda55-1", Time: time.Date(2026, 12, 2, 6, 33, 38, 504564357, time.UTC), Endpoint: "contract", Status: 200, Outcome: OutcomeOK,
		Request: &req, RequestSHA256: "4f8637158d8166ebe9e72155aa4cd33a3497111d1e8ec5b62e61810b3bfa07ff",
		AnswerSHA256:   "6f2a4ba0ab5b2261fd2731b6864c05788fba5447221dad6391a08fbec2ada201",
		Corpus:         DecisionCorpus{Digest: "6b94b6e7c9553fda88f193f2746855bc00bcecf44d20dc7a62b5c6beb45a7a10", Generation: 1},
		ContractSHA256: "c28a0ab315a299ed9afea0e1565ca5f69c785089b17135f3d08e5622ca03ea46",
		Budget:         &DecisionBudget{Counter: "codepoint", Limits: budget.Limits{Capacity: 1600, Reserve: 200}, Limit: 1400, Total: 1175, Left: 225},
		Records:        []string{"travel-v2:1-3", "travel-v2:5-5"}}
	for _, bb := range []struct {
		name string
		line func(*Decision) ([]byte, error)
	}{{"appended", marshalDecision}, {"reflected", func(d *Decision) ([]byte, error) { return jsontext.Marshal(d) }}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bb.line(&d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
