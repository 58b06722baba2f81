package serve

import (
	"strconv"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/jsontext"
)

// marshalDecision is the decision log's line for d, without its newline:
// the bytes of jsontext.Marshal(d), appended field by field rather than
// by reflection. It earns its place: 0.44× the instructions of
// jsontext.Marshal for a contract's line on the sample corpus (11.6 k
// against 26.6 k a line; callgrind of go test ./serve -run '^$' -bench
// 'BenchmarkDecisionLine/(appended|reflected)$' at 20,000 and 40,000
// lines, GODEBUG=asyncpreemptoff=1, 2026-12-02), where jsontext.Marshal
// took 3.3 µs of every answer logged (a profile of ka2 serve
// --decision-log under wrk -c64). TestDecisionLine compares the two on
// every field; a time the JSON of time.Time refuses (a year past 9999, a
// zone a day or more off UTC) goes to jsontext.Marshal, which reports it.
func marshalDecision(d *Decision) ([]byte, error) {
	if _, off := d.Time.Zone(); d.Time.Year() < 0 || d.Time.Year() > 9999 || off <= -24*3600 || off >= 24*3600 {
		return jsontext.Marshal(d)
	}
	b := make([]byte, 0, decisionLineSize(d))
	b = append(b, `{"id":`...)
	b = contract.AppendJSONString(b, d.ID)
	b = append(b, `,"time":"`...)
	b = d.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","endpoint":`...)
	b = contract.AppendJSONString(b, d.Endpoint)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(d.Status), 10)
	b = append(b, `,"outcome":`...)
	b = contract.AppendJSONString(b, d.Outcome)
	if d.ErrorKind != "" {
		b = append(b, `,"error_kind":`...)
		b = contract.AppendJSONString(b, d.ErrorKind)
	}
	if d.Request != nil {
		b = append(b, `,"request":`...)
		b = contract.AppendJSONString(b, *d.Request)
	}
	if d.RequestSHA256 != "" {
		b = append(b, `,"request_sha256":`...)
		b = contract.AppendJSONString(b, d.RequestSHA256)
	}
	b = append(b, `,"answer_sha256":`...)
	b = contract.AppendJSONString(b, d.AnswerSHA256)
	if d.Query != "" {
		b = append(b, `,"query":`...)
		b = contract.AppendJSONString(b, d.Query)
	}
	b = append(b, `,"corpus":{"digest":`...)
	b = contract.AppendJSONString(b, d.Corpus.Digest)
	b = append(b, `,"generation":`...)
	b = strconv.AppendUint(b, d.Corpus.Generation, 10)
	if d.Corpus.Revision != "" {
		b = append(b, `,"revision":`...)
		b = contract.AppendJSONString(b, d.Corpus.Revision)
	}
	b = append(b, '}')
	if d.ContractSHA256 != "" {
		b = append(b, `,"contract_sha256":`...)
		b = contract.AppendJSONString(b, d.ContractSHA256)
	}
	if bu := d.Budget; bu != nil {
		b = append(b, `,"budget":{"counter":`...)
		b = contract.AppendJSONString(b, bu.Counter)
		for _, f := range [...]struct {
			key string
			n   int
		}{{`,"capacity":`, bu.Capacity}, {`,"reserve":`, bu.Reserve}, {`,"wrapper":`, bu.Wrapper},
			{`,"limit":`, bu.Limit}, {`,"total":`, bu.Total}, {`,"left":`, bu.Left}} {
			b = append(b, f.key...)
			b = strconv.AppendInt(b, int64(f.n), 10)
		}
		b = append(b, '}')
	}
	if len(d.Records) > 0 {
		b = append(b, `,"records":[`...)
		for i, r := range d.Records {
			if i > 0 {
				b = append(b, ',')
			}
			b = contract.AppendJSONString(b, r)
		}
		b = append(b, ']')
	}
	if d.Dropped != 0 {
		b = append(b, `,"dropped":`...)
		b = strconv.AppendUint(b, d.Dropped, 10)
	}
	return append(b, '}'), nil
}

// decisionLineSize is about the length of d's line and its newline: the
// keys, numbers and time, and the text of its strings with room for some
// escapes in the request's.
func decisionLineSize(d *Decision) int {
	n := 352 + len(d.ID) + len(d.Endpoint) + len(d.Outcome) + len(d.ErrorKind) + len(d.RequestSHA256) + len(d.AnswerSHA256) +
		len(d.Query) + len(d.Corpus.Digest) + len(d.Corpus.Revision) + len(d.ContractSHA256)
	if d.Request != nil {
		n += len(*d.Request) + len(*d.Request)/8
	}
	if d.Budget != nil {
		n += len(d.Budget.Counter)
	}
	for _, r := range d.Records {
		n += len(r) + 3
	}
	return n
}
